package dev.socialgraph.write.follow;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.FollowingRepository;
import dev.socialgraph.store.ShardDataSources;
import dev.socialgraph.store.SqlErrors;
import dev.socialgraph.store.Transactions;
import java.sql.SQLException;
import org.springframework.stereotype.Component;

/**
 * Transactions on the following shard of one user, and the block lookups the write rules need, with one answer for
 * a database that cannot be reached ({@link ShardUnavailableException}, counted as {@code unavailable}).
 *
 * <p>Shards can move between databases while the service runs (docs/shard-moves.md). Every write goes through
 * {@link ShardDataSources#inUserTransaction}, which enters the shard's fence on the database the map names and
 * follows a move that database reports; a move whose new map this instance cannot read yet is a 503 like an outage
 * (nothing was written). Reads go through {@link ShardDataSources#readUser}, which follows a move without waiting for
 * its fence. Thread-safe.
 */
@Component
class FollowingShards {

    private final ShardDataSources dataSources;
    private final FollowingRepository blocks = new FollowingRepository(Relation.BLOCK);
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
    <T> T inTransaction(long userId, Transactions.Work<T> work) {
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

    private RuntimeException failure(long userId, SQLException e) {
        if (SqlErrors.classify(e) == SqlErrors.Kind.UNAVAILABLE) {
            metrics.unavailable();
            String database = dataSources.shardMap().route(ShardGroup.FOLLOWING, userId).database();
            return new ShardUnavailableException("following database " + database + " is unavailable", e);
        }
        return new IllegalStateException("write of user " + userId + "'s following shard failed", e);
    }
}
