package dev.socialgraph.store.account;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.store.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * The erase job's own statements over a user's adjacency rows, on the caller's connection: the deletion of every
 * row of the user, and the one reverse lookup the follower side cannot answer (who mutes the user: mutes keep no
 * reverse side). Stateless and thread-safe.
 */
public final class AccountRowsRepository {

    private static final String DELETE_FOLLOWING = "DELETE FROM following_adjacency WHERE follower_id = ?";

    private static final String DELETE_FOLLOWER = "DELETE FROM follower_adjacency WHERE followee_id = ?";

    private static final String DELETE_PAGES = "DELETE FROM celebrity_followers_page WHERE followee_id = ?";

    /** Through the partial index of non-follow rows; the containment test reads each mute row of the database. */
    private static final String MUTERS = Sql.forRelation("""
            SELECT follower_id FROM following_adjacency
             WHERE relation = :relation AND following_ids @> ARRAY[?]::bigint[]
             ORDER BY follower_id
            """, Relation.MUTE);

    /**
     * Deletes the user's following rows of every relation, in the user's FOLLOWING shard.
     *
     * @return rows deleted
     */
    public int deleteFollowingRows(Connection connection, long userId) throws SQLException {
        return delete(connection, DELETE_FOLLOWING, userId);
    }

    /**
     * Deletes the user's follower rows and celebrity pages of every relation, in the user's FOLLOWER shard.
     *
     * @return rows and pages deleted
     */
    public int deleteFollowerRows(Connection connection, long userId) throws SQLException {
        return delete(connection, DELETE_PAGES, userId) + delete(connection, DELETE_FOLLOWER, userId);
    }

    /**
     * The users of this (following) database who mute {@code userId}, ascending.
     *
     * @return their ids, possibly empty
     */
    public long[] muters(Connection connection, long userId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(MUTERS)) {
            ps.setLong(1, userId);
            long[] ids = new long[16];
            int n = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (n == ids.length) {
                        ids = Arrays.copyOf(ids, n * 2);
                    }
                    ids[n++] = rs.getLong(1);
                }
            }
            return Arrays.copyOf(ids, n);
        }
    }

    private static int delete(Connection connection, String sql, long userId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setLong(1, userId);
            return ps.executeUpdate();
        }
    }
}
