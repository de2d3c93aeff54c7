package dev.socialgraph.tools.edges;

/**
 * Stable LSD radix sort of parallel {@code long[]} arrays by (primary, secondary), carrying a payload array.
 * Keys must be non-negative (user ids are positive; epoch-ms times are non-negative), so unsigned digit order
 * equals numeric order. 16-bit digits: 4 passes per key, 8 in all, O(8n) with two scratch arrays per column.
 * Source: the textbook LSD radix sort (Knuth, TAOCP vol. 3, 5.2.5); passes whose digit is constant are
 * skipped, so small ids (ego-Twitter's fit in 30 bits) cost about half the passes.
 */
final class RadixSort {

    private static final int BITS = 16;
    private static final int BUCKETS = 1 << BITS;
    private static final int MASK = BUCKETS - 1;

    private RadixSort() {
    }

    /**
     * Sorts {@code [0, n)} of the three arrays by {@code (primary, secondary)}, ascending.
     *
     * @throws IllegalArgumentException when a key is negative
     */
    static void sort(long[] primary, long[] secondary, long[] payload, int n) {
        for (int i = 0; i < n; i++) {
            if (primary[i] < 0 || secondary[i] < 0) {
                throw new IllegalArgumentException("radix sort keys must be non-negative at index " + i);
            }
        }
        long[] p2 = new long[n];
        long[] s2 = new long[n];
        long[] x2 = new long[n];
        long[][] cols = {primary, secondary, payload};
        long[][] tmp = {p2, s2, x2};
        int[] count = new int[BUCKETS + 1];
        // Least significant key first: secondary (column 1), then primary (column 0).
        for (int key : new int[] {1, 0}) {
            for (int shift = 0; shift < 64; shift += BITS) {
                java.util.Arrays.fill(count, 0);
                long[] k = cols[key];
                for (int i = 0; i < n; i++) {
                    count[(int) ((k[i] >>> shift) & MASK) + 1]++;
                }
                if (count[(int) ((n == 0 ? 0 : (k[0] >>> shift) & MASK)) + 1] == n) {
                    continue; // every key has the same digit here: the pass would not move anything
                }
                for (int b = 0; b < BUCKETS; b++) {
                    count[b + 1] += count[b];
                }
                for (int i = 0; i < n; i++) {
                    int dst = count[(int) ((k[i] >>> shift) & MASK)]++;
                    tmp[0][dst] = cols[0][i];
                    tmp[1][dst] = cols[1][i];
                    tmp[2][dst] = cols[2][i];
                }
                for (int c = 0; c < 3; c++) {
                    long[] t = cols[c];
                    cols[c] = tmp[c];
                    tmp[c] = t;
                }
            }
        }
        // After an odd number of swaps the sorted data sits in the scratch arrays: copy it back.
        if (cols[0] != primary) {
            System.arraycopy(cols[0], 0, primary, 0, n);
            System.arraycopy(cols[1], 0, secondary, 0, n);
            System.arraycopy(cols[2], 0, payload, 0, n);
        }
    }
}
