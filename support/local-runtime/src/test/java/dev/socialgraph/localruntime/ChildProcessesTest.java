package dev.socialgraph.localruntime;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Waiting for a child's readiness, and its log's tail. */
class ChildProcessesTest {

    /** A port nothing listens on: the probe's connection is refused, which counts as "not ready yet". */
    static final URI NOBODY = URI.create("http://127.0.0.1:" + FreePorts.pick(1)[0] + "/actuator/health/readiness");

    @Test
    void aChildThatExits_beforeItIsReady_isReportedExited() throws Exception {
        Process exits = new ProcessBuilder("sh", "-c", "exit 3").start();

        assertThat(ChildProcesses.awaitReady(exits, NOBODY, Duration.ofSeconds(30), Duration.ofMillis(20)))
                .isEqualTo(ChildProcesses.Readiness.EXITED);
        assertThat(exits.exitValue()).isEqualTo(3);
    }

    @Test
    void aChildThatNeverAnswers_isReportedTimedOut_andStillRuns() throws Exception {
        Process sleeps = new ProcessBuilder("sleep", "30").start();
        try {
            assertThat(ChildProcesses.awaitReady(sleeps, NOBODY, Duration.ofMillis(300), Duration.ofMillis(20)))
                    .isEqualTo(ChildProcesses.Readiness.TIMED_OUT);
            assertThat(sleeps.isAlive()).isTrue();
        } finally {
            sleeps.destroyForcibly();
        }
    }

    @Test
    void tail_givesTheLastLines_orSaysWhyThereAreNone(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("service.log");
        Files.writeString(log, "one\ntwo\nthree\n");

        assertThat(ChildProcesses.tail(log, 2)).isEqualTo("two\nthree");
        assertThat(ChildProcesses.tail(log, 10)).isEqualTo("one\ntwo\nthree");
        assertThat(ChildProcesses.tail(dir.resolve("missing.log"), 2)).startsWith("(no log: ");
    }
}
