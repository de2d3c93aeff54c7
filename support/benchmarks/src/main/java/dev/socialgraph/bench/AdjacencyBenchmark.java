package dev.socialgraph.bench;

import dev.socialgraph.common.adjacency.AdjacencyArray;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
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
 * Membership in a following row ({@link AdjacencyArray#contains}, the L2/local-cache answer of a follow check)
 * at the row sizes that matter: a median user (10), a heavy one (1,000) and the cap (10,000). Probes are half
 * hits, half misses, drawn from a precomputed table so the benchmark measures the search, not the random
 * generator.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class AdjacencyBenchmark {

    @Param({"10", "1000", "10000"})
    int size;

    private long[] ids;
    private long[] probes;
    private int next;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(42);
        // Ids spread like real user ids: sparse in a 32-bit range.
        ids = random.longs(size * 2L, 1, 600_000_000L).distinct().limit(size).sorted().toArray();
        probes = new long[4096];
        for (int i = 0; i < probes.length; i++) {
            probes[i] = (i & 1) == 0 ? ids[random.nextInt(ids.length)] : random.nextLong(1, 600_000_000L);
        }
    }

    @Benchmark
    public boolean contains() {
        long probe = probes[next++ & (probes.length - 1)];
        return AdjacencyArray.contains(ids, probe);
    }

    /** A linear scan of the same row: the baseline a binary search has to beat. */
    @Benchmark
    public boolean linearScanBaseline() {
        long probe = probes[next++ & (probes.length - 1)];
        for (long id : ids) {
            if (id == probe) {
                return true;
            }
        }
        return false;
    }

    /** Builds a sorted row of {@code n} ids, for the other benchmarks. */
    static long[] sortedIds(SplittableRandom random, int n) {
        return LongStream.generate(() -> random.nextLong(1, 600_000_000L)).distinct().limit(n).sorted().toArray();
    }
}
