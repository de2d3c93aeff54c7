package dev.socialgraph.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.socialgraph.loadgen.Target.ServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuTimesTest {

    @Test
    void parse_commandWithSpacesAndParentheses_readsPpidAndAllFourTimes() {
        String stat = "4242 (java (x) y) S 17 4242 4242 0 -1 4194560 1 2 3 4 100 50 7 3 20 0 30 0 5 6 7";

        long[] parsed = CpuTimes.parse(stat);

        assertThat(parsed[0]).isEqualTo(17);
        assertThat(parsed[1]).isEqualTo(100 + 50 + 7 + 3);
    }

    @Test
    void sampleEach_processThatIsGone_isLeftOut() throws Exception {
        assumeTrue(CpuTimes.available(), "needs Linux /proc");
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor();
        ServerProcess me = new ServerProcess("me", ProcessHandle.current().pid());

        Map<ServerProcess, Double> sample = CpuTimes.sampleEach(List.of(me, new ServerProcess("gone", ended.pid())));

        assertThat(sample).containsOnlyKeys(me);
        assertThat(sample.get(me)).isPositive();
    }

    @Test
    void sample_busyChild_countsUnderTheParentUnlessMeasuredItself() throws Exception {
        assumeTrue(CpuTimes.available(), "needs Linux /proc");
        ServerProcess me = new ServerProcess("me", ProcessHandle.current().pid());
        double before = CpuTimes.sample(List.of(me)).get("me");
        Process child = new ProcessBuilder("sh", "-c", "while :; do :; done").start();
        try {
            ServerProcess spinner = new ServerProcess("child", child.pid());
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> CpuTimes.sample(List.of(spinner)).get("child") > 0.3);
            double after = CpuTimes.sample(List.of(me)).get("me");
            Map<String, Double> both = CpuTimes.sample(List.of(me, spinner));

            assertThat(after - before).isGreaterThan(0.3);
            assertThat(both.get("child")).isGreaterThan(0.3);
            assertThat(both.get("me")).isLessThan(after - 0.25);
        } finally {
            child.destroyForcibly().waitFor();
        }
    }
}
