package dev.socialgraph.check.store;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.SqlErrors;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * What every adapter of this package shares: read-only access to both shard groups (DESIGN.md 2), with auto-commit
 * and no locks. A database that cannot be reached raises {@link ShardUnavailableException}; every other database
 * error is a bug and propagates as {@link IllegalStateException} ({@link SqlErrors}, the one classification).
 *
 * <p>Shards can move between databases while the service runs (docs/shard-moves.md). A user's rows are read with
 * {@link ShardDataSources#readUser} ({@link #user}), which goes to the new owner once the old one says the shard moved
 * in a map newer than this instance's. Reads of many users or of whole databases ({@link #database}) go by the map
 * of now instead.
 */
final class ShardReads {

    private final ShardDataSources dataSources;

    ShardReads(ShardDataSources dataSources) {
        this.dataSources = dataSources;
    }

    /** Work on one connection. */
    @FunctionalInterface
    interface Read<T> {
        T run(Connection connection) throws SQLException;
    }

    ShardDataSources dataSources() {
        return dataSources;
    }

    /** Reads {@code userId}'s rows of {@code group} where its shard lives, following a move. */
    <T> T user(ShardGroup group, long userId, Read<T> work) {
        try {
            return dataSources.readUser(group, userId, work::run);
        } catch (SQLException e) {
            throw failure(userId, e);
        }
    }

    /** Reads from one database; {@code userId} only names the read in errors ({@code 0} for a scan). */
    static <T> T database(DataSource ds, long userId, Read<T> work) {
        try (Connection c = ds.getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw failure(userId, e);
        }
    }

    /** The row of {@code userId} in {@code rows} (follows, blocks or mutes), an empty row when absent. */
    FollowingRow followingRow(FollowingRepository rows, long userId) {
        return user(ShardGroup.FOLLOWING, userId, c -> rows.find(c, userId).orElseGet(() -> FollowingRow.empty(userId)));
    }

    /** Each physical database of the following group once, by the map of now. */
    List<DataSource> followingDatabases() {
        Map<DataSource, Boolean> seen = new IdentityHashMap<>();
        List<DataSource> out = new ArrayList<>();
        for (ShardRange range : dataSources.shardMap().ranges(ShardGroup.FOLLOWING)) {
            DataSource ds = dataSources.forRange(range);
            if (seen.put(ds, Boolean.TRUE) == null) {
                out.add(ds);
            }
        }
        return out;
    }

    /** The following databases holding one of {@code shards}, each with the ones of {@code shards} it holds. */
    Map<DataSource, int[]> followingDatabases(int[] shards) {
        Map<DataSource, int[]> byDatabase = new LinkedHashMap<>();
        for (int shard : shards) {
            DataSource ds = dataSources.forRange(dataSources.shardMap().rangeOfShard(ShardGroup.FOLLOWING, shard));
            int[] held = byDatabase.getOrDefault(ds, new int[0]);
            int[] grown = Arrays.copyOf(held, held.length + 1);
            grown[held.length] = shard;
            byDatabase.put(ds, grown);
        }
        return byDatabase;
    }

    /**
     * {@code userIds} grouped by the following database holding each, by the map of now (so for up to one poll
     * interval a moved user's frozen row on its old owner): the many-user reads' one statement per database.
     *
     * @param userIds positive user ids
     * @return each database once, with the ids of {@code userIds} it holds, in their order
     */
    Map<DataSource, long[]> followingDatabasesOf(long[] userIds) {
        Map<DataSource, long[]> byDatabase = new IdentityHashMap<>();
        Map<DataSource, Integer> counts = new IdentityHashMap<>();
        for (long id : userIds) {
            DataSource ds = dataSources.forUser(ShardGroup.FOLLOWING, id);
            int n = counts.getOrDefault(ds, 0);
            byDatabase.computeIfAbsent(ds, k -> new long[userIds.length])[n] = id;
            counts.put(ds, n + 1);
        }
        byDatabase.replaceAll((ds, ids) -> Arrays.copyOf(ids, counts.get(ds)));
        return byDatabase;
    }

    private static RuntimeException failure(long userId, SQLException e) {
        return SqlErrors.translate(e, "shard database of user " + userId, "shard read for user " + userId);
    }
}
