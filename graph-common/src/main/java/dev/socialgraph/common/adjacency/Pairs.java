package dev.socialgraph.common.adjacency;

/**
 * Order, search and sort over pairs {@code (followedAt, id)} held in two aligned {@code long[]}
 * arrays: {@code (t1, id1) < (t2, id2)} iff {@code t1 < t2}, or {@code t1 == t2 && id1 < id2}.
 *
 * <p>This is the time order of the follower row and of newest-first pages. Two arrays are kept apart
 * instead of one array of objects so that a 1,000,000-entry row is two flat 8 MB arrays (what
 * PostgreSQL hands us as {@code BIGINT[]}) and nothing is boxed. Pairs cannot be packed into one
 * {@code long} because both halves use all 64 bits, hence the hand-written sort below.
 */
final class Pairs {

    private Pairs() {
    }

    /** Compares {@code (t1, id1)} with {@code (t2, id2)}; negative, zero or positive like {@link Long#compare}. */
    static int compare(long t1, long id1, long t2, long id2) {
        int byTime = Long.compare(t1, t2);
        return byTime != 0 ? byTime : Long.compare(id1, id2);
    }

    /**
     * Binary search for {@code (t, id)} in pairs sorted strictly ascending.
     *
     * @return the index of the pair, or {@code -(insertionPoint) - 1} like {@link java.util.Arrays#binarySearch(long[], long)}
     */
    static int search(long[] ids, long[] followedAt, long t, long id) {
        int lo = 0;
        int hi = ids.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = compare(followedAt[mid], ids[mid], t, id);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }

    /**
     * Sorts {@code ids[0, length)} and {@code followedAt[0, length)} together, ascending by
     * {@code (followedAt, id)}, in place.
     *
     * <p>Heapsort (Williams 1964, as in Sedgewick and Wayne, <i>Algorithms</i>, 4th ed., 2.4): O(n log n)
     * worst case, no extra memory, no boxing. Not stable, which does not matter because the pairs of a
     * row are distinct. Used once per cached {@link TimeOrder} (at most 10,000 pairs) and for the new
     * entries of a batch, so the constant factor is not critical.
     */
    static void sort(long[] ids, long[] followedAt, int length) {
        for (int k = length / 2 - 1; k >= 0; k--) {
            siftDown(ids, followedAt, k, length);
        }
        for (int end = length - 1; end > 0; end--) {
            swap(ids, followedAt, 0, end);
            siftDown(ids, followedAt, 0, end);
        }
    }

    /** Restores the max-heap property below {@code k} within {@code [0, size)}. */
    private static void siftDown(long[] ids, long[] followedAt, int k, int size) {
        while (true) {
            int child = 2 * k + 1;
            if (child >= size) {
                return;
            }
            if (child + 1 < size
                    && compare(followedAt[child + 1], ids[child + 1], followedAt[child], ids[child]) > 0) {
                child++;
            }
            if (compare(followedAt[child], ids[child], followedAt[k], ids[k]) <= 0) {
                return;
            }
            swap(ids, followedAt, k, child);
            k = child;
        }
    }

    static void swap(long[] ids, long[] followedAt, int i, int j) {
        long id = ids[i];
        ids[i] = ids[j];
        ids[j] = id;
        long t = followedAt[i];
        followedAt[i] = followedAt[j];
        followedAt[j] = t;
    }
}
