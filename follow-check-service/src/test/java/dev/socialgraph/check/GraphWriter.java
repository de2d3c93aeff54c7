package dev.socialgraph.check;

import dev.socialgraph.common.adjacency.Adjacency;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.adjacency.TimeOrderedAdjacency;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.Transactions;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * Writes graph rows straight through the graph-store repositories, as the write service and the cdc-consumer
 * would, so that the read path can be tested against a model kept by the test.
 */
final class GraphWriter {

    private final ShardDataSources dataSources;
    private final FollowingRepository following = new FollowingRepository();
    private final FollowerRepository followers = new FollowerRepository();
    private final CelebrityPageRepository pages = new CelebrityPageRepository();

    GraphWriter(ShardDataSources dataSources) {
        this.dataSources = dataSources;
    }

    /** Adds {@code follower -> followee} to both sides (a no-op where already present); returns the new version. */
    long follow(long follower, long followee, long followedAt) throws SQLException {
        long version = Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWING, follower), c -> {
            FollowingRow row = following.lockOrCreate(c, follower);
            Adjacency next = AdjacencyArray.insert(row.followingIds(), row.followedAt(), followee, followedAt);
            return next.changed()
                    ? following.writeNextVersion(c, row, next.ids(), next.followedAt()).version() : row.version();
        });
        Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWER, followee), c -> {
            FollowerRow row = followers.lockOrCreate(c, followee);
            Adjacency next = TimeOrderedAdjacency.insert(row.followerIds(), row.followedAt(), follower, followedAt);
            if (next.changed()) {
                followers.writeNextVersion(c, row, next.ids(), next.followedAt(), next.size(), false);
            }
            return null;
        });
        return version;
    }

    /** Removes {@code follower -> followee} from both sides; returns the new following-row version. */
    long unfollow(long follower, long followee) throws SQLException {
        long[] removedAt = {Long.MIN_VALUE};
        long version = Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWING, follower), c -> {
            FollowingRow row = following.lockOrCreate(c, follower);
            Adjacency next = AdjacencyArray.remove(row.followingIds(), row.followedAt(), followee);
            removedAt[0] = next.removedFollowedAt();
            return next.changed()
                    ? following.writeNextVersion(c, row, next.ids(), next.followedAt()).version() : row.version();
        });
        if (removedAt[0] != Long.MIN_VALUE) {
            Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWER, followee), c -> {
                FollowerRow row = followers.lockOrCreate(c, followee);
                Adjacency next = TimeOrderedAdjacency.remove(row.followerIds(), row.followedAt(), follower,
                        removedAt[0]);
                if (next.changed()) {
                    followers.writeNextVersion(c, row, next.ids(), next.followedAt(), next.size(), false);
                }
                return null;
            });
        }
        return version;
    }

    /**
     * Adds {@code blocked} to {@code blocker}'s block row, as the write service writes a block; the follows the block
     * forbids are left as they are, as they stand until the block's event removes them.
     */
    void block(long blocker, long blocked, long createdAt) throws SQLException {
        FollowingRepository blocks = new FollowingRepository(Relation.BLOCK);
        Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWING, blocker), c -> {
            FollowingRow row = blocks.lockOrCreate(c, blocker);
            Adjacency next = AdjacencyArray.insert(row.followingIds(), row.followedAt(), blocked, createdAt);
            return next.changed() ? blocks.writeNextVersion(c, row, next.ids(), next.followedAt()) : row;
        });
    }

    /**
     * Writes {@code user}'s {@code account_states} row as the write service does (the next version, {@code updated_at}
     * now); the check service's view of inactive users polls it.
     *
     * @param state 0 active, 1 deactivated, 2 erased
     */
    void setAccountState(long user, int state) throws SQLException {
        Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWING, user), c -> {
            try (PreparedStatement ps = c.prepareStatement("""
                    INSERT INTO account_states (user_id, state, version, changed_at, job_id) VALUES (?, ?, 1, 0, ?)
                    ON CONFLICT (user_id) DO UPDATE SET state = excluded.state,
                        version = account_states.version + 1, updated_at = now()""")) {
                ps.setLong(1, user);
                ps.setInt(2, state);
                ps.setString(3, user + "-1");
                return ps.executeUpdate();
            }
        });
    }

    /** Writes a whole following row at once (ids ascending, times aligned). */
    void writeFollowing(long follower, long[] ids, long[] times) throws SQLException {
        Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWING, follower), c -> {
            FollowingRow row = following.lockOrCreate(c, follower);
            return following.writeNextVersion(c, row, ids, times);
        });
    }

    /** Writes a whole follower row at once ({@code (time, id)} ascending). */
    void writeFollowers(long followee, long[] ids, long[] times) throws SQLException {
        Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWER, followee), c -> {
            FollowerRow row = followers.lockOrCreate(c, followee);
            return followers.writeNextVersion(c, row, ids, times, ids.length, false);
        });
    }

    /** Writes a celebrity: an empty follower row marked celebrity plus pages of {@code pageSize} entries. */
    void writeCelebrity(long followee, long[] ids, long[] times, int pageSize) throws SQLException {
        Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWER, followee), c -> {
            FollowerRow row = followers.lockOrCreate(c, followee);
            followers.writeNextVersion(c, row, new long[0], new long[0], ids.length, true);
            for (int from = 0, page = 0; from < ids.length; from += pageSize, page++) {
                int to = Math.min(ids.length, from + pageSize);
                pages.upsert(c, new CelebrityPage(followee, page, Arrays.copyOfRange(ids, from, to),
                        Arrays.copyOfRange(times, from, to)));
            }
            return null;
        });
    }
}
