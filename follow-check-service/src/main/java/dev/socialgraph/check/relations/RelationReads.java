package dev.socialgraph.check.relations;

import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.adjacency.Page;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.following.FollowingRow;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Service;

/**
 * Reads of blocks and mutes: a user's own lists, the three relations between two users, and the hidden-authors
 * filter a feed runs before rendering. The lists and the "does A block or mute B" answers come from the source's
 * row on its following shard (the source of truth); "is A blocked by B" for many B comes from A's blocked-by row
 * on its follower shard, kept by the event consumer like followers. The single check asks it as its
 * {@link FollowChecker.Blocks}. Thread-safe.
 */
@Service
public class RelationReads implements FollowChecker.Blocks {

    /** The shard reads this class needs: an adapter in {@code check.store} in production, a plain fake in tests. */
    public interface Shards {

        /**
         * The source's row of a relation: whom {@code userId} blocks or mutes, sorted by id with aligned times, from
         * its following database.
         *
         * @param relation {@link Relation#BLOCK} or {@link Relation#MUTE}
         * @param userId   positive user id
         * @return the row; an empty row of version 0 when the user never blocked (muted) anyone
         * @throws ShardUnavailableException when its database is down
         */
        FollowingRow relationRow(Relation relation, long userId);

        /**
         * Whether the source's row of a relation holds the target, answered inside the database.
         *
         * @throws ShardUnavailableException when the source's database is down
         */
        boolean holds(Relation relation, long sourceId, long targetId);

        /**
         * Which of {@code ids} block {@code userId}, from the user's blocked-by row and pages on its follower database
         * (the follower side of blocks, eventually consistent like followers).
         *
         * @param userId positive user id
         * @param ids    positive user ids, ascending, distinct
         * @return the blockers among {@code ids}, ascending
         * @throws ShardUnavailableException when its database is down
         */
        long[] blockedByAmong(long userId, long[] ids);

        /**
         * One newest-first page of the follow requests pending to {@code userId}, from its follower side of requests
         * (row and celebrity pages, kept by the event consumer like followers) on its follower database.
         *
         * @param userId           positive user id
         * @param cursorCreatedAt  position to continue after (ignored for the first page)
         * @param cursorId         position to continue after, or {@link Page#START}
         * @param limit            page size, {@code >= 1}
         * @return the page: the requesters, with when each asked, epoch ms
         * @throws ShardUnavailableException when its database is down
         */
        Page incomingRequests(long userId, long cursorCreatedAt, long cursorId, int limit);
    }

    /** The in-process filter of hidden pairs; {@link HiddenPairs} in production. */
    public interface Filter {

        /** Whether {@link #mayHide} answers can be trusted now. */
        boolean trusted();

        /** {@code false} when no block either way and no mute by the viewer stands between the two. */
        boolean mayHide(long viewerId, long authorId);

        /**
         * {@code false} when no block either way and no mute by the viewer stands between the viewer and anyone: then
         * {@link #mayHide} is {@code false} for every author. Asked once before a page's authors are.
         */
        default boolean mayHideAny(long viewerId) {
            return true;
        }
    }

    private final Shards shards;
    private final Filter pairs;
    private final Timer inProcess;
    private final Timer fromShards;

    /**
     * @param shards   where the rows are read
     * @param pairs    the in-process filter of hidden pairs
     * @param registry where {@code graph.check.hidden.latency{layer=filter|shard}} is recorded: the hidden-authors
     *                 answers by the layer that gave them (SLO buckets 0.3 ms and 1 ms, as the follow check's)
     */
    public RelationReads(Shards shards, Filter pairs, MeterRegistry registry) {
        this.shards = shards;
        this.pairs = pairs;
        this.inProcess = latency(registry, "filter");
        this.fromShards = latency(registry, "shard");
    }

    private static Timer latency(MeterRegistry registry, String layer) {
        return Timer.builder("graph.check.hidden.latency")
                .description("Hidden-authors answers by the layer that answered")
                .tag("layer", layer)
                .serviceLevelObjectives(Duration.ofNanos(300_000), Duration.ofMillis(1))
                .publishPercentileHistogram()
                .register(registry);
    }

