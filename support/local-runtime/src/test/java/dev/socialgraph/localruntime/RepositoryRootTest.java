package dev.socialgraph.localruntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RepositoryRootTest {

    @TempDir
    Path dir;

    @Test
    void above_fromAModuleTwoLevelsDown_returnsTheDirectoryWithMvnwAndPom() throws Exception {
        Path root = repository(dir.resolve("repo"));
        Path module = Files.createDirectories(root.resolve("support/e2e"));
        Files.createFile(module.resolve("pom.xml"));
        Files.createFile(root.resolve("support/pom.xml"));

        assertThat(RepositoryRoot.above(module)).isEqualTo(root.toAbsolutePath().normalize());
    }

    @Test
    void above_fromTheRootItself_returnsIt() throws Exception {
        Path root = repository(dir.resolve("repo"));

        assertThat(RepositoryRoot.above(root)).isEqualTo(root.toAbsolutePath().normalize());
    }

    @Test
    void above_whenAPomHasNoWrapperBesideIt_keepsClimbing() throws Exception {
        Path root = repository(dir.resolve("repo"));
        Path module = Files.createDirectories(root.resolve("gateway"));
        Files.createFile(module.resolve("pom.xml"));

        assertThat(RepositoryRoot.above(module.resolve("src/test"))).isEqualTo(root.toAbsolutePath().normalize());
    }

    @Test
    void above_outsideAnyRepository_throwsNamingTheStart() {
        assertThatThrownBy(() -> RepositoryRoot.above(Path.of("/")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mvnw");
    }

    @Test
    void find_fromThisModule_isTheCheckoutHoldingTheSupportAggregator() {
        Path root = RepositoryRoot.find();

        assertThat(root.resolve("mvnw")).isRegularFile();
        assertThat(root.resolve("support/pom.xml")).isRegularFile();
    }

    private static Path repository(Path root) throws Exception {
        Files.createDirectories(root);
        Files.createFile(root.resolve("mvnw"));
        Files.createFile(root.resolve("pom.xml"));
        return root;
    }
}
