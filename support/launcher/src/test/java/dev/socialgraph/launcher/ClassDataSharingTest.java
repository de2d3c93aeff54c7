package dev.socialgraph.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.localruntime.ClassDataSharing;
import dev.socialgraph.localruntime.RepositoryRoot;
import dev.socialgraph.localruntime.ServiceProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's and the test harness' service command lines run the extracted jar with a class-data sharing archive;
 * tried on a copy of the reconciler's real exec jar (the launcher's build depends on every service's), so the
 * module's own {@code target/cds} is left alone.
 */
class ClassDataSharingTest {

    @TempDir
    Path dir;

    private Path copyOfRealJar() throws Exception {
        Path jar = ServiceProcess.execJar(RepositoryRoot.find(), "reconciler");
        Path copy = Files.createDirectories(dir.resolve("target")).resolve(jar.getFileName());
        Files.copy(jar, copy);
        return copy;
    }

    @Test
    void aBootJar_runsExtracted_withAnArchiveNamedByItsOptions() throws Exception {
        Path jar = copyOfRealJar();
        List<String> options = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1");

        List<String> args = ClassDataSharing.jarArguments(jar, options);

        assertThat(args).hasSize(4);
        assertThat(args.get(0)).startsWith("-XX:SharedArchiveFile=").endsWith(".jsa");
        assertThat(args.subList(1, 3)).containsExactly("-XX:+AutoCreateSharedArchive", "-jar");
        Path extracted = Path.of(args.get(3));
        assertThat(extracted).isRegularFile().hasFileName(jar.getFileName().toString());
        assertThat(extracted.getParent().getParent()).isEqualTo(dir.resolve("target/cds"));
        try (Stream<Path> libs = Files.list(extracted.resolveSibling("lib"))) {
            assertThat(libs.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("spring-core-"));
        }
        Path archive = Path.of(args.get(0).substring("-XX:SharedArchiveFile=".length()));
        assertThat(archive.getParent()).isEqualTo(extracted.getParent());

        // The same jar and options: the same directory and archive, nothing extracted again.
        FileTime extractedAt = Files.getLastModifiedTime(extracted);
        assertThat(ClassDataSharing.jarArguments(jar, options)).isEqualTo(args);
        assertThat(Files.getLastModifiedTime(extracted)).isEqualTo(extractedAt);
        // Other options (an archive made with them would not be mapped): another archive in the same directory.
        List<String> other = ClassDataSharing.jarArguments(jar, List.of("-Xmx256m", "-XX:+UseCompactObjectHeaders"));
        assertThat(other.get(0)).isNotEqualTo(args.get(0)).startsWith("-XX:SharedArchiveFile=" + extracted.getParent());
        assertThat(other.get(3)).isEqualTo(args.get(3));
    }

    @Test
    void aRebuiltJar_getsADirectoryOfItsOwn() throws Exception {
        Path jar = copyOfRealJar();
        Path first = Path.of(ClassDataSharing.jarArguments(jar, List.of()).get(3));

        Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 1000));
        Path second = Path.of(ClassDataSharing.jarArguments(jar, List.of()).get(3));

        assertThat(second.getParent()).isNotEqualTo(first.getParent());
        assertThat(first).isRegularFile(); // a running service's jar is never changed under it
        assertThat(second).isRegularFile();
    }

    @Test
    void aJarThatCannotBeExtracted_runsAsItIs() throws Exception {
        Path jar = Files.createDirectories(dir.resolve("target")).resolve("broken-exec.jar");
        Files.writeString(jar, "not a jar");

        assertThat(ClassDataSharing.jarArguments(jar, List.of("-Xmx64m"))).containsExactly("-jar", jar.toString());
        try (Stream<Path> left = Files.list(dir.resolve("target/cds"))) {
            assertThat(left).as("no scratch directory left behind").isEmpty();
        }
    }
}
