package dev.socialgraph.bench;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
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
 * The L0 probe of a follow check: Guava {@link BloomFilter} over (follower, followee) edges at fpp 0.001
 * (DESIGN.md 5), sized for ego-Twitter's 1.77M edges by default. Probes are half existing edges, half random
 * pairs. The filter's memory is printed at set-up (~14.4 bits per edge, DESIGN.md 9).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BloomBenchmark {

    /** An edge as the filter sees it: both ids, 16 bytes. */
    static final Funnel<long[]> EDGE = (edge, sink) -> sink.putLong(edge[0]).putLong(edge[1]);

    @Param({"1768149"})
    int edges;

    private BloomFilter<long[]> filter;
    private long[][] probes;

    @State(Scope.Thread)
    public static class Cursor {
        int next;
    }

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(1);
        filter = BloomFilter.create(EDGE, edges, 0.001);
        probes = new long[8192][];
        for (int i = 0; i < edges; i++) {
            long[] edge = {random.nextLong(1, 600_000_000L), random.nextLong(1, 600_000_000L)};
            filter.put(edge);
            if (i < probes.length / 2) {
                probes[2 * i] = edge;
            }
        }
        for (int i = 1; i < probes.length; i += 2) {
            probes[i] = new long[] {random.nextLong(1, 600_000_000L), random.nextLong(1, 600_000_000L)};
        }
        System.out.printf("bloom: %d edges, %.1f MiB (optimal size at fpp 0.001), expected fpp now %.5f%n", edges,
                bitsFor(edges, 0.001) / 8.0 / 1024 / 1024, filter.expectedFpp());
    }

    /** Optimal bloom filter size in bits for n elements at false-positive rate p: -n ln p / (ln 2)^2. */
    private static double bitsFor(long n, double p) {
        return -n * Math.log(p) / (Math.log(2) * Math.log(2));
    }

    @Benchmark
    public boolean mightContain(Cursor cursor) {
        return filter.mightContain(probes[cursor.next++ & (probes.length - 1)]);
    }
}