    /**
     * Whom {@code userId} blocks or mutes, or asked to follow, newest first, with the same positions as the follow
     * lists.
     *
     * @param relation         {@link Relation#BLOCK}, {@link Relation#MUTE} or {@link Relation#REQUEST}
     * @param userId           positive
     * @param cursorCreatedAt  position to continue after (ignored for the first page)
     * @param cursorId         position to continue after, or {@link Page#START}
     * @param limit            page size, {@code >= 1}
     * @return the page
     * @throws ShardUnavailableException when the user's following database is down
     */
    public Page list(Relation relation, long userId, long cursorCreatedAt, long cursorId, int limit) {
        FollowingRow row = shards.relationRow(relation, userId);
        return AdjacencyArray.newestFirst(row.followingIds(), row.followedAt(), cursorCreatedAt, cursorId, limit);
    }

    /**
     * The follow requests pending to {@code userId}, newest first, with the same positions as the follow lists.
     *
     * @param userId          positive
     * @param cursorCreatedAt position to continue after (ignored for the first page)
     * @param cursorId        position to continue after, or {@link Page#START}
     * @param limit           page size, {@code >= 1}
     * @return the page
     * @throws ShardUnavailableException when the user's follower database is down
     */
    public Page incomingRequests(long userId, long cursorCreatedAt, long cursorId, int limit) {
        return shards.incomingRequests(userId, cursorCreatedAt, cursorId, limit);
    }

    /**
     * The blocks and mute between two users.
     *
     * @param blocking  {@code a} blocks {@code b}
     * @param blockedBy {@code b} blocks {@code a}
     * @param muting    {@code a} mutes {@code b}
     */
    public record Between(boolean blocking, boolean blockedBy, boolean muting) {

        /** No block either way and no mute. */
        public static final Between NONE = new Between(false, false, false);

        /** Whether a block stands either way: no follow may be shown between the two then. */
        public boolean blocked() {
            return blocking || blockedBy;
        }
    }

    /**
     * Whether {@code requesterId} has a pending follow request to {@code protectedId}, answered inside the requester's
     * following database (the requester's row of requests is the truth, written synchronously).
     *
     * @param requesterId positive user id
     * @param protectedId positive user id
     * @return whether the request is pending
     * @throws ShardUnavailableException when the requester's database is down
     */
    public boolean requestPending(long requesterId, long protectedId) {
        return shards.holds(Relation.REQUEST, requesterId, protectedId);
    }

    /**
     * Whether the in-process filter alone proves that no block either way and no mute by {@code a} stands between
     * {@code a} and {@code b}: one probe of the pair {@code (a, b)}, since a block puts both orders.
     *
     * @return {@code true} when the answer is {@link Between#NONE} without a shard read
     */
    public boolean surelyNone(long a, long b) {
        return pairs.trusted() && !pairs.mayHide(a, b);
    }

    /**
     * Whether a follow of {@code followeeId} by {@code followerId} may stand under the followee's block (the block's
     * event not yet enforced): the request carries the followee's own follow token (its block may not be in the filter
     * yet), or the in-process filter is trusted and has seen the pair. While the filter is not trusted (starting, feed
     * lagging) this says {@code false} rather than read a shard for every follow.
     *
     * @param writer the request's follow token, as {@link FollowChecker#writer} verified it
     */
    @Override
    public boolean followMayBeBlocked(long followerId, long followeeId, long writer) {
        // The follower's pair: a block puts both orders, and the follower is the user this instance owns.
        return writer == followeeId || pairs.trusted() && pairs.mayHide(followerId, followeeId);
    }

    /**
     * Which of {@code ids} {@code ownerId} blocks, reading the owner's block row only when the in-process filter
     * cannot rule every one out (it has seen the pair, or it is not trusted). For a page of the owner's followers:
     * the follows its blocks forbid, whose removal by the block's event is still on its way.
     *
     * @param ownerId  positive
     * @param ids      positive, any order
     * @param mayBlock whether the block row may be read; {@code false} on an I/O thread
     * @return the blocked ones, ascending; usually empty; {@code null} only when {@code !mayBlock} and the row must
     *         be read
     * @throws ShardUnavailableException when the owner's following database must be read and is down
     */
    public long[] blockedAmong(long ownerId, long[] ids, boolean mayBlock) {
        if (ids.length == 0 || pairs.trusted() && noneMayHide(ownerId, ids)) {
            return new long[0];
        }
        if (!mayBlock) {
            return null;
        }
        long[] blocked = shards.relationRow(Relation.BLOCK, ownerId).followingIds();
        if (blocked.length == 0) {
            return blocked;
        }
        long[] sorted = ids.clone();
        Arrays.sort(sorted);
        return AdjacencyArray.intersect(blocked, sorted, sorted.length);
    }

