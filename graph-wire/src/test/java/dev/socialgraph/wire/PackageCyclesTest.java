package dev.socialgraph.wire;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * No package cycle in the main classes of the wire descriptors and codecs, the root package included: every package is
 * a slice of its own ({@code (**)} captures the whole package name).
 */
@AnalyzeClasses(packages = "dev.socialgraph.wire", importOptions = ImportOption.DoNotIncludeTests.class)
class PackageCyclesTest {

    @ArchTest
    static final ArchRule noPackageCycle = slices().matching("dev.socialgraph.(**)").should().beFreeOfCycles();
}
