package dev.socialgraph.write.follow;

import dev.socialgraph.common.adjacency.Adjacency;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.FollowingRepository;
import dev.socialgraph.store.FollowingRow;
import dev.socialgraph.store.OutboxRepository;
import dev.socialgraph.store.ShardDataSources;
import dev.socialgraph.store.SqlErrors;
import dev.socialgraph.store.Transactions;
import dev.socialgraph.write.WriteProperties;
import dev.socialgraph.write.cache.FollowingCache;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Arrays;
import org.springframework.stereotype.Service;

/**
 * Follow and unfollow (DESIGN.md 3): the write-through on the follower's following shard, then the cache.
 *
 * <p>Each change is one transaction on the database the shard map names for the follower: lock the
 * following row, insert or remove the followee in the sorted arrays, write them with {@code version + 1}, and
 * append the outbox row carrying that version; commit. Two writes of one follower serialize on the row lock,
 * so versions and outbox ids follow commit order per follower. A repeat (already following, not following)
 * writes nothing, appends no outbox row and returns the current state.
 *
 * <p>After the commit the change is applied to Redis {@code following:{followerId}}; a Redis failure is counted
 * by {@link FollowingCache} and does not fail the write, which is already durable.
 *
 * <p>Thread-safe.
 */
@Service
public class FollowService {

    private final ShardDataSources dataSources;
    private final FollowingRepository following;
    private final OutboxRepository outbox;
    private final FollowingCache cache;
    private final WriteMetrics metrics;
    private final Clock clock;
    private final int followingCap;

    FollowService(ShardDataSources dataSources, FollowingRepository following, OutboxRepository outbox,
                  FollowingCache cache, WriteMetrics metrics, Clock clock, WriteProperties properties) {
        this.dataSources = dataSources;
        this.following = following;
        this.outbox = outbox;
        this.cache = cache;
        this.metrics = metrics;
        this.clock = clock;
        this.followingCap = properties.followingCap();
    }

    /**
     * {@code followerId} follows {@code followeeId}. Idempotent: following already leaves the original
     * {@code followedAt} and writes nothing.
     *
     * @param followerId the actor, positive
     * @param followeeId the user to follow, positive
     * @return the edge's state after the call
     * @throws SelfFollowException        if the ids are equal
     * @throws FollowingLimitException    if the follower already follows {@code graph.write.following-cap} users
     * @throws ShardUnavailableException  if the follower's database cannot be reached
     */
    public FollowResult follow(long followerId, long followeeId) {
        requireDistinct(followerId, followeeId);
        FollowResult result = inTransaction(followerId, connection -> {
            FollowingRow row = following.lockOrCreate(connection, followerId);
            int at = Arrays.binarySearch(row.followingIds(), followeeId);
            if (at >= 0) {
                return new FollowResult(followerId, followeeId, true, row.followedAt()[at], row.version(), false);
            }
            if (row.followingCount() >= followingCap) {
                throw new FollowingLimitException(followingCap, row.followingCount());
            }
            long now = clock.millis();
            Adjacency next = AdjacencyArray.insert(row.followingIds(), row.followedAt(), followeeId, now);
            FollowingRow written = following.writeNextVersion(connection, row, next.ids(), next.followedAt());
            outbox.append(connection, followerId, followeeId, true, now, written.version());
            return new FollowResult(followerId, followeeId, true, now, written.version(), true);
        });
        afterCommit(result);
        return result;
    }

    /**
     * {@code followerId} stops following {@code followeeId}. Idempotent: not following writes nothing. The outbox
     * row carries the removed edge's {@code followedAt} (docs/decisions.md, Events).
     *
     * @param followerId the actor, positive
     * @param followeeId the user to unfollow, positive
     * @return the edge's state after the call ({@code following == false}, {@code followedAt == null})
     * @throws SelfFollowException       if the ids are equal
     * @throws ShardUnavailableException if the follower's database cannot be reached
     */
    public FollowResult unfollow(long followerId, long followeeId) {
        requireDistinct(followerId, followeeId);
        FollowResult result = inTransaction(followerId, connection -> {
            FollowingRow row = following.lock(connection, followerId).orElse(null);
            if (row == null) {
                return new FollowResult(followerId, followeeId, false, null, 0, false);
            }
            Adjacency next = AdjacencyArray.remove(row.followingIds(), row.followedAt(), followeeId);
            if (!next.changed()) {
                return new FollowResult(followerId, followeeId, false, null, row.version(), false);
            }
            FollowingRow written = following.writeNextVersion(connection, row, next.ids(), next.followedAt());
            outbox.append(connection, followerId, followeeId, false, next.removedFollowedAt(), written.version());
            return new FollowResult(followerId, followeeId, false, null, written.version(), true);
        });
        afterCommit(result);
        return result;
    }

    private void requireDistinct(long followerId, long followeeId) {
        if (followerId == followeeId) {
            metrics.rejected();
            throw new SelfFollowException(followerId);
        }
    }

    private FollowResult inTransaction(long followerId, Transactions.Work<FollowResult> work) {
        try {
            return Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWING, followerId), work);
        } catch (FollowingLimitException e) {
            metrics.rejected();
            throw e;
        } catch (SQLException e) {
            if (SqlErrors.classify(e) == SqlErrors.Kind.UNAVAILABLE) {
                metrics.unavailable();
                String database = dataSources.shardMap().route(ShardGroup.FOLLOWING, followerId).database();
                throw new ShardUnavailableException("following database " + database + " is unavailable", e);
            }
            throw new IllegalStateException("write of following row " + followerId + " failed", e);
        }
    }

    private void afterCommit(FollowResult result) {
        metrics.result(result);
        if (result.changed()) {
            cache.apply(result.followerId(), result.version(), result.following(), result.followeeId());
        }
    }
}
