package dev.socialgraph.common.adjacency;

/**
 * A following row sorted once by time, for paging it newest-first many times: the form to keep in a
 * cache for hot users (DESIGN.md 2.2: "a sort of at most 10,000 pairs, cacheable").
 *
 * <p>It holds a copy of the row's pairs in the follower-row layout of {@link TimeOrderedAdjacency}
 * ({@code (followedAt, id)} strictly ascending), so pages are served by the same binary search and
 * backwards walk: O(log n + k) per page instead of O(n log k) for {@link AdjacencyArray#newestFirst}.
 * Pages and {@link #mostRecent} are identical to what {@link AdjacencyArray} returns for the same row.
 *
 * <p>Immutable and thread-safe. It does not know the row's version: the cache that holds it keys or
 * stamps it with the version it was built from.
 */
public final class TimeOrder {

    /** Array header plus alignment, per array, for {@link #estimatedBytes()}. */
    private static final long ARRAY_OVERHEAD_BYTES = 16;

    private final long[] ids;
    private final long[] followedAt;

    private TimeOrder(long[] ids, long[] followedAt) {
        this.ids = ids;
        this.followedAt = followedAt;
    }

    /**
     * Sorts a copy of a following row by {@code (followedAt, id)}. Heapsort, O(n log n) time, 16 bytes
     * per entry; about a millisecond for the 10,000-entry maximum.
     *
     * @param ids        unique ids (sorted ascending for a following row, though any order works)
     * @param followedAt aligned with {@code ids}, epoch ms
     * @return the time-ordered copy; the arguments are not modified or retained
     * @throws IllegalArgumentException if the arrays differ in length
     */
    public static TimeOrder of(long[] ids, long[] followedAt) {
        AdjacencyArray.requireAligned(ids, followedAt);
        long[] sortedIds = ids.clone();
        long[] sortedTimes = followedAt.clone();
        Pairs.sort(sortedIds, sortedTimes, sortedIds.length);
        return new TimeOrder(sortedIds, sortedTimes);
    }

    /**
     * One newest-first page after the cursor position; same contract as
     * {@link AdjacencyArray#newestFirst(long[], long[], long, long, int)}. O(log n + limit).
     *
     * @param cursorFollowedAt the last returned item's follow time, epoch ms; ignored for the first page
     * @param cursorId         the last returned item's id, or {@link Page#START} for the first page
     * @param limit            page size, {@code >= 0}
     * @return the page; {@code hasMore} says whether entries remain after its last item
     * @throws IllegalArgumentException if {@code limit < 0} or {@code cursorId < 0}
     */
    public Page page(long cursorFollowedAt, long cursorId, int limit) {
        return TimeOrderedAdjacency.newestFirst(ids, followedAt, cursorFollowedAt, cursorId, limit);
    }

    /**
     * The first newest-first page.
     *
     * @param limit page size, {@code >= 0}
     * @return the newest {@code limit} entries; {@code hasMore} says whether others remain
     * @throws IllegalArgumentException if {@code limit < 0}
     */
    public Page page(int limit) {
        return page(0L, Page.START, limit);
    }

    /**
     * The ids of the {@code k} most recent follows, newest first, ties by id descending; same as
     * {@link AdjacencyArray#mostRecent}. O(k).
     *
     * @param k how many, {@code >= 0}
     * @return a new array of {@code min(k, size())} ids
     * @throws IllegalArgumentException if {@code k < 0}
     */
    public long[] mostRecent(int k) {
        if (k < 0) {
            throw new IllegalArgumentException("k must be >= 0, was " + k);
        }
        int size = Math.min(k, ids.length);
        long[] out = new long[size];
        for (int i = 0; i < size; i++) {
            out[i] = ids[ids.length - 1 - i];
        }
        return out;
    }

    /**
     * The number of entries, as in the row it was built from.
     *
     * @return the number of entries
     */
    public int size() {
        return ids.length;
    }

    /**
     * Approximate heap footprint of the two arrays, in bytes, for a cache's memory budget (a Caffeine
     * weigher): 16 bytes per entry plus array headers. The object itself adds a few dozen bytes.
     *
     * @return {@code 16 * size() + 32}
     */
    public long estimatedBytes() {
        return 2 * (ARRAY_OVERHEAD_BYTES + 8L * ids.length);
    }

    @Override
    public String toString() {
        return "TimeOrder[size=" + ids.length + ", oldest=" + Page.head(ids, followedAt) + "]";
    }
}
