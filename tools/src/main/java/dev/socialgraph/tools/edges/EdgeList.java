package dev.socialgraph.tools.edges;

import java.util.Arrays;

/**
 * The directed edges of one relation held as parallel primitive arrays, in file order until sorted: edge {@code i}
 * is {@code followers[i] -> followees[i]}, created at {@code followedAt[i]} (epoch ms). For a block or a mute the
 * "follower" is the source (blocker, muter) and the "followee" the target, as in the shard tables. Mutable; not
 * thread-safe.
 *
 * <p>Memory: 24 bytes per edge (ego-Twitter's 1.77M edges take 42 MB).
 */
public final class EdgeList {

    private long[] followers;
    private long[] followees;
    private long[] followedAt;
    private int size;

    /** An empty list with room for {@code capacity} edges (grows as needed). */
    public EdgeList(int capacity) {
        int c = Math.max(16, capacity);
        followers = new long[c];
        followees = new long[c];
        followedAt = new long[c];
    }

    /** Appends an edge. */
    public void add(long follower, long followee, long followedAtMillis) {
        if (size == followers.length) {
            int c = (int) Math.min(Integer.MAX_VALUE - 8, size * 2L);
            if (c == size) {
                throw new IllegalStateException("edge list is full at " + size + " edges");
            }
            followers = Arrays.copyOf(followers, c);
            followees = Arrays.copyOf(followees, c);
            followedAt = Arrays.copyOf(followedAt, c);
        }
        followers[size] = follower;
        followees[size] = followee;
        followedAt[size] = followedAtMillis;
        size++;
    }

    /** Number of edges. */
    public int size() {
        return size;
    }

    /** Follower of edge {@code i}. */
    public long follower(int i) {
        return followers[i];
    }

    /** Followee of edge {@code i}. */
    public long followee(int i) {
        return followees[i];
    }

    /** Follow time of edge {@code i}, epoch ms. */
    public long followedAt(int i) {
        return followedAt[i];
    }

    /** Followers of edges {@code [from, to)}, a copy: after {@link #sortByFollowee()}, a followee's in arrival order. */
    public long[] followers(int from, int to) {
        return Arrays.copyOfRange(followers, from, to);
    }

    /** Follow times of edges {@code [from, to)}, epoch ms, a copy aligned with {@link #followers(int, int)}. */
    public long[] followedAt(int from, int to) {
        return Arrays.copyOfRange(followedAt, from, to);
    }

    /** Sorts by (follower, followee): each follower's run is its following row, ids ascending. */
    public void sortByFollower() {
        RadixSort.sort(followers, followees, followedAt, size);
    }

    /** Sorts by (followee, followedAt): each followee's run is its follower row in arrival order. */
    public void sortByFollowee() {
        RadixSort.sort(followees, followedAt, followers, size);
    }

    /** Tests one edge, for {@link #removeIf}. */
    @FunctionalInterface
    public interface EdgePredicate {
        /** Whether the edge {@code follower -> followee} matches. */
        boolean test(long follower, long followee);
    }

    /**
     * Whether the list holds the edge {@code follower -> followee}, by binary search: O(log n). Must be called
     * after {@link #sortByFollower()} (and no later {@link #sortByFollowee()}); otherwise the answer is undefined.
     */
    public boolean containsSorted(long follower, long followee) {
        int lo = 0;
        int hi = size - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = followers[mid] != follower ? Long.compare(followers[mid], follower)
                    : Long.compare(followees[mid], followee);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return true;
            }
        }
        return false;
    }

    /**
     * Removes every edge {@code drop} matches, keeping the order of the others.
     *
     * @return the number of edges removed
     */
    public int removeIf(EdgePredicate drop) {
        int out = 0;
        for (int i = 0; i < size; i++) {
            if (drop.test(followers[i], followees[i])) {
                continue;
            }
            followers[out] = followers[i];
            followees[out] = followees[i];
            followedAt[out] = followedAt[i];
            out++;
        }
        int removed = size - out;
        size = out;
        return removed;
    }

    /**
     * Removes self-loops and duplicate (follower, followee) pairs, keeping the first occurrence's time.
     * Must be called after {@link #sortByFollower()}.
     *
     * @return {selfLoopsRemoved, duplicatesRemoved}
     */
    public long[] removeSelfLoopsAndDuplicates() {
        int out = 0;
        long selfLoops = 0;
        long duplicates = 0;
        for (int i = 0; i < size; i++) {
            if (followers[i] == followees[i]) {
                selfLoops++;
                continue;
            }
            if (out > 0 && followers[out - 1] == followers[i] && followees[out - 1] == followees[i]) {
                duplicates++;
                continue;
            }
            followers[out] = followers[i];
            followees[out] = followees[i];
            followedAt[out] = followedAt[i];
            out++;
        }
        size = out;
        return new long[] {selfLoops, duplicates};
    }
}
