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
 * Common following: {@link AdjacencyArray#intersect} of two following rows, sizes {@code small x large}, about
 * a quarter of the smaller row shared. {@code 10x10000} exercises galloping (ratio above 32), the others the
 * merge. The baseline is a per-element binary search of the small row in the large one.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class IntersectBenchmark {

    @Param({"1000x1000", "10000x10000", "10x10000", "100x10000"})
    String sizes;

    private long[] small;
    private long[] large;

    @Setup
    public void setUp() {
        String[] parts = sizes.split("x");
        int s = Integer.parseInt(parts[0]);
        int l = Integer.parseInt(parts[1]);
        SplittableRandom random = new SplittableRandom(7);
        large = AdjacencyBenchmark.sortedIds(random, l);
        long[] shared = random.ints(s / 4, 0, l).mapToLong(i -> large[i]).toArray();
        long[] own = AdjacencyBenchmark.sortedIds(random, s - shared.length);
        small = LongStream.concat(LongStream.of(shared), LongStream.of(own)).distinct().sorted().toArray();
    }

    @Benchmark
    public long[] intersect() {
        return AdjacencyArray.intersect(small, large, 1000);
    }

    @Benchmark
    public int binarySearchEachBaseline() {
        int found = 0;
        for (long id : small) {
            if (java.util.Arrays.binarySearch(large, id) >= 0 && ++found == 1000) {
                break;
            }
        }
        return found;
    }
}
