package dev.socialgraph.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HangTimingsTest {

    private static Op check(long start, long latency, Op.Outcome outcome) {
        return new Op(Op.Kind.CHECK, 1, 2, start, start + latency, outcome, outcome == Op.Outcome.OK ? 200 : 503,
                false);
    }

    @Test
    void stats_p99_isTheLatencyBelowWhichNinetyNinePercentLie() {
        List<Op> history = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            history.add(check(i, i < 99 ? 1 : 500, Op.Outcome.OK));
        }
        HangTimings.Stats stats = HangTimings.stats(history, 0, 1_000, op -> true);
        assertThat(stats.count()).isEqualTo(100);
        assertThat(stats.p99Ms()).isEqualTo(1);
        assertThat(stats.maxMs()).isEqualTo(500);
        assertThat(stats.okRate()).isEqualTo(100.0);
    }

    @Test
    void otherDatabaseFailures_countsOnlyPairsWhollyOnOtherDatabases_thatFailedWithinTheHang() {
        HangTimings.Window hang = new HangTimings.Window("database hung", 1_000, 2_000);
        List<Op> history = List.of(
                // shard 1 and 2: elsewhere, failed inside the hang: counted
                new Op(Op.Kind.FOLLOW, 1, 2, 1_500, 1_600, Op.Outcome.UNAVAILABLE, 503, false),
                // the target's shard 200 is on the hung database: not counted
                new Op(Op.Kind.FOLLOW, 1, 200, 1_500, 1_600, Op.Outcome.UNAVAILABLE, 503, false),
                // elsewhere but succeeded: not counted
                new Op(Op.Kind.FOLLOW, 3, 4, 1_500, 1_600, Op.Outcome.OK, 200, false),
                // elsewhere, failed, but before the hang: not counted
                new Op(Op.Kind.FOLLOW, 5, 6, 500, 600, Op.Outcome.ERROR, 500, false));
        assertThat(HangTimings.otherDatabaseFailures(history, hang, shard -> shard >= 128, 256)).hasSize(1)
                .first().asString().contains("actor=1, target=2");
    }
}
