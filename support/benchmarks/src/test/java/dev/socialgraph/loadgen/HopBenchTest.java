package dev.socialgraph.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class HopBenchTest {

    private static Histogram latencies(long... micros) {
        Histogram h = new Histogram(TimeUnit.HOURS.toMicros(1), 3);
        for (long m : micros) {
            h.recordValue(m);
        }
        return h;
    }

    private static ClosedLoopRunner.Result closed(double throughput, long p50Micros, double gatewayCpuSeconds) {
        long ok = (long) (throughput * 10);
        return new ClosedLoopRunner.Result(throughput, ok, 0, latencies(p50Micros), 10,
                Map.of("gateway", gatewayCpuSeconds));
    }

    private static StepResult open(long p50Micros) {
        return new StepResult("t", Workload.CHECK_EXISTING, 100, 100, 1000, 0, 0, 0, latencies(p50Micros), 10,
                Map.of(), 0, 2.0, false);
    }

    private static HopBench.Row row(int round, double direct, double gateway, long directOpenP50, long gatewayOpenP50) {
        return new HopBench.Row(round, 32, "gateway", closed(direct, 300, 0), closed(gateway, 900, gateway * 10 * 200e-6),
                50, open(directOpenP50), open(gatewayOpenP50), 1.5 + round);
    }

    @Test
    void summary_reportsMediansOfPerRoundRatiosAndAddedP50() {
        // Ratios 0.5, 0.25, 0.6 → median 0.5; added p50 0.1, 0.4, 0.2 ms → median 0.2 ms.
        List<HopBench.Row> rows = List.of(
                row(1, 1000, 500, 200, 300),
                row(2, 2000, 500, 200, 600),
                row(3, 1000, 600, 300, 500));

        String summary = HopBench.summary(rows, List.of(1, 32));

        assertThat(summary.lines().count()).isEqualTo(3); // header, separator, one row (nothing at 1 connection)
        String line = summary.lines().skip(2).findFirst().orElseThrow();
        assertThat(line).startsWith("| 32 | gateway | 1,000 | 500 | 0.50x |")
                .contains("| 200 |")     // gateway CPU: 200 µs per answer in every round
                .contains("| +0.200 ms |")
                .endsWith("| 2.5–4.5 |");
    }

    @Test
    void median_evenCountIsTheMeanOfTheMiddleTwo() {
        List<HopBench.Row> rows = List.of(row(1, 1000, 100, 0, 0), row(2, 1000, 300, 0, 0));

        assertThat(HopBench.median(rows, r -> r.gatewayClosed().throughput())).isEqualTo(200.0);
        assertThat(HopBench.median(List.of(), r -> 1)).isNaN();
    }

    @Test
    void cpuProcess_chargesEachFloorItsOwnProcess_theGatewayItsRoute() {
        assertThat(HopBench.cpuProcess("gateway")).isEqualTo("gateway");
        assertThat(HopBench.cpuProcess("bare")).isEqualTo("bare");
        assertThat(HopBench.cpuProcess("hello")).isEqualTo("hello");
        assertThat(HopBench.cpuProcess("client")).isEqualTo("follow-check-service");
    }
}
