package dev.socialgraph.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.localruntime.RepositoryRoot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Benchmark results are data, indexed in one page: {@code benchmark-results/} holds one directory per run (named
 * {@code <yyyy-mm-dd>-<what>}, with a {@code README.md}: the command and what was measured, beside the raw output),
 * no program and no build file (those live in this module, the floors in {@code support/floors}), and the list under
 * "Every run" in {@code docs/benchmarks.md} names each run directory once, in name order, and nothing else. Written
 * after the results directory grew two Java programs with their own poms and nine runs the index did not name. Needs
 * no server: it reads the checkout.
 */
class BenchmarkResultsTest {

    private static final String RESULTS = "benchmark-results";
    private static final String INDEX = "docs/benchmarks.md";
    /** The index's list of runs: from this heading to the next second-level heading. */
    private static final String LIST_HEADING = "## Every run";
    /** One entry: {@code - [`<run>`](../benchmark-results/<run>/README.md): ...}; groups: the text, the link's run. */
    private static final Pattern ENTRY =
            Pattern.compile("^- \\[`([^`]+)`]\\(\\.\\./" + RESULTS + "/([^/)]+)/README\\.md\\)", Pattern.MULTILINE);
    private static final Pattern RUN_NAME = Pattern.compile("\\d{4}-\\d{2}-\\d{2}-[A-Za-z0-9][A-Za-z0-9.-]*");
    /** Sources of a compiled program, build files and build output; scripts that are a run's command are data. */
    private static final Pattern PROGRAM = Pattern.compile(
            "(?i).*\\.(java|kt|kts|scala|groovy|class|jar)|pom\\.xml|build\\.gradle|settings\\.gradle|build\\.xml"
                    + "|makefile|mvnw|gradlew");

    private final Path root = RepositoryRoot.find();

    @Test
    void everyRunDirectory_isListedInTheIndex() {
        List<String> runs = runs(root.resolve(RESULTS));

        assertThat(runs).as("run directories under %s", RESULTS).isNotEmpty();
        assertThat(unlisted(runs, listed(index())))
                .as("run directories that %s does not list under \"%s\" (add one line each)", INDEX, LIST_HEADING)
                .isEmpty();
    }

    @Test
    void everyIndexEntry_hasItsRunDirectory() {
        assertThat(missing(runs(root.resolve(RESULTS)), listed(index())))
                .as("entries under \"%s\" in %s without a directory in %s", LIST_HEADING, INDEX, RESULTS)
                .isEmpty();
    }

    @Test
    void index_listsEachRunOnce_inNameOrder() {
        List<String> listed = listed(index());

        assertThat(listed).as("entries under \"%s\" in %s", LIST_HEADING, INDEX).doesNotHaveDuplicates().isSorted();
    }

    @Test
    void runDirectories_holdNoProgramOrBuildFile() {
        assertThat(programs(root.resolve(RESULTS)))
                .as("programs or build files in %s (move them to support/benchmarks, or support/floors for an "
                        + "application measured against; leave a README saying where)", RESULTS)
                .isEmpty();
    }

    @Test
    void everyRunDirectory_isDatedAndHasAReadme() {
        Path results = root.resolve(RESULTS);
        List<String> runs = runs(results);

        assertThat(runs).as("run directory names in %s", RESULTS).allMatch(run -> RUN_NAME.matcher(run).matches());
        assertThat(runs).as("run directories without a README.md (what was run, the command, the raw output's files)")
                .allMatch(run -> Files.isRegularFile(results.resolve(run).resolve("README.md")));
    }

