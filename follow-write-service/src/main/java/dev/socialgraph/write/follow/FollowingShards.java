package dev.socialgraph.write.follow;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.account.AccountStateRepository;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.RelationEdges;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.SqlErrors;
import dev.socialgraph.store.sql.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import org.springframework.stereotype.Component;

/**
 * Transactions on the following shard of one user, and the block and account-state lookups the write rules need,
 * with one answer for a database that cannot be reached ({@link ShardUnavailableException}, counted as {@code unavailable}).
 *
 * <p>Shards can move between databases while the service runs (docs/shard-moves.md). Every write goes through
 * {@link ShardDataSources#inUserTransaction}, which enters the shard's fence on the database the map names and
 * follows a move that database reports; a move whose new map this instance cannot read yet is a 503 like an outage
 * (nothing was written). Reads go through {@link ShardDataSources#readUser}, which follows a move without waiting for
 * its fence. Thread-safe.
 */
@Component
public class FollowingShards {

    private final ShardDataSources dataSources;
    private final FollowingRepository blocks = new FollowingRepository(Relation.BLOCK);
    private final AccountStateRepository states = new AccountStateRepository();
    private final WriteMetrics metrics;

    FollowingShards(ShardDataSources dataSources, WriteMetrics metrics) {
        this.dataSources = dataSources;
        this.metrics = metrics;
    }

    /**
     * Runs {@code work} in one transaction on {@code userId}'s following database, inside the fence of the user's
     * shard (retried on serialization failures by {@link Transactions}, and on the new owner when the shard moved).
     *
     * @throws ShardUnavailableException when the database cannot be reached, or the shard moved and the map that
     *                                   says where is not known yet
     * @throws IllegalStateException     on any other database error
     */
    public <T> T inTransaction(long userId, Transactions.Work<T> work) {
        try {
            return dataSources.inUserTransaction(ShardGroup.FOLLOWING, userId, work);
        } catch (SQLException e) {
            throw failure(userId, e);
        } catch (ShardUnavailableException e) {
            metrics.unavailable(); // moved, and the newer map could not be read
            throw e;
        }
    }

    /**
     * Whether {@code blockerId} blocks {@code targetId} now, read from the blocker's own row (the source of truth,
     * not the eventually consistent blocked-by side) on a connection of its own, outside any transaction of the
     * caller's.
     *
     * @throws ShardUnavailableException when the blocker's database cannot be reached
     */
    boolean blocks(long blockerId, long targetId) {
        try {
            return dataSources.readUser(ShardGroup.FOLLOWING, blockerId,
                    connection -> blocks.contains(connection, blockerId, targetId));
        } catch (SQLException e) {
            throw failure(blockerId, e);
        }
    }

    /**
     * Runs {@code work} on a connection (auto-commit) to {@code userId}'s following database, following a shard move.
     *
     * @throws ShardUnavailableException when the database cannot be reached
     * @throws IllegalStateException     on any other database error
     */
    public <T> T read(long userId, Transactions.Work<T> work) {
        try {
            return dataSources.readUser(ShardGroup.FOLLOWING, userId, work);
        } catch (SQLException e) {
            throw failure(userId, e);
        }
    }

    /**
     * Refuses a write of {@code targetId} unless the target is active: its state read on its following shard before
     * the writer's transaction (docs/account-lifecycle.md), one primary-key lookup.
     *
     * @param field the request field naming the target
     * @throws UserInactiveException     when the target is deactivated or erased
     * @throws ShardUnavailableException when the target's database cannot be reached
     */
    void requireActiveTarget(long targetId, String field) {
        if (!read(targetId, connection -> states.state(connection, targetId)).isActive()) {
            throw new UserInactiveException(targetId, field);
        }
    }

    /**
     * What a follow checks of its followee before its own transaction, in one statement on the followee's following
     * shard: the followee's state and whether the followee blocks the follower.
     *
     * @throws ShardUnavailableException when the followee's database cannot be reached
     */
    AccountStateRepository.TargetState followee(long followeeId, long followerId) {
        return read(followeeId, connection -> states.stateAndBlock(connection, followeeId, followerId));
    }

    /**
     * Refuses a write by {@code userId} unless the user is active, inside the write's transaction, after the write
     * locked the user's row: a state change locks the same rows, so the two serialize.
     *
     * @param field the request field naming the user
     * @throws UserInactiveException when the user is deactivated or erased; the caller's transaction rolls back
     */
    void requireActive(Connection connection, long userId, String field) throws SQLException {
        if (!states.state(connection, userId).isActive()) {
            throw new UserInactiveException(userId, field);
        }
    }

    /**
     * The whole of an unfollow, unblock or unmute by {@code userId} of {@code targetId}: the target's state is read on
     * its shard first ({@link #requireActiveTarget}); then one transaction on the user's following shard locks the
     * user's row of {@code edges}' relation, refuses an inactive user ({@link #requireActive}) and removes the target
     * if present, with its outbox row ({@link RelationEdges#remove(Connection, long, long, RelationEdges.UnderLock)}).
     * A user without a row writes nothing.
     *
     * @param userField   the request field naming the user
     * @param targetField the request field naming the target
     * @return the edge's state after the call ({@code present == false})
     * @throws UserInactiveException     when the user or the target is deactivated or erased
     * @throws ShardUnavailableException when the user's or the target's database cannot be reached
     */
    RelationEdges.Edit remove(RelationEdges edges, long userId, String userField, long targetId, String targetField) {
        requireActiveTarget(targetId, targetField);
        return inTransaction(userId, connection -> edges.remove(connection, userId, targetId,
                () -> requireActive(connection, userId, userField)));
    }

    private RuntimeException failure(long userId, SQLException e) {
        RuntimeException failure = SqlErrors.translate(e, "following database "
                + dataSources.shardMap().route(ShardGroup.FOLLOWING, userId).database(),
                "write of user " + userId + "'s following shard");
        if (failure instanceof ShardUnavailableException) {
            metrics.unavailable();
        }
        return failure;
    }
}
