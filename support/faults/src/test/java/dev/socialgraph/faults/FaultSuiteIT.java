package dev.socialgraph.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.localruntime.RepositoryRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fault suite on a fleet started by {@code ./graph up}: one cycle of every fault by default (a few minutes,
 * part of {@code ./mvnw verify}); {@code -Dfaults.cycles=20} is the long run (docs/faults.md), and
 * {@code -Dfaults.only=Redis,database} runs only the faults whose names contain one of the words,
 * {@code -Dfaults.hold=30} holds pauses, refusals and hangs 30 s instead of 5 s, {@code -Dfaults.writers=64} runs 64
 * writer threads instead of 8. The one-cycle run starts its services with C1 only ({@code -XX:TieredStopAtLevel=1}),
 * as the launcher's own tests do, for start-ups and restarts in half the CPU; the long run keeps the fleet's own JVM
 * flags. {@code -Dfaults.java-opts=...} sets them for either. The report and the history go to {@code support/faults/target/faults-<time>/}.
 */
class FaultSuiteIT {

    @Test
    void noLostAckStaleReadDivergenceErrorOrCrashUnderFaults() throws Exception {
        Path repo = RepositoryRoot.find();
        Path out = Files.createDirectories(Path.of("target").toAbsolutePath().resolve("faults-" + System.currentTimeMillis()));
        int cycles = Integer.getInteger("faults.cycles", 1);
        String only = System.getProperty("faults.only", "");
        Campaign.Settings settings = (cycles == 1 ? Campaign.Settings.shortRun() : Campaign.Settings.longRun(cycles))
                .only(only.isBlank() ? List.of() : List.of(only.split(",")));
        Integer hold = Integer.getInteger("faults.hold");
        if (hold != null) {
            settings = settings.holding(java.time.Duration.ofSeconds(hold));
        }
        Integer writers = Integer.getInteger("faults.writers");
        if (writers != null) {
            settings = settings.writing(writers);
        }

        Campaign.Result result;
        String javaOptions = System.getProperty("faults.java-opts", cycles == 1 ? "-XX:TieredStopAtLevel=1" : "");
        try (Fleet fleet = Fleet.start(repo, out.resolve("fleet"), javaOptions)) {
            result = Campaign.run(fleet, settings, out);
        }
        String report = result.markdown(settings);
        System.out.println(report);

        assertThat(result.report().writesAcknowledged()).as("the workload wrote").isPositive();
        assertThat(result.report().checksAnswered()).as("the workload read").isPositive();
        assertThat(result.clean()).as("every count of the fault suite is 0; report in %s:%n%s", out, report).isTrue();
    }
}
