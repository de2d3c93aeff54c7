package dev.socialgraph.common.adjacency;

import java.util.Arrays;

/**
 * Operations on a <b>following row</b>: whom one user follows (DESIGN.md 2.2,
 * {@code following_adjacency}).
 *
 * <p><b>Layout.</b> {@code long[] ids}: followee ids, positive, unique, sorted ascending.
 * {@code long[] followedAt}: the epoch-millisecond time each follow was created, aligned with
 * {@code ids} (so in no particular order). Both arrays are exactly sized, as they come from PostgreSQL
 * {@code BIGINT[]}; a row holds at most 10,000 entries (the following cap, enforced by the write
 * service and the table's CHECK, not here).
 *
 * <p><b>Contract.</b> No method modifies its input arrays; a changed row is a new pair of arrays. Inputs
 * are trusted to be well formed (checking would cost O(n) on every O(log n) lookup); validate rows
 * read from storage once with {@link #requireWellFormed}. Results on malformed rows are unspecified
 * but never an exception other than the documented ones. A {@code null} array throws
 * {@link NullPointerException}. All methods are static, allocation-light and thread-safe.
 *
 * <p>Newest-first order is {@code (followedAt desc, id desc)}. Per request it is a top-k selection in
 * O(n log k); a user whose list is read often should be converted once with {@link TimeOrder#of} and
 * that kept in a cache, after which each page costs O(log n + k).
 */
public final class AdjacencyArray {

    /**
     * Galloping pays off once one list is this many times longer than the other: the merge then spends
     * most of its comparisons skipping. 32 is the usual crossover for 64-bit keys (between the 1:32 and
     * 1:64 measured by Lemire, Boytsov and Kurz, "SIMD compression and the intersection of sorted
     * integers", Software: Practice and Experience 46(6), 2016); tune with a benchmark, not by taste.
     */
    static final int GALLOP_RATIO = 32;

    private AdjacencyArray() {
    }

    /**
     * Whether {@code id} is in the row: {@code isFollowing(owner, id)}. Binary search, O(log n), no
     * allocation; this is the L0-miss hot path of a follow check.
     *
     * @param ids sorted ascending
     * @param id  any value; non-positive values are simply absent
     * @return whether {@code ids} contains {@code id}
     */
    public static boolean contains(long[] ids, long id) {
        return Arrays.binarySearch(ids, id) >= 0;
    }

    /**
     * Adds a follow of {@code id} at {@code followedAtMillis}. Idempotent: if {@code id} is already in
     * the row nothing changes (the original follow time is kept, as a repeated follow is not a new one).
     * O(log n) to find the slot plus O(n) to copy.
     *
     * @param ids              sorted ascending
     * @param followedAt       aligned with {@code ids}
     * @param id               the followee, positive
     * @param followedAtMillis the follow time, epoch ms
     * @return the new row with {@code changed == true}, or the same arrays with {@code changed == false}
     * @throws IllegalArgumentException if {@code id <= 0} or the arrays differ in length
     */
    public static Adjacency insert(long[] ids, long[] followedAt, long id, long followedAtMillis) {
        requireAligned(ids, followedAt);
        requirePositiveId(id);
        int found = Arrays.binarySearch(ids, id);
        if (found >= 0) {
            return Adjacency.unchanged(ids, followedAt);
        }
        int at = -found - 1;
        int n = ids.length;
        long[] newIds = new long[n + 1];
        long[] newTimes = new long[n + 1];
        System.arraycopy(ids, 0, newIds, 0, at);
        System.arraycopy(followedAt, 0, newTimes, 0, at);
        newIds[at] = id;
        newTimes[at] = followedAtMillis;
        System.arraycopy(ids, at, newIds, at + 1, n - at);
        System.arraycopy(followedAt, at, newTimes, at + 1, n - at);
        return Adjacency.changed(newIds, newTimes);
    }

