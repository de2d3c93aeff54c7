package dev.socialgraph.check.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.common.adjacency.Adjacency;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.store.following.FollowingRow;
import java.util.concurrent.atomic.LongAdder;

/**
 * The exact in-process following cache (DESIGN.md 5 step 3): the following row of each cached follower (its sorted
 * followee ids, their follow times, its version), kept exact by the {@code follow-events} stream. A hit answers a
 * check with a binary search and no network call, and a following list, a following count or common following with
 * no shard read; each is exactly as fresh as the events this instance has applied (the feed-lag guard decides whether
 * that is fresh enough).
 *
 * <h2>Staying exact</h2>
 * <ul>
 *   <li>{@link #apply}: an event of version {@code v} for a cached entry of version {@code v - 1} patches it (insert
 *       or remove one id with its follow time); {@code v} at or below the entry's version is a redelivery and is
 *       ignored; anything else is a gap (a missed event, or events of one follower arriving out of order from different
 *       partitions: the topic is keyed by followee) and drops the entry rather than guessing. An event for a
 *       follower that is not cached changes nothing.</li>
 *   <li>Fills race with events (the classic fill/invalidate race): a row read at version {@code v} may be put
 *       after the event of {@code v + 1} was applied to an absent entry, and would then stay stale. So a fill takes
 *       a {@link #ticket} before it reads the row, and {@link #put} refuses it when any event of a follower in the
 *       same stripe was applied since. The tickets are {@link FillTickets}': a collision of two followers' stripes
 *       only refuses a fill (the next miss fills again), never admits a stale one.</li>
 *   <li>Entry replacement and patching run under Caffeine's per-key compute, so a put and an event of the same
 *       follower are serialised.</li>
 * </ul>
 *
 * <h2>Size</h2>
 * Bounded by a byte budget with a weigher of {@value #BYTES_PER_EDGE} bytes per cached edge (two {@code long}s: the
 * id and its follow time) plus {@value #ENTRY_OVERHEAD_BYTES} bytes per entry (Caffeine's node, the boxed key, the
 * row record and the two array headers on a 64-bit JVM with compressed oops); eviction is Caffeine's W-TinyLFU, so
 * the hot followers stay.
 *
 * <p>Thread-safe. Arrays handed out are never modified (patches copy), so a reader's search needs no lock.
 */
public final class LocalFollowingCache implements FollowChecker.Local {

    /** Bytes per cached edge: the id in the sorted array and its follow time in the aligned one. */
    public static final int BYTES_PER_EDGE = 2 * Long.BYTES;
    /**
     * Bytes per entry besides its edges: Caffeine node (~56), {@code Long} key (16), the row record (40), two array
     * headers (32).
     */
    public static final int ENTRY_OVERHEAD_BYTES = 144;

    private final Cache<Long, FollowingRow> cache;
    private final FillTickets tickets = new FillTickets();
    private final LongAdder patched = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final LongAdder refusedFills = new LongAdder();

    /**
     * @param budgetBytes the most bytes of entries to hold, as weighed above; {@code > 0}
     * @throws IllegalArgumentException when {@code budgetBytes <= 0}
     */
    public LocalFollowingCache(long budgetBytes) {
        if (budgetBytes <= 0) {
            throw new IllegalArgumentException("budget must be > 0 bytes, was " + budgetBytes);
        }
        this.cache = Caffeine.newBuilder()
                .maximumWeight(budgetBytes)
                .weigher((Long id, FollowingRow row) -> weight(row.followingCount()))
                .executor(Runnable::run) // maintenance on the caller: no ForkJoinPool hand-off per write
                .build();
    }

    /**
     * The weight of an entry of {@code edges} ids, in bytes.
     *
     * @param edges number of ids, {@code >= 0}
     * @return {@code ENTRY_OVERHEAD_BYTES + BYTES_PER_EDGE * edges}, capped at {@code Integer.MAX_VALUE}
     */
    static int weight(int edges) {
        return (int) Math.min(Integer.MAX_VALUE, ENTRY_OVERHEAD_BYTES + (long) BYTES_PER_EDGE * edges);
    }

