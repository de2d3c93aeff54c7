package dev.socialgraph.check.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Aggregates over {@code following_adjacency} of one database that graph-store's repository does not offer. */
final class FollowingStatsRepository {

    private static final String EDGE_COUNT = """
            SELECT coalesce(sum(following_count), 0)::bigint FROM following_adjacency
            """;

    /** The number of edges stored in this database. */
    long edgeCount(Connection connection) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(EDGE_COUNT); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
