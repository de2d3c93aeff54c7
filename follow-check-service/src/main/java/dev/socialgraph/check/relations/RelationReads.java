package dev.socialgraph.check.relations;

import dev.socialgraph.check.store.ShardReader;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.adjacency.Page;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.FollowingRow;
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
 * on its follower shard, kept by the event consumer like followers. Thread-safe.
 */
@Service
public class RelationReads {

    /** The shard reads this class needs; {@link ShardReader} in production, a plain fake in unit tests. */
    public interface Shards {

        /** The source's row of a relation; an empty row when absent. See {@link ShardReader#relationRow}. */
        FollowingRow relationRow(Relation relation, long userId);

        /** Whether the source's row of a relation holds the target. See {@link ShardReader#holds}. */
        boolean holds(Relation relation, long sourceId, long targetId);

        /** Which of the ascending ids block the user, ascending. See {@link ShardReader#blockedByAmong}. */
        long[] blockedByAmong(long userId, long[] ids);
    }

    /** The in-process filter of hidden pairs; {@link HiddenPairs} in production. */
    public interface Filter {

        /** Whether {@link #mayHide} answers can be trusted now. */
        boolean trusted();

        /** {@code false} when no block either way and no mute by the viewer stands between the two. */
        boolean mayHide(long viewerId, long authorId);
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
     * Whom {@code userId} blocks or mutes, newest first, with the same positions as the follow lists.
     *
     * @param relation         {@link Relation#BLOCK} or {@link Relation#MUTE}
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
     * event not yet enforced): the in-process filter is trusted and has seen the pair. While the filter is not
     * trusted (starting, feed lagging) this says {@code false} rather than read a shard for every follow.
     */
    public boolean followMayBeBlocked(long followerId, long followeeId) {
        // The follower's pair: a block puts both orders, and the follower is the user this instance owns.
        return pairs.trusted() && pairs.mayHide(followerId, followeeId);
    }

    /**
     * Whether {@code blockerId} blocks {@code blockedId}, from the blocker's row.
     *
     * @throws ShardUnavailableException when the blocker's following database is down
     */
    public boolean blocks(long blockerId, long blockedId) {
        return shards.holds(Relation.BLOCK, blockerId, blockedId);
    }

    /**
     * The blocks either way and {@code a}'s mute of {@code b}, from the sources' own rows.
     *
     * @param a positive
     * @param b positive
     * @return the relations; {@link Between#NONE} when the in-process filter rules them all out
     * @throws ShardUnavailableException when a following database that must be read is down
     */
    public Between between(long a, long b) {
        return between(a, b, false);
    }

    /**
     * As {@link #between(long, long)}; with {@code ownWrite} (a follow token of {@code a} or {@code b}) the
     * in-process filter is skipped, since it may not have the write yet (read-your-writes).
     */
    public Between between(long a, long b, boolean ownWrite) {
        if (a == b || !ownWrite && surelyNone(a, b)) {
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
     * Answers from the in-process filter alone when it can: every author it has never seen paired with the viewer
     * is shown.
     *
     * @param viewerId  positive
     * @param authorIds positive, ascending, distinct
     * @return the authors that still need a shard read, ascending (empty when nobody is hidden), or {@code null}
     *         when the filter cannot be trusted now
     */
    public long[] candidatesInProcess(long viewerId, long[] authorIds) {
        if (!pairs.trusted()) {
            return null;
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
     * The answer when the in-process filter rules out every author, timed as {@code layer=filter}.
     *
     * @param viewerId  positive
     * @param authorIds positive, ascending, distinct
     * @return nobody hidden, or {@code null} when a shard must be read ({@link #hidden})
     */
    public Hidden hiddenInProcess(long viewerId, long[] authorIds) {
        long start = System.nanoTime();
        long[] candidates = candidatesInProcess(viewerId, authorIds);
        if (candidates == null || candidates.length > 0) {
            return null;
        }
        inProcess.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        return Hidden.NONE;
    }

    /**
     * Which of {@code authorIds} are hidden from {@code viewerId}: the viewer's block and mute rows and its blocked-by
     * side, read for the authors the in-process filter cannot rule out. Timed as {@code layer=shard}.
     *
     * @param viewerId  positive
     * @param authorIds positive, ascending, distinct
     * @return the three subsets of {@code authorIds}
     * @throws ShardUnavailableException when a database that must be read is down
     */
    public Hidden hidden(long viewerId, long[] authorIds) {
        return hidden(viewerId, authorIds, false);
    }

    /**
     * As {@link #hidden(long, long[])}; with {@code ownWrite} (a follow token of the viewer, whose block or mute may
     * not have reached the in-process filter yet) every author is read from the shards (read-your-writes).
     */
    public Hidden hidden(long viewerId, long[] authorIds, boolean ownWrite) {
        long start = System.nanoTime();
        long[] candidates = ownWrite ? null : candidatesInProcess(viewerId, authorIds);
        long[] ids = candidates == null ? authorIds : candidates;
        if (ids.length == 0) {
            inProcess.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            return Hidden.NONE;
        }
        long[] blocking = AdjacencyArray.intersect(shards.relationRow(Relation.BLOCK, viewerId).followingIds(), ids,
                ids.length);
        long[] muting = AdjacencyArray.intersect(shards.relationRow(Relation.MUTE, viewerId).followingIds(), ids,
                ids.length);
        Hidden hidden = new Hidden(blocking, shards.blockedByAmong(viewerId, ids), muting);
        fromShards.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        return hidden;
    }
}