    private boolean noneMayHide(long viewerId, long[] authorIds) {
        if (!pairs.mayHideAny(viewerId)) {
            return true;
        }
        for (long author : authorIds) {
            if (pairs.mayHide(viewerId, author)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code blockerId} blocks {@code blockedId}, from the blocker's row.
     *
     * @throws ShardUnavailableException when the blocker's following database is down
     */
    @Override
    public boolean blocks(long blockerId, long blockedId) {
        return shards.holds(Relation.BLOCK, blockerId, blockedId);
    }

    /**
     * The blocks either way and {@code a}'s mute of {@code b}, read from the sources' own rows. The caller asks the
     * in-process filter first ({@link #surelyNone}) unless a follow token of {@code a} or {@code b} says the filter
     * may not have the write yet (read-your-writes).
     *
     * @param a positive
     * @param b positive
     * @return the relations; {@link Between#NONE} when {@code a == b}
     * @throws ShardUnavailableException when a following database that must be read is down
     */
    public Between between(long a, long b) {
        if (a == b) {
            return Between.NONE;
        }
        return new Between(shards.holds(Relation.BLOCK, a, b), shards.holds(Relation.BLOCK, b, a),
                shards.holds(Relation.MUTE, a, b));
    }

    /**
     * Which of {@code authorIds} the viewer blocks, is blocked by, or mutes.
     *
     * @param blocking  authors the viewer blocks, ascending
     * @param blockedBy authors who block the viewer, ascending
     * @param muting    authors the viewer mutes, ascending
     */
    public record Hidden(long[] blocking, long[] blockedBy, long[] muting) {

        static final Hidden NONE = new Hidden(new long[0], new long[0], new long[0]);
    }

    /**
     * The authors the shards must be asked about: those the in-process filter has seen paired with the viewer, so
     * usually none. Every author while the filter is not trusted, or with {@code ownWrite} (a follow token of the
     * viewer, whose block or mute may not have reached the filter yet: read-your-writes).
     *
     * @param viewerId  positive
     * @param authorIds positive, ascending, distinct
     * @param ownWrite  whether the request carries a valid follow token of the viewer
     * @return a subset of {@code authorIds}, ascending; empty when the filter shows nobody is hidden
     */
    public long[] mayBeHidden(long viewerId, long[] authorIds, boolean ownWrite) {
        if (ownWrite || !pairs.trusted()) {
            return authorIds;
        }
        if (!pairs.mayHideAny(viewerId)) {
            return new long[0];
        }
        long[] candidates = new long[authorIds.length];
        int n = 0;
        for (long author : authorIds) {
            if (author != viewerId && pairs.mayHide(viewerId, author)) {
                candidates[n++] = author;
            }
        }
        return Arrays.copyOf(candidates, n);
    }

    /**
     * Which of {@code candidates} ({@link #mayBeHidden}) are hidden from {@code viewerId}: the viewer's block and mute
     * rows and its blocked-by side, read only when there is a candidate. Timed from {@code startNanos} (the request's
     * arrival, before {@link #mayBeHidden}) as {@code layer=filter} when nothing was read, else {@code layer=shard}.
     *
     * @param viewerId   positive
     * @param candidates positive, ascending, distinct
     * @param startNanos {@link System#nanoTime()} when the request's answer began
     * @return the three subsets of {@code candidates}
     * @throws ShardUnavailableException when a database that must be read is down
     */
    public Hidden hidden(long viewerId, long[] candidates, long startNanos) {
        if (candidates.length == 0) {
            inProcess.record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
            return Hidden.NONE;
        }
        long[] blocking = AdjacencyArray.intersect(shards.relationRow(Relation.BLOCK, viewerId).followingIds(),
                candidates, candidates.length);
        long[] muting = AdjacencyArray.intersect(shards.relationRow(Relation.MUTE, viewerId).followingIds(),
                candidates, candidates.length);
        Hidden hidden = new Hidden(blocking, shards.blockedByAmong(viewerId, candidates), muting);
        fromShards.record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
        return hidden;
    }
}
