package dev.socialgraph.reconciler.repair;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.postgresql.PGConnection;

/**
 * Reads the outbox of a following database for events of given pairs that may still be on their way to the
 * follower side: unpublished rows, and rows committed within the repair threshold (a recent unfollow in
 * particular, whose removal the cdc-consumer may not have applied yet).
 *
 * <p>{@code follow_outbox} has no index on the pair; the outbox is pruned after publication, and the
 * reconciler asks only about pairs it already found diverged, so the scan stays small. An index on
 * {@code (followee_id, follower_id)} in the shard schema would make it independent of the backlog size.
 */
final class InFlightRepository {

    private static final String IN_FLIGHT = """
            SELECT DISTINCT follower_id FROM follow_outbox
             WHERE followee_id = ? AND follower_id = ANY (?)
               AND (published_at IS NULL OR created_at > now() - make_interval(secs => ?))
            """;

    /**
     * Follower ids among {@code followerIds} with an unpublished or recent outbox row for the pair
     * {@code (followerId, followeeId)}, in this following database.
     *
     * @param threshold how recent a published row still counts as in flight
     */
    Set<Long> inFlight(Connection connection, long followeeId, long[] followerIds, Duration threshold)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(IN_FLIGHT)) {
            ps.setLong(1, followeeId);
            ps.setArray(2, connection.unwrap(PGConnection.class).createArrayOf("int8", followerIds));
            ps.setDouble(3, threshold.toMillis() / 1000.0);
            Set<Long> out = new HashSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
            return out;
        }
    }
}
