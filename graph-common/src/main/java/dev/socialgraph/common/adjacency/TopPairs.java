package dev.socialgraph.common.adjacency;

/**
 * The {@code k} largest pairs {@code (followedAt, id)} offered to it: a bounded binary min-heap whose
 * root is the smallest pair kept, so a new pair either beats the root and replaces it or is dropped.
 *
 * <p>Selecting a newest-first page of {@code k} from an unsorted row of {@code n} costs O(n log k) time
 * and O(k) memory instead of sorting all {@code n} pairs (the usual bounded-heap top-k selection,
 * e.g. Sedgewick and Wayne, <i>Algorithms</i>, 4th ed., 2.4, "TopM"). One instance per call; not
 * thread-safe.
 */
final class TopPairs {

    private final long[] ids;
    private final long[] followedAt;
    private int size;

    TopPairs(int capacity) {
        ids = new long[capacity];
        followedAt = new long[capacity];
    }

    /** Keeps {@code (t, id)} if fewer than {@code capacity} pairs are kept or it is larger than the smallest kept. */
    void offer(long t, long id) {
        int capacity = ids.length;
        if (size < capacity) {
            ids[size] = id;
            followedAt[size] = t;
            siftUp(size++);
        } else if (capacity > 0 && Pairs.compare(t, id, followedAt[0], ids[0]) > 0) {
            ids[0] = id;
            followedAt[0] = t;
            siftDown(0);
        }
    }

    int size() {
        return size;
    }

    /**
     * Empties the heap into {@code outIds[0, size)} and {@code outFollowedAt[0, size)} (either may be
     * {@code null} to skip it) in descending pair order, i.e. newest first.
     */
    void drainDescending(long[] outIds, long[] outFollowedAt) {
        // Popping the minimum repeatedly yields ascending order; write it from the back.
        while (size > 0) {
            int last = size - 1;
            if (outIds != null) {
                outIds[last] = ids[0];
            }
            if (outFollowedAt != null) {
                outFollowedAt[last] = followedAt[0];
            }
            Pairs.swap(ids, followedAt, 0, last);
            size = last;
            siftDown(0);
        }
    }

    private void siftUp(int k) {
        while (k > 0) {
            int parent = (k - 1) >>> 1;
            if (Pairs.compare(followedAt[k], ids[k], followedAt[parent], ids[parent]) >= 0) {
                return;
            }
            Pairs.swap(ids, followedAt, k, parent);
            k = parent;
        }
    }

    private void siftDown(int k) {
        while (true) {
            int child = 2 * k + 1;
            if (child >= size) {
                return;
            }
            if (child + 1 < size
                    && Pairs.compare(followedAt[child + 1], ids[child + 1], followedAt[child], ids[child]) < 0) {
                child++;
            }
            if (Pairs.compare(followedAt[child], ids[child], followedAt[k], ids[k]) >= 0) {
                return;
            }
            Pairs.swap(ids, followedAt, k, child);
            k = child;
        }
    }
}