    @Test
    void check_whenARunIsNotListed_namesIt_andWhenAnEntryHasNoDirectory_namesTheEntry(@TempDir Path dir)
            throws IOException {
        Path results = Files.createDirectories(dir.resolve(RESULTS));
        Files.createDirectories(results.resolve("2026-11-20-listed"));
        Files.createDirectories(results.resolve("2026-11-21-unlisted"));
        String index = """
                # Benchmark results

                ## Every run

                - [`2026-11-20-listed`](../benchmark-results/2026-11-20-listed/README.md): a run.
                - [`2026-11-22-gone`](../benchmark-results/2026-11-22-gone/README.md): a run whose directory went.

                ## JMH

                - [`2026-11-23-elsewhere`](../benchmark-results/2026-11-23-elsewhere/README.md): not the list.
                """;

        List<String> runs = runs(results);
        List<String> listed = listed(index);

        assertThat(listed).containsExactly("2026-11-20-listed", "2026-11-22-gone");
        assertThat(unlisted(runs, listed)).containsExactly("2026-11-21-unlisted");
        assertThat(missing(runs, listed)).containsExactly("2026-11-22-gone");
    }

    @Test
    void check_whenARunHoldsAProgram_namesItsFiles_butNotItsDataOrCommand(@TempDir Path dir) throws IOException {
        Path run = Files.createDirectories(dir.resolve("2026-11-25-stack"));
        write(run.resolve("README.md"));
        write(run.resolve("rounds.txt"));
        write(run.resolve("run.sh"));
        write(run.resolve("summarise.py"));
        write(run.resolve("floor-apps/mvc/pom.xml"));
        write(run.resolve("floor-apps/mvc/src/main/java/floor/Floor.java"));

        assertThat(programs(dir)).containsExactly(
                "2026-11-25-stack/floor-apps/mvc/pom.xml",
                "2026-11-25-stack/floor-apps/mvc/src/main/java/floor/Floor.java");
    }

    @Test
    void check_whenAnEntrysTextAndLinkDisagree_fails() {
        String index = """
                ## Every run

                - [`2026-11-20-a`](../benchmark-results/2026-11-20-b/README.md): a copy-paste slip.
                """;

        assertThatThrownBy(() -> listed(index)).isInstanceOf(AssertionError.class).hasMessageContaining("2026-11-20-a");
    }

    private String index() {
        try {
            return Files.readString(root.resolve(INDEX), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The run directories' names, sorted; fails on a file directly under {@code results}: a run is a directory. */
    static List<String> runs(Path results) {
        List<String> runs = new ArrayList<>();
        try (Stream<Path> entries = Files.list(results)) {
            for (Path entry : entries.sorted().toList()) {
                String name = entry.getFileName().toString();
                if (!Files.isDirectory(entry)) {
                    throw new AssertionError(results.relativize(entry) + " is a file directly under " + results
                            + ": every run is a directory of its own");
                }
                runs.add(name);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return runs;
    }

    /** The runs the index lists under {@link #LIST_HEADING}, in order; fails when an entry's text and link differ. */
    static List<String> listed(String index) {
        int start = index.indexOf(LIST_HEADING + "\n");
        if (start < 0) {
            throw new AssertionError("no \"" + LIST_HEADING + "\" section in the index");
        }
        int end = index.indexOf("\n## ", start + LIST_HEADING.length());
        String list = index.substring(start, end < 0 ? index.length() : end);
        List<String> listed = new ArrayList<>();
        Matcher entry = ENTRY.matcher(list);
        while (entry.find()) {
            if (!entry.group(1).equals(entry.group(2))) {
                throw new AssertionError("entry `" + entry.group(1) + "` links to " + RESULTS + "/" + entry.group(2));
            }
            listed.add(entry.group(1));
        }
        return listed;
    }

    static Set<String> unlisted(List<String> runs, List<String> listed) {
        Set<String> unlisted = new TreeSet<>(runs);
        listed.forEach(unlisted::remove);
        return unlisted;
    }

    static Set<String> missing(List<String> runs, List<String> listed) {
        Set<String> missing = new TreeSet<>(listed);
        runs.forEach(missing::remove);
        return missing;
    }

    /** Every program or build file below {@code results}, as paths relative to it with {@code /}, sorted. */
    static Set<String> programs(Path results) {
        try (Stream<Path> files = Files.walk(results)) {
            Set<String> programs = new TreeSet<>();
            files.filter(Files::isRegularFile)
                    .filter(file -> PROGRAM.matcher(file.getFileName().toString()).matches())
                    .forEach(file -> programs.add(results.relativize(file).toString().replace('\\', '/')));
            return programs;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "x\n");
    }
}
