package dev.socialgraph.bench;

import dev.socialgraph.store.account.AccountState;
import dev.socialgraph.store.account.InactiveUsers;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the view of inactive accounts adds to every follow check (docs/account-lifecycle.md): {@link
 * InactiveUsers#hidesEither} over a pair of ids, with no inactive user (one volatile read) and with 10,000 and
 * 5,000,000 (1 % of 500M users, docs/capacity.md) inactive users, against ids drawn from the same range (1 in 1,000
 * of the probes' ids is inactive at 10,000; the table does not fit in the caches at 5M).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class InactiveUsersBenchmark {

    @Param({"0", "10000", "5000000"})
    int inactive;

    private InactiveUsers view;
    private long[] probes;

    @State(Scope.Thread)
    public static class Cursor {
        int next;
    }

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(1);
        view = new InactiveUsers();
        long range = Math.max(10_000_000L, inactive * 1_000L);
        for (int i = 0; i < inactive; i++) {
            view.apply(random.nextLong(1, range), AccountState.DEACTIVATED);
        }
        probes = new long[8192];
        for (int i = 0; i < probes.length; i++) {
            probes[i] = random.nextLong(1, range);
        }
    }

    @Benchmark
    public boolean hidesEither(Cursor cursor) {
        int i = cursor.next;
        cursor.next = (i + 2) & (probes.length - 1);
        return view.hidesEither(probes[i], probes[i + 1]);
    }
}
