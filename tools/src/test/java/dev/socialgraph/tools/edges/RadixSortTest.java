package dev.socialgraph.tools.edges;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RadixSortTest {

    @Test
    void sort_ordersByPrimaryThenSecondaryAndCarriesThePayload() {
        SplittableRandom random = new SplittableRandom(3);
        for (int n : new int[] {0, 1, 2, 17, 5000}) {
            long[] p = new long[n];
            long[] s = new long[n];
            long[] x = new long[n];
            long[][] model = new long[n][];
            for (int i = 0; i < n; i++) {
                // Mix tiny ids (passes skipped) with ids near Long.MAX_VALUE (every pass used).
                p[i] = random.nextBoolean() ? random.nextLong(1, 20) : Long.MAX_VALUE - random.nextLong(0, 1000);
                s[i] = random.nextLong(0, Long.MAX_VALUE);
                x[i] = i;
                model[i] = new long[] {p[i], s[i], i};
            }
            Arrays.sort(model, Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
            RadixSort.sort(p, s, x, n);
            for (int i = 0; i < n; i++) {
                assertThat(new long[] {p[i], s[i], x[i]}).containsExactly(model[i]);
            }
        }
    }

    @Test
    void sort_isStableForEqualKeys() {
        long[] p = {5, 5, 1, 5};
        long[] s = {0, 0, 0, 0};
        long[] x = {10, 11, 12, 13};
        RadixSort.sort(p, s, x, 4);
        assertThat(x).containsExactly(12, 10, 11, 13);
    }

    @Test
    void sort_rejectsNegativeKeys() {
        assertThatThrownBy(() -> RadixSort.sort(new long[] {1, -1}, new long[2], new long[2], 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("index 1");
    }
}
