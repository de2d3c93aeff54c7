package dev.socialgraph.store.following;

import dev.socialgraph.store.sql.SqlArrays;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Following rows (follows only, {@code relation = 0}) of some logical shards only, for the bloom filter of a check
 * instance that owns a slice of the shards (shard-affine reads). A row's logical shard is {@code mod(follower_id, logicalShardCount)} (ids are
 * positive, so this is {@code ShardMap.logicalShard}). There is no index on the shard, so PostgreSQL filters while
 * it reads (the scan walks the primary key); what the filter saves is shipping and decoding the other shards' rows.
 */
public final class FollowingSliceRepository {

    private static final String EDGE_COUNT = """
            SELECT coalesce(sum(following_count), 0)::bigint FROM following_adjacency
             WHERE relation = 0 AND mod(follower_id, ?) = ANY (?)
            """;

    private static final String SCAN = """
            SELECT follower_id, following_ids FROM following_adjacency
             WHERE follower_id > ? AND relation = 0 AND mod(follower_id, ?) = ANY (?)
             ORDER BY follower_id LIMIT ?
            """;

    /**
     * One row of a slice scan.
     *
     * @param followerId   the follower, a positive user id
     * @param followingIds whom it follows, in arrival order
     */
    public record Row(long followerId, long[] followingIds) {
    }

    /**
     * The number of edges of the followers in {@code shards} stored in this database.
     *
     * @param logicalShardCount the deployment's logical shard count
     * @param shards            logical shards, {@code 0..logicalShardCount-1}
     * @return the sum of their rows' {@code following_count}
     */
    public long edgeCount(Connection connection, int logicalShardCount, int[] shards) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(EDGE_COUNT)) {
            ps.setLong(1, logicalShardCount);
            ps.setArray(2, shardArray(connection, shards));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * Rows of the followers in {@code shards}, in follower-id order.
     *
     * @param logicalShardCount the deployment's logical shard count
     * @param shards            logical shards, {@code 0..logicalShardCount-1}
     * @param afterFollowerId   exclusive lower bound; 0 to start
     * @param limit             most rows, {@code >= 1}
     * @return up to {@code limit} rows; fewer at the end
     */
    public List<Row> scan(Connection connection, int logicalShardCount, int[] shards, long afterFollowerId, int limit)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(SCAN)) {
            ps.setLong(1, afterFollowerId);
            ps.setLong(2, logicalShardCount);
            ps.setArray(3, shardArray(connection, shards));
            ps.setInt(4, limit);
            try (ResultSet rs = ps.executeQuery()) {
                List<Row> rows = new ArrayList<>();
                while (rs.next()) {
                    rows.add(new Row(rs.getLong("follower_id"), SqlArrays.longs(rs, "following_ids")));
                }
                return rows;
            }
        }
    }

    private static Array shardArray(Connection connection, int[] shards) throws SQLException {
        Long[] boxed = new Long[shards.length]; // bigint[], the type of mod(bigint, bigint)
        for (int i = 0; i < shards.length; i++) {
            boxed[i] = (long) shards[i];
        }
        return connection.createArrayOf("bigint", boxed);
    }
}