    /**
     * Removes the follow of {@code id}. Idempotent: if {@code id} is not in the row nothing changes.
     * O(log n) to find plus O(n) to copy.
     *
     * @param ids        sorted ascending
     * @param followedAt aligned with {@code ids}
     * @param id         the followee; non-positive values are simply absent
     * @return the new row with {@code changed == true} and {@code removedFollowedAt} the removed follow's
     *         time (the unfollow event carries it), or the same arrays with {@code changed == false} and
     *         {@code removedFollowedAt == }{@link Adjacency#NO_TIME}
     * @throws IllegalArgumentException if the arrays differ in length
     */
    public static Adjacency remove(long[] ids, long[] followedAt, long id) {
        requireAligned(ids, followedAt);
        int at = Arrays.binarySearch(ids, id);
        if (at < 0) {
            return Adjacency.unchanged(ids, followedAt);
        }
        return new Adjacency(without(ids, at), without(followedAt, at), true, followedAt[at]);
    }

    /**
     * Adds {@code id} to a sorted id set (the in-process following cache keeps ids only). Idempotent.
     * O(log n) to find the slot plus O(n) to copy.
     *
     * @param ids sorted ascending, unique
     * @param id  the followee, positive
     * @return a new array with {@code id} in place, or {@code ids} itself when it already holds {@code id}
     * @throws IllegalArgumentException if {@code id <= 0}
     */
    public static long[] insert(long[] ids, long id) {
        requirePositiveId(id);
        int found = Arrays.binarySearch(ids, id);
        if (found >= 0) {
            return ids;
        }
        int at = -found - 1;
        long[] out = new long[ids.length + 1];
        System.arraycopy(ids, 0, out, 0, at);
        out[at] = id;
        System.arraycopy(ids, at, out, at + 1, ids.length - at);
        return out;
    }

    /**
     * Removes {@code id} from a sorted id set. Idempotent. O(log n) to find plus O(n) to copy.
     *
     * @param ids sorted ascending, unique
     * @param id  the followee; non-positive values are simply absent
     * @return a new array without {@code id}, or {@code ids} itself when it does not hold {@code id}
     */
    public static long[] remove(long[] ids, long id) {
        int at = Arrays.binarySearch(ids, id);
        return at < 0 ? ids : without(ids, at);
    }

    /**
     * Ids in both {@code a} and {@code b} ("common following"), ascending, at most {@code limit}.
     * Equivalent to {@link #intersect(long[], long[], long, int)} with {@code afterId = Long.MIN_VALUE}.
     *
     * @param a     sorted ascending, unique
     * @param b     sorted ascending, unique
     * @param limit the most ids to return, {@code >= 0}
     * @return a new, exactly sized array of the smallest {@code min(limit, |a ∩ b|)} common ids
     * @throws IllegalArgumentException if {@code limit < 0}
     */
    public static long[] intersect(long[] a, long[] b, int limit) {
        return intersect(a, b, Long.MIN_VALUE, limit);
    }

