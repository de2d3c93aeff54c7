package dev.socialgraph.write.follow;

import dev.socialgraph.cache.FollowingCache;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.following.RelationEdges;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.write.outbox.OutboxCommits;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Arrays;
import java.util.function.Supplier;
import org.springframework.stereotype.Service;

/**
 * Block and unblock, mute and unmute (docs/decisions/0029-blocks-and-mutes.md): each one transaction on the actor's
 * following shard, through the same rows, outbox and events as follows ({@link RelationEdges}). All are idempotent:
 * a repeat writes nothing and returns the current state.
 *
 * <p>A block is one transaction that adds the block and removes the blocker's follow of the blocked user, both
 * with their outbox rows. It locks the blocker's following row first, as a follow does, so a follow and a block by
 * the same user serialize. The blocked user's follow of the blocker may live on another database: the event
 * consumer removes it when the block's event arrives. Unblocking restores nothing. A mute changes no follow.
 *
 * <p>After the commit of a change the relay of the actor's database is nudged ({@link OutboxCommits}).
 *
 * <p>Every change by or of a deactivated or erased user is refused ({@link UserInactiveException}): the target's
 * state is read on its shard before the transaction, the actor's inside it after the row lock, which a state change
 * takes too (docs/account-lifecycle.md).
 *
 * <p>Thread-safe.
 */
@Service
public class RelationService {

    private final FollowingShards shards;
    private final RelationEdges follows;
    private final RelationEdges blocks;
    private final RelationEdges mutes;
    private final RelationEdges requests;
    private final FollowingCache cache;
    private final WriteMetrics metrics;
    private final Clock clock;
    private final OutboxCommits commits;

    RelationService(FollowingShards shards, FollowingRepository following, OutboxRepository outbox,
                    FollowingCache cache, WriteMetrics metrics, Clock clock, OutboxCommits commits) {
        this.shards = shards;
        this.commits = commits;
        this.follows = new RelationEdges(following, outbox);
        this.blocks = new RelationEdges(new FollowingRepository(Relation.BLOCK), outbox);
        this.mutes = new RelationEdges(new FollowingRepository(Relation.MUTE), outbox);
        this.requests = new RelationEdges(new FollowingRepository(Relation.REQUEST), outbox);
        this.cache = cache;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * {@code userId} blocks {@code targetId} and stops following them; a follow request of {@code userId}'s to them
     * ends too ({@code targetId}'s follow of, or request to, {@code userId} is the event consumer's to end).
     *
     * @param userId   the blocker, positive
     * @param targetId the user to block, positive
     * @return the block's state after the call
     * @throws SelfRelationException     if the ids are equal
     * @throws RelationLimitException    at 50,000 blocks ({@link Relation#cap()})
     * @throws UserInactiveException    if either user is deactivated or erased
     * @throws ShardUnavailableException if the blocker's following database cannot be reached
     */
    public RelationResult block(long userId, long targetId) {
        requireDistinct(Relation.BLOCK, userId, targetId);
        shards.requireActiveTarget(targetId, "targetId");
        Block written = limited(() -> shards.inTransaction(userId, connection -> {
            FollowingRow following = follows.rows().lockOrCreate(connection, userId);
            shards.requireActive(connection, userId, "userId");
            RelationEdges.Edit unfollow = follows.remove(connection, following, targetId);
            Block block = new Block(add(blocks, connection, blocks.rows().lockOrCreate(connection, userId), userId,
                    targetId), unfollow);
            requests.remove(connection, userId, targetId, () -> { }); // the blocker's pending request ends too
            return block;
        }));
        if (written.block().changed() || written.unfollow().changed()) {
            commits.committed(userId);
        }
        metrics.relation(written.block());
        if (written.unfollow().changed()) {
            metrics.cacheApplied(cache.apply(new FollowingCache.Change(userId, written.unfollow().row().version(),
                    false, targetId)));
        }
        return written.block();
    }

    /** What a block's transaction wrote: the block, and the removal of the blocker's follow. */
    private record Block(RelationResult block, RelationEdges.Edit unfollow) {
    }

    /**
     * {@code userId} stops blocking {@code targetId}; no follow comes back.
     *
     * @param userId   the blocker, positive
     * @param targetId the blocked user, positive
     * @return the block's state after the call ({@code present == false})
     * @throws SelfRelationException     if the ids are equal
     * @throws ShardUnavailableException if the blocker's following database cannot be reached
     */
    public RelationResult unblock(long userId, long targetId) {
        return remove(blocks, userId, targetId);
    }

    /**
     * {@code userId} mutes {@code targetId}; follows are untouched.
     *
     * @param userId   the muter, positive
     * @param targetId the user to mute, positive
     * @return the mute's state after the call
     * @throws SelfRelationException     if the ids are equal
     * @throws RelationLimitException    at 50,000 mutes
     * @throws ShardUnavailableException if the muter's following database cannot be reached
     */
    public RelationResult mute(long userId, long targetId) {
        requireDistinct(Relation.MUTE, userId, targetId);
        shards.requireActiveTarget(targetId, "targetId");
        RelationResult result = limited(() -> shards.inTransaction(userId, connection -> {
            FollowingRow row = mutes.rows().lockOrCreate(connection, userId);
            shards.requireActive(connection, userId, "userId");
            return add(mutes, connection, row, userId, targetId);
        }));
        if (result.changed()) {
            commits.committed(userId);
        }
        metrics.relation(result);
        return result;
    }

    /**
     * {@code userId} stops muting {@code targetId}.
     *
     * @param userId   the muter, positive
     * @param targetId the muted user, positive
     * @return the mute's state after the call ({@code present == false})
     * @throws SelfRelationException     if the ids are equal
     * @throws ShardUnavailableException if the muter's following database cannot be reached
     */
    public RelationResult unmute(long userId, long targetId) {
        return remove(mutes, userId, targetId);
    }

    private RelationResult add(RelationEdges edges, Connection connection, FollowingRow row, long userId,
                               long targetId) throws SQLException {
        boolean present = Arrays.binarySearch(row.followingIds(), targetId) >= 0;
        if (!present && row.followingCount() >= edges.relation().cap()) {
            throw new RelationLimitException(edges.relation(), row.followingCount());
        }
        return result(edges.relation(), userId, targetId, edges.add(connection, row, targetId, clock.millis()));
    }

    private RelationResult remove(RelationEdges edges, long userId, long targetId) {
        requireDistinct(edges.relation(), userId, targetId);
        RelationResult result = result(edges.relation(), userId, targetId,
                shards.remove(edges, userId, "userId", targetId, "targetId"));
        if (result.changed()) {
            commits.committed(userId);
        }
        metrics.relation(result);
        return result;
    }

    private <T> T limited(Supplier<T> write) {
        try {
            return write.get();
        } catch (RelationLimitException e) {
            metrics.rejected();
            throw e;
        }
    }

    private void requireDistinct(Relation relation, long userId, long targetId) {
        if (userId == targetId) {
            metrics.rejected();
            throw new SelfRelationException(relation, userId);
        }
    }

    private static RelationResult result(Relation relation, long userId, long targetId, RelationEdges.Edit edit) {
        return new RelationResult(userId, targetId, relation, edit.present(),
                edit.present() ? edit.createdAt() : null, edit.row().version(), edit.changed());
    }
}
