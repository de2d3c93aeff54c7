package dev.socialgraph.reconciler;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * No package cycle in the reconciler's main classes, the root package included: every package is a slice of its own
 * ({@code (**)} captures the whole package name), so a cycle through the wiring in the root package fails here as one
 * between two features does.
 */
@AnalyzeClasses(packages = "dev.socialgraph.reconciler", importOptions = ImportOption.DoNotIncludeTests.class)
class PackageCyclesTest {

    @ArchTest
    static final ArchRule noPackageCycle = slices().matching("dev.socialgraph.(**)").should().beFreeOfCycles();
}