    /**
     * The cached following array of {@code followerId}.
     *
     * @param followerId positive
     * @return the sorted ids (not to be modified), or {@code null} when not cached
     */
    @Override
    public long[] following(long followerId) {
        FollowingRow row = cache.getIfPresent(followerId);
        return row == null ? null : row.followingIds();
    }

    /**
     * The cached following row of {@code followerId}.
     *
     * @param followerId positive
     * @return the row (its arrays not to be modified), or {@code null} when not cached
     */
    @Override
    public FollowingRow row(long followerId) {
        return cache.getIfPresent(followerId);
    }

    /**
     * Takes a fill ticket: call before reading the row that {@link #put} will cache.
     *
     * @param followerId positive
     * @return the ticket to pass to {@link #put}
     */
    @Override
    public long ticket(long followerId) {
        return tickets.ticket(followerId);
    }

    /**
     * Caches a following row read after {@link #ticket} returned {@code ticket}, unless an event of a follower of
     * the same stripe was applied since (the row may already be stale) or a newer version is cached.
     *
     * @param row    the row as read; the cache keeps its arrays, do not modify them
     * @param ticket from {@link #ticket}, taken before the row was read
     * @return whether the row is cached now (also when the same version already was)
     */
    @Override
    public boolean put(FollowingRow row, long ticket) {
        long followerId = row.followerId();
        long version = row.version();
        boolean[] cached = new boolean[1];
        cache.asMap().compute(followerId, (id, old) -> {
            // Read under the key's lock: apply() bumps the stripe before it takes the same lock.
            if (!tickets.valid(followerId, ticket)) {
                refusedFills.increment();
                return old;
            }
            if (old != null && old.version() >= version) {
                cached[0] = old.version() == version;
                return old;
            }
            cached[0] = true;
            return row;
        });
        return cached[0];
    }

    /**
     * Applies one follow event: patch, ignore or drop as described above.
     *
     * @param followerId positive
     * @param followeeId positive
     * @param follow     {@code true} for a follow, {@code false} for an unfollow
     * @param followedAt epoch ms when the follow was made (the event's {@code followedAt})
     * @param version    the following row's version after the change, {@code >= 1}
     */
    public void apply(long followerId, long followeeId, boolean follow, long followedAt, long version) {
        tickets.bump(followerId);
        // compute, not computeIfPresent or a get first: both have lock-free fast paths that would miss a put whose
        // compute is in progress (it passed its stripe check before the increment above) and so leave it stale.
        cache.asMap().compute(followerId, (id, old) -> {
            if (old == null) {
                return null; // not cached: nothing to patch
            }
            if (version <= old.version()) {
                return old; // redelivered or already read from the shard
            }
            if (version != old.version() + 1) {
                dropped.increment();
                return null; // a gap: some change in between was not seen here
            }
            patched.increment();
            Adjacency changed = follow
                    ? AdjacencyArray.insert(old.followingIds(), old.followedAt(), followeeId, followedAt)
                    : AdjacencyArray.remove(old.followingIds(), old.followedAt(), followeeId);
            return new FollowingRow(followerId, changed.ids(), changed.followedAt(), version);
        });
    }

    /**
     * Drops the entry of {@code followerId} and refuses fills in flight for it.
     *
     * @param followerId positive
     */
    public void invalidate(long followerId) {
        tickets.bump(followerId);
        cache.invalidate(followerId);
    }

    /** Drops every entry (operators, tests, and when the event feed is lost). */
    public void clear() {
        tickets.bumpAll();
        cache.invalidateAll();
    }

    /**
     * Number of cached followers.
     *
     * @return entries, {@code >= 0}
     */
    public long entries() {
        return cache.estimatedSize();
    }

    /**
     * Total weight of the cached entries.
     *
     * @return bytes as weighed ({@value #BYTES_PER_EDGE} per edge plus {@value #ENTRY_OVERHEAD_BYTES} per entry)
     */
    public long weightedBytes() {
        return cache.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    /**
     * Events that patched an entry.
     *
     * @return count since start
     */
    public long patched() {
        return patched.sum();
    }

    /**
     * Events that dropped an entry because of a version gap.
     *
     * @return count since start
     */
    public long dropped() {
        return dropped.sum();
    }

    /**
     * Fills refused because an event of the same stripe arrived while the row was being read.
     *
     * @return count since start
     */
    public long refusedFills() {
        return refusedFills.sum();
    }
}
