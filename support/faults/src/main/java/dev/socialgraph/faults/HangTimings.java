package dev.socialgraph.faults;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/**
 * What the workload saw while a store hung and after it continued, from the recorded history: the benchmark figures
 * of the report (never asserted; one run on a shared machine), and the one outcome that is asserted, requests of
 * users whose rows are all on other databases than a hung one that did not succeed.
 */
final class HangTimings {

    /** How long after the store continued the recovery is followed, in 1 s steps. */
    static final long AFTER_MS = 5_000;

    private HangTimings() {
    }

    /**
     * One store hang as the campaign ran it.
     *
     * @param name    the fault's name
     * @param startMs when it was injected, on the workload's clock
     * @param endMs   when the store continued
     */
    record Window(String name, long startMs, long endMs) {
    }

    /**
     * The line of the report for one hang: checks per second and their p99 before (as long as the hang, before it),
     * during and after; writes acknowledged and answered 503 during it, and the 503s' p99; the first second after it
     * whose check and write rates are both back to 0.8 of before.
     *
     * @param history every request of the run
     * @param w       the hang
     * @return the line
     */
    static String note(List<Op> history, Window w) {
        long hold = Math.max(1, w.endMs() - w.startMs());
        Stats readsBefore = stats(history, w.startMs() - hold, w.startMs(), op -> op.kind() == Op.Kind.CHECK);
        Stats readsDuring = stats(history, w.startMs(), w.endMs(), op -> op.kind() == Op.Kind.CHECK);
        Stats writesBefore = stats(history, w.startMs() - hold, w.startMs(), op -> op.kind() != Op.Kind.CHECK);
        Stats writesDuring = stats(history, w.startMs(), w.endMs(), op -> op.kind() != Op.Kind.CHECK);
        Stats unavailable = stats(history, w.startMs(), w.endMs() + 1_000,
                op -> op.outcome() == Op.Outcome.UNAVAILABLE);
        String back = "not within " + AFTER_MS / 1000 + " s";
        for (long s = 0; s < AFTER_MS; s += 1_000) {
            Stats r = stats(history, w.endMs() + s, w.endMs() + s + 1_000, op -> op.kind() == Op.Kind.CHECK);
            Stats wr = stats(history, w.endMs() + s, w.endMs() + s + 1_000, op -> op.kind() != Op.Kind.CHECK);
            if (r.okRate() >= 0.8 * readsBefore.okRate() && wr.okRate() >= 0.8 * writesBefore.okRate()) {
                back = "in the second from " + s / 1000 + " s to " + (s / 1000 + 1) + " s after";
                break;
            }
        }
        return ("checks %.0f/s (p99 %d ms) before, %.0f/s (p99 %d ms) during; writes acknowledged %.0f/s before, "
                + "%.0f/s during; 503 + Retry-After %d (p99 %d ms, max %d ms); rates back to 0.8 %s")
                .formatted(readsBefore.okRate(), readsBefore.p99Ms(), readsDuring.okRate(), readsDuring.p99Ms(),
                        writesBefore.okRate(), writesDuring.okRate(), unavailable.count(), unavailable.p99Ms(),
                        unavailable.maxMs(), back);
    }

    /**
     * Requests during a hang of a database of the following group, about a pair neither of whose users' rows are on
     * it, that did not succeed: users of other databases must not notice the hang.
     *
     * @param history    every request of the run
     * @param w          the hang (requests started within it, or within its last second ending after it)
     * @param hungShards whether a logical shard's following rows are on the hung database
     * @param shards     the logical shard count
     * @return descriptions of the requests that failed, empty when none did
     */
    static List<String> otherDatabaseFailures(List<Op> history, Window w, Predicate<Integer> hungShards, int shards) {
        List<String> out = new ArrayList<>();
        for (Op op : history) {
            boolean inside = op.startMs() >= w.startMs() && op.startMs() < w.endMs();
            boolean elsewhere = !hungShards.test((int) Math.floorMod(op.actor(), (long) shards))
                    && !hungShards.test((int) Math.floorMod(op.target(), (long) shards));
            if (inside && elsewhere && op.outcome() != Op.Outcome.OK) {
                out.add(w.name() + ": " + op);
            }
        }
        return out;
    }

    /**
     * Requests that started within {@code [from, to)} and matched.
     *
     * @param count   how many
     * @param ok      how many of them succeeded
     * @param seconds the window's length
     * @param p99Ms   the 99th percentile of their latency, ms (0 when none)
     * @param maxMs   the longest, ms
     */
    record Stats(int count, int ok, double seconds, long p99Ms, long maxMs) {
        double okRate() {
            return seconds <= 0 ? 0 : ok / seconds;
        }
    }

    static Stats stats(List<Op> history, long from, long to, Predicate<Op> which) {
        long[] latencies = history.stream().filter(op -> op.startMs() >= from && op.startMs() < to).filter(which)
                .mapToLong(op -> op.endMs() - op.startMs()).sorted().toArray();
        int ok = (int) history.stream().filter(op -> op.startMs() >= from && op.startMs() < to).filter(which)
                .filter(op -> op.outcome() == Op.Outcome.OK).count();
        long p99 = latencies.length == 0 ? 0 : latencies[(int) Math.ceil(0.99 * latencies.length) - 1];
        long max = latencies.length == 0 ? 0 : Arrays.stream(latencies).max().orElse(0);
        return new Stats(latencies.length, ok, (to - from) / 1000.0, p99, max);
    }
}
