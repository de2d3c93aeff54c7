package dev.socialgraph.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.socialgraph.loadgen.ClosedLoopRunner.KindResult;
import dev.socialgraph.loadgen.Operation.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class MixBenchTest {

    private static Histogram latencies(long... micros) {
        Histogram h = new Histogram(TimeUnit.HOURS.toMicros(1), 3);
        for (long m : micros) {
            h.recordValue(m);
        }
        return h;
    }

    /** A 10-second run of {@code throughput} answered requests per second, the fleet using {@code cpuSeconds}. */
    private static ClosedLoopRunner.Result run(double throughput, long errors, Map<String, Double> cpuSeconds) {
        return new ClosedLoopRunner.Result(throughput, (long) (throughput * 10), errors, latencies(1000), 10,
                cpuSeconds);
    }

    @Test
    void kindRows_giveEachKindsCountsShareAndPercentiles_inTheTablesOrder() {
        Map<Kind, KindResult> byKind = new EnumMap<>(Kind.class);
        long[] checks = new long[100];
        for (int i = 0; i < checks.length; i++) {
            checks[i] = 1_000 + i * 10L; // 1.00 .. 1.99 ms
        }
        byKind.put(Kind.COUNTS, new KindResult(300, 0, latencies(500, 500, 500)));
        byKind.put(Kind.CHECK, new KindResult(98, 2, latencies(checks)));
        byKind.put(Kind.FOLLOWERS_PAGE, new KindResult(600, 0, latencies(4_000)));
        ClosedLoopRunner.Result r = new ClosedLoopRunner.Result(99.8, 998, 2, latencies(1), 10, Map.of(), byKind);

        List<MixBench.KindRow> rows = MixBench.kindRows(r);

        assertThat(rows).extracting(MixBench.KindRow::kind).containsExactly(Kind.CHECK, Kind.FOLLOWING_PAGE,
                Kind.FOLLOWERS_PAGE, Kind.COUNTS, Kind.COMMON_FOLLOWING);
        MixBench.KindRow check = rows.getFirst();
        assertThat(check.ok()).isEqualTo(98);
        assertThat(check.errors()).isEqualTo(2);
        assertThat(check.share()).isCloseTo(0.1, within(1e-9));
        assertThat(check.p50()).isCloseTo(1.49, within(0.01));
        assertThat(check.p99()).isCloseTo(1.98, within(0.01));
        assertThat(rows.get(1).ok()).isZero(); // no following page sent
        assertThat(rows.get(1).p50()).isNaN();
        assertThat(rows.get(2).share()).isCloseTo(0.6, within(1e-9));
        assertThat(rows.get(3).p99()).isCloseTo(0.5, within(0.001));
    }

    @Test
    void ratios_arePerRound_andTheSummaryGivesTheirMedians() {
        Map<String, Double> cpu = Map.of("gateway", 2.0, "follow-check-service", 1.0, "postgres", 0.5,
                "kafka", 0.5);
        List<MixBench.Run> runs = new ArrayList<>();
        runs.add(new MixBench.Run(MixBench.WARMUP_ROUND, MixBench.MIX_PUBLIC, "tao-mix", 32, run(10, 7, cpu)));
        // Mix public ÷ check public: 0.5, 0.4, 0.25 → 0.4; ÷ direct: 0.5, 0.5, 0.8 → 0.5.
        double[][] perRound = {{1000, 2000, 2000}, {800, 1600, 2000}, {1000, 1250, 4000}};
        for (int round = 1; round <= 3; round++) {
            double[] t = perRound[round - 1];
            runs.add(new MixBench.Run(round, MixBench.MIX_PUBLIC, "tao-mix", 32, run(t[0], 0, cpu)));
            runs.add(new MixBench.Run(round, MixBench.MIX_DIRECT, "tao-mix", 32, run(t[1], 0, cpu)));
            runs.add(new MixBench.Run(round, MixBench.CHECK_PUBLIC, "check-mixed", 32, run(t[2], 0, cpu)));
        }
        runs.add(new MixBench.Run(MixBench.LATENCY_ROUND, MixBench.MIX_PUBLIC, "tao-mix", 1, run(500, 1, cpu)));

        List<MixBench.Ratios> ratios = MixBench.ratios(runs);

        assertThat(ratios).extracting(MixBench.Ratios::round).containsExactly(1, 2, 3);
        assertThat(ratios.get(1).mixOverCheck()).isCloseTo(0.4, within(1e-9));
        assertThat(ratios.get(2).publicOverDirect()).isCloseTo(0.8, within(1e-9));
        // Every process together: 4 CPU seconds over 10,000 answers in round 1 is 400 µs each.
        assertThat(ratios.getFirst().fleetCpuMicrosPerMixRequest()).isCloseTo(400, within(1e-6));
        String summary = MixBench.summary(runs, runs.getLast().result(), null);
        assertThat(summary)
                .contains("| 32 connections, closed loop (median of 3 rounds) |")
                .contains("| mix public | 1,000 |")
                .contains("| mix public ÷ check public, req/s | 0.400 |")
                .contains("| mix public ÷ mix direct, req/s | 0.500 |")
                .contains("| fleet CPU per mix public request, µs | 400 |");
        // The warm-up's errors are not the run's; the one-connection run's are.
        assertThat(MixBench.errors(runs, null)).isEqualTo(1);
    }

    @Test
    void walk_followsTheCursorToTheLastPage_thenStartsOver() {
        List<Operation> asked = new ArrayList<>();
        // Three pages: first (no cursor) → "p2" → "p3" → last.
        MixBench.Walk walk = MixBench.walk(op -> {
            synchronized (asked) {
                asked.add(op);
            }
            String next = op.cursor() == null ? "p2" : op.cursor().equals("p2") ? "p3" : null;
            return new HttpTarget.PageAnswer(Target.Outcome.OK, next);
        }, 7, 120, 50, Duration.ZERO, Duration.ofMillis(50));

        assertThat(walk.pagesPerWalk()).isEqualTo(3);
        assertThat(walk.walks()).isGreaterThanOrEqualTo(walk.ok() / 3 - 1).isPositive();
        assertThat(walk.errors()).isZero();
        assertThat(asked.subList(0, 4)).extracting(Operation::cursor).containsExactly(null, "p2", "p3", null);
        assertThat(asked).allSatisfy(op -> {
            assertThat(op.kind()).isEqualTo(Kind.FOLLOWERS_PAGE);
            assertThat(op.user()).isEqualTo(7);
            assertThat(op.limit()).isEqualTo(50);
        });
    }

    @Test
    void walk_aFailedPageIsAnError_andTheWalkStartsOver() {
        List<String> cursors = new ArrayList<>();
        MixBench.Walk walk = MixBench.walk(op -> {
            cursors.add(op.cursor());
            return op.cursor() == null ? new HttpTarget.PageAnswer(Target.Outcome.OK, "p2")
                    : new HttpTarget.PageAnswer(Target.Outcome.ERROR, null);
        }, 7, 120, 50, Duration.ZERO, Duration.ofMillis(20));

        assertThat(walk.errors()).isPositive();
        assertThat(walk.walks()).isZero();
        assertThat(cursors.subList(0, 4)).containsExactly(null, "p2", null, "p2");
    }

    @Test
    void csv_hasARowPerRunAndPerKind_withEveryProcesssCpu() {
        Map<Kind, KindResult> byKind = new EnumMap<>(Kind.class);
        byKind.put(Kind.CHECK, new KindResult(10, 1, latencies(100)));
        ClosedLoopRunner.Result r = new ClosedLoopRunner.Result(1.0, 10, 1, latencies(100), 10,
                Map.of("redis", 0.25, "gateway", 1.0), byKind);
        MixBench.Walk walk = new MixBench.Walk(7, 120, 50, 30, 0, 10, 3, latencies(2_000), 10);

        String csv = MixBench.csv(List.of(new MixBench.Run(1, MixBench.MIX_PUBLIC, "tao-mix", 32, r)), walk);

        List<String> lines = csv.lines().toList();
        assertThat(lines.getFirst()).endsWith(",fleet_cpu_s,fleet_cpu_us_per_ok,cpu_s_gateway,cpu_s_redis");
        assertThat(lines.get(1)).startsWith("1,mix public,tao-mix,32,all,10,1,10.0,1.0,")
                .endsWith(",1.250,125000.0,1.000,0.250");
        assertThat(lines.get(2)).startsWith("1,mix public,tao-mix,32,check,10,1,");
        assertThat(lines.get(3)).startsWith("-1,celebrity followers walk,user 7 limit 50,1,followers-page,30,0,");
        assertThat(lines).allSatisfy(line -> assertThat(line.split(",", -1)).hasSize(18));
    }
}
