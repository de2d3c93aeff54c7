package dev.socialgraph.check.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.socialgraph.common.adjacency.Page;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The in-process cache of the follower side (docs/decisions/0059-lists-and-counts-from-memory.md): for each cached
 * followee, the newest window of its followers (the first {@code windowSize} of the list, newest first, with follow
 * times) and its follower count as readers see it (the row's count less the inactive users taken out of it). A hit
 * answers the followers list's first pages and the follower count with no shard read. A window that a walk of the list
 * (page after page with the cursor) has come to the end of is read again deeper, {@code deepWindowSize} followers, so
 * the walk's next pages come from memory too: a celebrity's followers screen, paged by many viewers, costs one deeper
 * read per window rather than a shard read per page. Deepening happens only from a window this cache holds, once per
 * window (once for each walker that reaches its end at the same moment, as concurrent fills race): a walk past the
 * deep window, or one that outlived its window, reads the shard page by page as before.
 *
 * <h2>Staying correct</h2>
 * The follower side is written by the cdc-consumer, after the follow events this instance also reads; so an event
 * cannot invalidate an entry when it arrives (a refill then could read the row before the cdc-consumer applied the
 * event, and keep it). Instead:
 * <ul>
 *   <li>{@link #changed}: an event of followee {@code B} at {@code (partition, offset)} of {@code follow-events} marks
 *       {@code B} pending until that offset is applied, and refuses fills of {@code B} in flight ({@link FillTickets},
 *       as {@link LocalFollowingCache}). While pending, {@code B}'s entries are still served for at most
 *       {@code staleBound} after the event (the shard itself shows the change only once the cdc-consumer applied it)
 *       and no fill of {@code B} is cached.</li>
 *   <li>{@link #applied}: the cdc-consumer's group has committed an offset of a partition, which it does only after
 *       the follower-side transactions of every record before it committed. Each followee pending on that partition
 *       below the offset is no longer pending: its entries are dropped, and the next read refills them from the shard,
 *       which now holds every event seen for it.</li>
 *   <li>{@link #recounted}: an account job moved a followee's count offsets (a user deactivated, reactivated or
 *       erased), which no follow event says; the job announces each batch on {@code follow-events} after it committed
 *       and before it records the batch done (a {@code recount}), so the count is dropped and fills in flight refused.
 *       (A caller counts a followee whose window is complete from the window and the inactive-users view instead.)</li>
 *   <li>A count lives at most {@code countMaxAge} and a window at most {@code windowMaxAge}, for what no event says:
 *       the reconciler's repair of a follower side that had drifted. Inactive users are taken out of a page when it is
 *       read, so nothing but a follow event is known to change a window.</li>
 * </ul>
 * So a served entry holds every follow event of its followee that the cdc-consumer applied before it was filled, and
 * misses at most those of the last {@code staleBound}. Events this instance has not read yet are the feed-lag guard's:
 * the caller does not use this cache while the feed is stale. A lost watermark (the broker hung) leaves followees
 * pending: they are read from the shard after {@code staleBound}, and with more than {@value #MAX_PENDING} pending the
 * whole cache is dropped.
 *
 * <h2>Size</h2>
 * Windows are bounded by a byte budget ({@value #BYTES_PER_FOLLOWER} bytes per follower held plus
 * {@value #WINDOW_OVERHEAD_BYTES} per window); counts by a number of entries, {@value #COUNT_ENTRY_BYTES} bytes each.
 * Eviction is Caffeine's W-TinyLFU, so the hot followees stay.
 *
 * <p>Ids are positive 64-bit user ids, times epoch milliseconds. Thread-safe; arrays handed out are never modified.
 */
public final class FollowerSideCache {

    /** Bytes per follower held in a window: its id and its follow time. */
    public static final int BYTES_PER_FOLLOWER = 2 * Long.BYTES;
    /** Bytes per window besides its followers: Caffeine node (~56), key (16), record (32), two array headers (32). */
    public static final int WINDOW_OVERHEAD_BYTES = 136;
    /** Bytes per cached count: Caffeine node (~56), key (16), value (16). */
    public static final int COUNT_ENTRY_BYTES = 88;
    /** The most followees pending at once before the cache gives up on the watermark and drops everything. */
    static final int MAX_PENDING = 100_000;
    /** A ticket that no fill can redeem: the followee is pending. */
    public static final long NO_FILL = Long.MIN_VALUE;

    /**
     * The newest followers of a followee.
     *
     * @param ids        follower ids, newest first ({@code (followedAt, id)} descending)
     * @param followedAt epoch ms aligned with {@code ids}
     * @param complete   whether these are all its followers (no page continues after the window)
     */
    public record Window(long[] ids, long[] followedAt, boolean complete) {

        /**
         * The window a first page of {@code windowSize} makes.
         *
         * @param firstPage the list's first page, of at most the window's size
         * @return the window; complete when the page said nothing follows it
         */
        public static Window of(Page firstPage) {
            return new Window(firstPage.ids(), firstPage.followedAt(), !firstPage.hasMore());
        }

        /**
         * The page of the list that continues strictly after {@code (cursorFollowedAt, cursorId)}, if this window
         * holds it whole.
         *
         * @param cursorFollowedAt position to continue after (ignored when {@code cursorId == Page.START})
         * @param cursorId         position to continue after, or {@link Page#START}
         * @param limit            page size, {@code >= 1}
         * @return the page, or {@code null} when the window ends before the page would
         */
        public Page page(long cursorFollowedAt, long cursorId, int limit) {
            int from = cursorId == Page.START ? 0 : after(cursorFollowedAt, cursorId);
            int available = ids.length - from;
            if (available < limit && !complete) {
                return null;
            }
            int n = Math.min(limit, available);
            long[] pageIds = new long[n];
            long[] pageTimes = new long[n];
            System.arraycopy(ids, from, pageIds, 0, n);
            System.arraycopy(followedAt, from, pageTimes, 0, n);
            return new Page(pageIds, pageTimes, available > limit || !complete);
        }

        /**
         * Whether a walk of the list that has come to {@code (cursorFollowedAt, cursorId)} has reached the end of this
         * window: the window is incomplete, holds fewer than {@code deepSize} followers, and the position is not past
         * its oldest follower (a page continuing from there runs out of the window). A window deepened to
         * {@code deepSize} then holds the next pages of the walk.
         *
         * @param cursorFollowedAt position the walk continues after
         * @param cursorId         position the walk continues after, not {@link Page#START}
         * @param deepSize         followers a deepened window holds, {@code >= 1}
         * @return whether deepening to {@code deepSize} would hold the walk's next page
         */
        public boolean walkReachesEnd(long cursorFollowedAt, long cursorId, int deepSize) {
            int last = ids.length - 1;
            return !complete && ids.length < deepSize && last >= 0
                    && !Page.isNewer(followedAt[last], ids[last], cursorFollowedAt, cursorId);
        }

        /** Index of the first follower strictly after the position: binary search, the window is newest first. */
        private int after(long cursorFollowedAt, long cursorId) {
            int low = 0;
            int high = ids.length;
            while (low < high) {
                int mid = (low + high) >>> 1;
                if (Page.isNewer(cursorFollowedAt, cursorId, followedAt[mid], ids[mid])) {
                    high = mid;
                } else {
                    low = mid + 1;
                }
            }
            return low;
        }
    }

    /** Where the newest event of a pending followee is, and when it was read. */
    private record Pending(int partition, long offset, long seenNanos) {
    }

    private final Cache<Long, Window> windows;
    private final Cache<Long, Long> counts;
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final FillTickets tickets = new FillTickets();
    private final int windowSize;
    private final int deepWindowSize;
    private final long staleBoundNanos;
    private final Ticker ticker;
    private final LongAdder refused = new LongAdder();
    private final LongAdder invalidated = new LongAdder();
    private final LongAdder recounted = new LongAdder();
    private final LongAdder deepened = new LongAdder();

    /**
     * @param windowBytes the most bytes of windows to hold, as weighed above; {@code > 0}
     * @param countEntries the most counts to hold; {@code > 0}
     * @param windowSize  followers per window, the largest first page served from memory; {@code >= 1}
     * @param deepWindowSize followers a window holds once a walk of the list reached its end
     *                    ({@link Window#walkReachesEnd}); {@code >= windowSize}
     * @param staleBound  how long after a followee's event its old entries may still be served
     * @param windowMaxAge how long a window lives at most
     * @param countMaxAge  how long a count lives at most
     * @param ticker      the clock ({@link Ticker#systemTicker()}; a fake one in tests)
     * @throws IllegalArgumentException on a bound out of range
     */
    public FollowerSideCache(long windowBytes, long countEntries, int windowSize, int deepWindowSize,
                             Duration staleBound, Duration windowMaxAge, Duration countMaxAge, Ticker ticker) {
        if (windowBytes <= 0 || countEntries <= 0 || windowSize < 1) {
            throw new IllegalArgumentException("window bytes, count entries and window size must be positive, were "
                    + windowBytes + ", " + countEntries + ", " + windowSize);
        }
        if (deepWindowSize < windowSize) {
            throw new IllegalArgumentException("the deep window size must be at least the window size, was "
                    + deepWindowSize + " < " + windowSize);
        }
        this.windowSize = windowSize;
        this.deepWindowSize = deepWindowSize;
        this.staleBoundNanos = staleBound.toNanos();
        this.ticker = ticker;
        this.windows = Caffeine.newBuilder()
                .maximumWeight(windowBytes)
                .weigher((Long id, Window w) -> WINDOW_OVERHEAD_BYTES + BYTES_PER_FOLLOWER * w.ids().length)
                .expireAfterWrite(windowMaxAge)
                .ticker(ticker)
                .executor(Runnable::run)
                .build();
        this.counts = Caffeine.newBuilder()
                .maximumSize(countEntries)
                .expireAfterWrite(countMaxAge)
                .ticker(ticker)
                .executor(Runnable::run)
                .build();
    }

    /**
     * Followers per window: the largest page a first page is served from memory for, and the size a fill reads.
     *
     * @return {@code >= 1}
     */
    public int windowSize() {
        return windowSize;
    }

    /**
     * Followers a window holds once a walk of the list reached its end: the size a deepening fill reads.
     *
     * @return {@code >= windowSize()}
     */
    public int deepWindowSize() {
        return deepWindowSize;
    }

    /**
     * The cached window of {@code followeeId}, if it may be served.
     *
     * @param followeeId positive user id
     * @return the window, or {@code null} (not cached, or pending for longer than the stale bound)
     */
    public Window window(long followeeId) {
        Window w = windows.getIfPresent(followeeId);
        return w != null && servable(followeeId) ? w : null;
    }

    /**
     * The cached follower count of {@code followeeId}, if it may be served.
     *
     * @param followeeId positive user id
     * @return the count, {@code >= 0}; {@code -1} when not cached or pending for longer than the stale bound
     */
    public long count(long followeeId) {
        Long c = counts.getIfPresent(followeeId);
        return c != null && servable(followeeId) ? c : -1;
    }

    private boolean servable(long followeeId) {
        Pending p = pending.get(followeeId);
        return p == null || ticker.read() - p.seenNanos() <= staleBoundNanos;
    }

    /**
     * Takes a fill ticket: call before reading the rows that {@link #putWindow} or {@link #putCount} will cache.
     *
     * @param followeeId positive user id
     * @return the ticket; {@link #NO_FILL} while the followee is pending (what the shard shows may be missing an event)
     */
    public long ticket(long followeeId) {
        long ticket = tickets.ticket(followeeId);
        return pending.containsKey(followeeId) ? NO_FILL : ticket;
    }

    /**
     * Caches a window read after {@link #ticket} returned {@code ticket}, unless an event of a followee of the same
     * stripe came since.
     *
     * @param followeeId positive user id
     * @param window     the first page of {@link #windowSize} (or {@link #deepWindowSize}) as read, as a window
     * @param ticket     from {@link #ticket}
     * @return whether it is cached now
     */
    public boolean putWindow(long followeeId, Window window, long ticket) {
        boolean cached = put(followeeId, ticket, () -> windows.put(followeeId, window));
        if (cached && window.ids().length > windowSize) {
            deepened.increment();
        }
        return cached;
    }

    /**
     * Caches a follower count read after {@link #ticket} returned {@code ticket}, as {@link #putWindow}.
     *
     * @param followeeId positive user id
     * @param count      the count as read, {@code >= 0}
     * @param ticket     from {@link #ticket}
     * @return whether it is cached now
     */
    public boolean putCount(long followeeId, long count, long ticket) {
        return put(followeeId, ticket, () -> counts.put(followeeId, count));
    }

    private boolean put(long followeeId, long ticket, Runnable put) {
        if (ticket == NO_FILL || !tickets.valid(followeeId, ticket)) {
            refused.increment();
            return false;
        }
        put.run();
        // An event that bumped the stripe while the entry went in: take it out again rather than keep it stale.
        if (!tickets.valid(followeeId, ticket)) {
            windows.invalidate(followeeId);
            counts.invalidate(followeeId);
            refused.increment();
            return false;
        }
        return true;
    }

    /**
     * A follow or unfollow of {@code followeeId} was read from {@code follow-events} at {@code (partition, offset)}.
     *
     * @param followeeId positive user id
     * @param partition  the record's partition
     * @param offset     the record's offset
     */
    public void changed(long followeeId, int partition, long offset) {
        tickets.bump(followeeId);
        long now = ticker.read();
        pending.merge(followeeId, new Pending(partition, offset, now),
                (old, neu) -> new Pending(neu.partition(), Math.max(old.offset(), neu.offset()), old.seenNanos()));
        if (pending.size() > MAX_PENDING) {
            clear(); // the watermark is not coming: start over rather than grow
        }
    }

    /**
     * An account job moved {@code followeeId}'s follower count without an edge event (a {@code recount} record of
     * {@code follow-events}, published after the move committed): its cached count is dropped, and a count fill in
     * flight, which may have read the count before the move, is refused. Its window stays: a window leaves inactive
     * users out when it is read, so the job changes nothing a window shows.
     *
     * @param followeeId positive user id
     */
    public void recounted(long followeeId) {
        tickets.bump(followeeId);
        if (counts.asMap().remove(followeeId) != null) {
            recounted.increment();
        }
    }

    /**
     * The cdc-consumer's group has committed {@code committedOffset} on {@code partition}: every followee pending there
     * below it is applied on the follower side, so its entries are dropped for a refill.
     *
     * @param partition       a partition of {@code follow-events}
     * @param committedOffset the group's committed offset there: the next record it will apply
     */
    public void applied(int partition, long committedOffset) {
        for (Iterator<Map.Entry<Long, Pending>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Pending> e = it.next();
            Pending p = e.getValue();
            if (p.partition() == partition && p.offset() < committedOffset) {
                long followeeId = e.getKey();
                tickets.bump(followeeId);
                windows.invalidate(followeeId);
                counts.invalidate(followeeId);
                invalidated.increment();
                // Only this mark: a newer event may have replaced it since the iterator read it.
                pending.remove(followeeId, p);
            }
        }
    }

    /** Drops every entry and every pending mark (the event feed was lost, or too many marks). */
    public void clear() {
        tickets.bumpAll();
        windows.invalidateAll();
        counts.invalidateAll();
        pending.clear();
    }

    /**
     * Number of cached windows.
     *
     * @return entries, {@code >= 0}
     */
    public long windows() {
        return windows.estimatedSize();
    }

    /**
     * Number of cached counts.
     *
     * @return entries, {@code >= 0}
     */
    public long counts() {
        return counts.estimatedSize();
    }

    /**
     * Total weight of the cached windows.
     *
     * @return bytes as weighed
     */
    public long windowBytes() {
        return windows.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    /**
     * Followees pending now: an event read, not yet applied on the follower side.
     *
     * @return {@code >= 0}
     */
    public int pending() {
        return pending.size();
    }

    /**
     * Fills refused because the followee was pending or an event came during the read.
     *
     * @return count since start
     */
    public long refusedFills() {
        return refused.sum();
    }

    /**
     * Windows cached deeper than {@link #windowSize}: read again {@link #deepWindowSize} deep after a walk of the list
     * reached their end.
     *
     * @return count since start
     */
    public long deepened() {
        return deepened.sum();
    }

    /**
     * Counts dropped because an account job announced they moved ({@link #recounted}).
     *
     * @return count since start
     */
    public long recountedCounts() {
        return recounted.sum();
    }

    /**
     * Followees whose entries were dropped because the cdc-consumer applied their events.
     *
     * @return count since start
     */
    public long invalidated() {
        return invalidated.sum();
    }
}