    /**
     * Ids greater than {@code afterId} that are in both {@code a} and {@code b}, ascending, at most
     * {@code limit}: one page of common following, {@code afterId} being the last id of the previous
     * page. Ask for {@code limit + 1} to learn whether another page follows.
     *
     * <p>Two strategies, chosen on the remaining lengths {@code m <= n}:
     * <ul>
     *   <li>linear merge, O(m + n), when the lengths are within a factor of {@value #GALLOP_RATIO};</li>
     *   <li>galloping otherwise: each id of the shorter list is located in the longer one by exponential
     *       then binary search from the previous match (Bentley and Yao, "An almost optimal algorithm for
     *       unbounded searching", Information Processing Letters 5(3), 1976; applied to intersection by
     *       Demaine, López-Ortiz and Munro, "Adaptive set intersections, unions, and differences", SODA
     *       2000), O(m log(n / m)). A user following 20 accounts against one following 10,000 costs ~200
     *       comparisons instead of ~10,000.</li>
     * </ul>
     * Both stop as soon as {@code limit} ids are found.
     *
     * @param a       sorted ascending, unique
     * @param b       sorted ascending, unique
     * @param afterId exclusive lower bound; {@code Long.MIN_VALUE} for the first page
     * @param limit   the most ids to return, {@code >= 0}
     * @return a new, exactly sized array, ascending
     * @throws IllegalArgumentException if {@code limit < 0}
     */
    public static long[] intersect(long[] a, long[] b, long afterId, int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0, was " + limit);
        }
        int fromA = firstAbove(a, afterId);
        int fromB = firstAbove(b, afterId);
        int remainingA = a.length - fromA;
        int remainingB = b.length - fromB;
        int capacity = Math.min(limit, Math.min(remainingA, remainingB));
        if (capacity == 0) {
            return new long[0];
        }
        long[] out = new long[capacity];
        int found;
        if (remainingA <= remainingB) {
            found = (long) remainingA * GALLOP_RATIO < remainingB
                    ? gallop(a, fromA, b, fromB, out) : merge(a, fromA, b, fromB, out);
        } else {
            found = (long) remainingB * GALLOP_RATIO < remainingA
                    ? gallop(b, fromB, a, fromA, out) : merge(a, fromA, b, fromB, out);
        }
        return found == out.length ? out : Arrays.copyOf(out, found);
    }

    /**
     * One newest-first page of the row: the {@code limit} entries that come strictly after the cursor
     * position {@code (cursorFollowedAt, cursorId)} in the order {@code (followedAt desc, id desc)}.
     * The cursor entry need not still be in the row (it may have been unfollowed since): the page
     * continues from where it was.
     *
     * <p>Bounded-heap selection over the unsorted row, O(n log limit) time and O(limit) memory; no sort
     * of the whole row per request. For a user paged often, cache {@link TimeOrder#of} instead.
     *
     * @param ids              sorted ascending
     * @param followedAt       aligned with {@code ids}
     * @param cursorFollowedAt the last returned item's follow time, epoch ms; ignored for the first page
     * @param cursorId         the last returned item's id, or {@link Page#START} for the first page
     * @param limit            page size, {@code >= 0}
     * @return the page; {@code hasMore} says whether entries remain after its last item
     * @throws IllegalArgumentException if {@code limit < 0}, {@code cursorId < 0} or the arrays differ in length
     */
    public static Page newestFirst(long[] ids, long[] followedAt, long cursorFollowedAt, long cursorId,
            int limit) {
        requireAligned(ids, followedAt);
        requirePageArguments(cursorId, limit);
        boolean fromStart = cursorId == Page.START;
        TopPairs top = new TopPairs(Math.min(limit, ids.length));
        int after = 0;
        for (int i = 0; i < ids.length; i++) {
            if (fromStart || Pairs.compare(followedAt[i], ids[i], cursorFollowedAt, cursorId) < 0) {
                after++;
                top.offer(followedAt[i], ids[i]);
            }
        }
        int size = top.size();
        long[] pageIds = new long[size];
        long[] pageTimes = new long[size];
        top.drainDescending(pageIds, pageTimes);
        return new Page(pageIds, pageTimes, after > size);
    }

    /**
     * The first newest-first page: {@code newestFirst(ids, followedAt, 0, Page.START, limit)}.
     *
     * @param ids        sorted ascending
     * @param followedAt aligned with {@code ids}
     * @param limit      page size, {@code >= 0}
     * @return the newest {@code limit} entries; {@code hasMore} says whether others remain
     * @throws IllegalArgumentException if {@code limit < 0} or the arrays differ in length
     */
    public static Page newestFirst(long[] ids, long[] followedAt, int limit) {
        return newestFirst(ids, followedAt, 0L, Page.START, limit);
    }

    /**
     * The ids of the {@code k} most recent follows, newest first, ties by id descending; the fan-out of
     * suggestions (DESIGN.md 5: "≤ 500 most recent per node"). O(n log k), O(k) memory.
     *
     * @param ids        sorted ascending
     * @param followedAt aligned with {@code ids}
     * @param k          how many, {@code >= 0}; fewer are returned when the row is shorter
     * @return a new array of {@code min(k, n)} ids
     * @throws IllegalArgumentException if {@code k < 0} or the arrays differ in length
     */
    public static long[] mostRecent(long[] ids, long[] followedAt, int k) {
        requireAligned(ids, followedAt);
        if (k < 0) {
            throw new IllegalArgumentException("k must be >= 0, was " + k);
        }
        TopPairs top = new TopPairs(Math.min(k, ids.length));
        for (int i = 0; i < ids.length; i++) {
            top.offer(followedAt[i], ids[i]);
        }
        long[] out = new long[top.size()];
        top.drainDescending(out, null);
        return out;
    }

    /**
     * Checks the layout invariants of a row read from storage, in O(n): equal lengths, ids positive and
     * strictly ascending (hence unique). Times are not checked: any {@code long} is a valid epoch-ms value.
     *
     * @param ids        the row's ids
     * @param followedAt the row's follow times
     * @throws IllegalArgumentException naming the first offending index
     */
    public static void requireWellFormed(long[] ids, long[] followedAt) {
        requireAligned(ids, followedAt);
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] <= 0) {
                throw new IllegalArgumentException("ids[" + i + "] = " + ids[i] + " is not a positive user id");
            }
            if (i > 0 && ids[i - 1] >= ids[i]) {
                throw new IllegalArgumentException("ids not strictly ascending at index " + i + ": "
                        + ids[i - 1] + " then " + ids[i]);
            }
        }
    }

    static void requireAligned(long[] ids, long[] followedAt) {
        if (ids.length != followedAt.length) {
            throw new IllegalArgumentException(
                    "ids and followedAt differ in length: " + ids.length + " != " + followedAt.length);
        }
    }

    static void requirePositiveId(long id) {
        if (id <= 0) {
            throw new IllegalArgumentException("id must be a positive user id, was " + id);
        }
    }

    static void requirePageArguments(long cursorId, int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0, was " + limit);
        }
        if (cursorId < 0) {
            throw new IllegalArgumentException("cursorId must be a user id or Page.START (0), was " + cursorId);
        }
    }

    private static long[] without(long[] array, int at) {
        long[] out = new long[array.length - 1];
        System.arraycopy(array, 0, out, 0, at);
        System.arraycopy(array, at + 1, out, at, array.length - at - 1);
        return out;
    }

    /** Index of the first element {@code > value}, by binary search. */
    private static int firstAbove(long[] sorted, long value) {
        if (value == Long.MIN_VALUE) {
            return 0;
        }
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] <= value) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Linear merge of {@code a[i..]} and {@code b[j..]} into {@code out} until either ends or out is full. */
    private static int merge(long[] a, int i, long[] b, int j, long[] out) {
        int found = 0;
        int limit = out.length;
        while (i < a.length && j < b.length) {
            long x = a[i];
            long y = b[j];
            if (x < y) {
                i++;
            } else if (x > y) {
                j++;
            } else {
                out[found++] = x;
                if (found == limit) {
                    break;
                }
                i++;
                j++;
            }
        }
        return found;
    }

    /**
     * For each id of {@code small[i..]}, gallops through {@code large[j..]}: never moves backwards, so the
     * total is O(m log(n / m)).
     */
    private static int gallop(long[] small, int i, long[] large, int j, long[] out) {
        int found = 0;
        int limit = out.length;
        for (; i < small.length && j < large.length; i++) {
            long x = small[i];
            j = lowerBound(large, j, x);
            if (j < large.length && large[j] == x) {
                out[found++] = x;
                if (found == limit) {
                    break;
                }
                j++;
            }
        }
        return found;
    }

    /**
     * Smallest index {@code k >= from} with {@code sorted[k] >= key}, or {@code sorted.length}: probe
     * {@code from + 1, from + 3, from + 7, …} (each step doubling) until an element {@code >= key} or the
     * end, then binary search the last gap. O(log d) for a distance d.
     */
    static int lowerBound(long[] sorted, int from, long key) {
        int n = sorted.length;
        if (from >= n || sorted[from] >= key) {
            return from;
        }
        // Invariant: sorted[lo] < key.
        int lo = from;
        int step = 1;
        while (step > 0 && step < n - lo && sorted[lo + step] < key) {
            lo += step;
            step <<= 1; // turns negative only past 2^30, which also ends the loop
        }
        int hi = step > 0 && step < n - lo ? lo + step : n; // sorted[hi] >= key, or hi == n
        lo++;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
