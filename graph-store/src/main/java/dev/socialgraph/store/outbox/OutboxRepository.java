package dev.socialgraph.store.outbox;

import dev.socialgraph.common.event.AccountEvent;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.store.sql.Jdbc;
import dev.socialgraph.store.sql.SqlArrays;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * JDBC access to {@code follow_outbox} (DESIGN.md 3): appended in the transaction of the row change, read and
 * marked by the relay in id order, pruned after a retention. Each appended row also stores the trace context current
 * in the appending thread ({@link EventTracing#current()}), which the relay sends on with the event. Stateless and
 * thread-safe.
 */
public final class OutboxRepository {

    private static final String COLUMNS =
            "id, follower_id, followee_id, type, followed_at, version, created_at, published_at, trace_parent,"
                    + " request_id";

    private static final String APPEND = """
            INSERT INTO follow_outbox (follower_id, followee_id, type, followed_at, version, trace_parent, request_id)
            VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id
            """;

    private static final String UNPUBLISHED = """
            SELECT %s FROM follow_outbox WHERE published_at IS NULL ORDER BY id LIMIT ?
            """.formatted(COLUMNS);

    private static final String AFTER = """
            SELECT %s FROM follow_outbox WHERE id > ? ORDER BY id LIMIT ?
            """.formatted(COLUMNS);

    private static final String MARK_PUBLISHED = """
            UPDATE follow_outbox SET published_at = now() WHERE id = ANY (?) AND published_at IS NULL
            """;

    private static final String PRUNE = """
            DELETE FROM follow_outbox WHERE published_at IS NOT NULL AND published_at < ?
            """;

    private static final String IN_FLIGHT = """
            SELECT DISTINCT follower_id FROM follow_outbox
             WHERE followee_id = ? AND follower_id = ANY (?) AND type IN (?, ?)
               AND (published_at IS NULL OR created_at > now() - make_interval(secs => ?))
            """;

    private static final String BACKLOG = """
            SELECT count(*) AS unpublished, min(created_at) AS oldest FROM follow_outbox WHERE published_at IS NULL
            """;

    /**
     * Age of the oldest unpublished row by the database clock. Looks at the first 1,000 unpublished rows in id order
     * (the relay's order, through the backlog's partial index), so it costs the same whatever the backlog's size;
     * the minimum over them covers rows whose transaction started before a lower id's.
     */
    private static final String OLDEST_UNPUBLISHED_AGE = """
            SELECT (EXTRACT(EPOCH FROM clock_timestamp() - min(created_at)) * 1000)::bigint AS age_ms
            FROM (SELECT created_at FROM follow_outbox WHERE published_at IS NULL ORDER BY id LIMIT 1000) backlog
            """;

    private final EventTracing tracing;

    /** A repository whose rows carry no trace context (tools, tests). */
    public OutboxRepository() {
        this(EventTracing.NONE);
    }

    /**
     * A repository whose appended rows carry the trace context current in the appending thread.
     *
     * @param tracing where that context comes from
     */
    public OutboxRepository(EventTracing tracing) {
        this.tracing = Objects.requireNonNull(tracing, "tracing");
    }

    /**
     * Source ids among {@code sourceIds} with an unpublished or recent outbox row of {@code relation} for the pair
     * {@code (sourceId, targetId)} in this database: changes the follower side may not show yet (the reconciler's
     * in-flight test, DESIGN.md 7). {@code follow_outbox} has no index on the pair; the outbox is pruned after
     * publication, and the reconciler asks only about pairs it already found diverged, so the scan stays small. An
     * index on {@code (followee_id, follower_id)} would make it independent of the backlog size.
     *
     * @param relation  whose changes count
     * @param targetId  the followee (blocked user)
     * @param sourceIds followers (blockers), any order
     * @param threshold how recent a published row still counts as in flight
     * @return the sources with such a row
     */
    public Set<Long> inFlight(Connection connection, Relation relation, long targetId, long[] sourceIds,
                              Duration threshold) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(IN_FLIGHT)) {
            ps.setLong(1, targetId);
            ps.setArray(2, SqlArrays.bigintArray(connection, sourceIds));
            ps.setString(3, FollowEvent.Type.of(relation, true).wireName());
            ps.setString(4, FollowEvent.Type.of(relation, false).wireName());
            ps.setDouble(5, threshold.toMillis() / 1000.0);
            Set<Long> out = new HashSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
            return out;
        }
    }

    /**
     * Appends a follow's or an unfollow's outbox row in the caller's transaction.
     *
     * @param follow     {@code true} for a follow, {@code false} for an unfollow
     * @param followedAt epoch-ms time of the (removed) follow
     * @param version    the following row's version after the change, {@code >= 1}
     * @return the new row's id
     */
    public long append(Connection connection, long followerId, long followeeId, boolean follow, long followedAt,
                       long version) throws SQLException {
        return append(connection, follow ? FollowEvent.Type.FOLLOW : FollowEvent.Type.UNFOLLOW, followerId,
                followeeId, followedAt, version);
    }

    /**
     * Appends an outbox row of any relation in the caller's transaction.
     *
     * @param type       the change: its relation and whether the edge was created
     * @param sourceId   the follower, blocker or muter, positive
     * @param targetId   the followee, blocked or muted user, positive, not {@code sourceId}
     * @param createdAt  epoch-ms time the edge was created (for a removal, of the removed edge)
     * @param version    the source's row version of that relation after the change, {@code >= 1}
     * @return the new row's id
     */
    public long append(Connection connection, FollowEvent.Type type, long sourceId, long targetId, long createdAt,
                       long version) throws SQLException {
        return append(connection, type.wireName(), sourceId, targetId, createdAt, version);
    }

    private long append(Connection connection, String type, long sourceId, long targetId, long createdAt,
                        long version) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(APPEND)) {
            ps.setLong(1, sourceId);
            ps.setLong(2, targetId);
            ps.setString(3, type);
            ps.setLong(4, createdAt);
            ps.setLong(5, version);
            OutboxTrace trace = tracing.current();
            ps.setString(6, trace.traceParent());
            ps.setString(7, trace.requestId());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * Appends an account change's outbox row in the caller's transaction, the transaction that changes the state.
     *
     * @param type      deactivate, reactivate or erase
     * @param userId    the account's user, positive
     * @param changedAt epoch ms of the change
     * @param version   the state's version after the change, {@code >= 1}
     * @return the new row's id
     */
    public long appendAccount(Connection connection, AccountEvent.Type type, long userId, long changedAt,
                              long version) throws SQLException {
        return append(connection, type.wireName(), userId, userId, changedAt, version);
    }

    /** The oldest {@code limit} unpublished rows in id order (the relay's next batch). */
    public List<OutboxEntry> unpublished(Connection connection, int limit) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(UNPUBLISHED)) {
            ps.setInt(1, limit);
            return Jdbc.many(ps, OutboxRepository::map);
        }
    }

    /** Rows with id greater than {@code afterId}, published or not, in id order (for followers of the stream). */
    public List<OutboxEntry> after(Connection connection, long afterId, int limit) throws SQLException {
        return Jdbc.after(connection, AFTER, afterId, limit, OutboxRepository::map);
    }

    /** Marks rows published; rows already marked are left alone. Returns the number newly marked. */
    public int markPublished(Connection connection, long[] ids) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(MARK_PUBLISHED)) {
            ps.setArray(1, SqlArrays.bigintArray(connection, ids));
            return ps.executeUpdate();
        }
    }

    /** Deletes rows published before {@code cutoff}; returns how many. Unpublished rows are never deleted. */
    public int prunePublishedBefore(Connection connection, Instant cutoff) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(PRUNE)) {
            ps.setTimestamp(1, Timestamp.from(cutoff));
            return ps.executeUpdate();
        }
    }

    /**
     * How long the oldest unpublished row has waited, by the database clock (the feed-lag guard's outbox probe).
     *
     * @return ms, {@code >= 0}, or {@code -1} when nothing is unpublished
     */
    public long oldestUnpublishedAgeMillis(Connection connection) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(OLDEST_UNPUBLISHED_AGE);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            long age = rs.getLong("age_ms");
            return rs.wasNull() ? -1 : Math.max(0, age);
        }
    }

    /** Size and age of the unpublished backlog (outbox backlog gauges). */
    public OutboxBacklog backlog(Connection connection) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(BACKLOG); ResultSet rs = ps.executeQuery()) {
            rs.next();
            Timestamp oldest = rs.getTimestamp("oldest");
            return new OutboxBacklog(rs.getLong("unpublished"), oldest == null ? null : oldest.toInstant());
        }
    }

    private static OutboxEntry map(ResultSet rs) throws SQLException {
        Timestamp published = rs.getTimestamp("published_at");
        String wireName = rs.getString("type");
        AccountEvent.Type account = AccountEvent.Type.byWireName(wireName).orElse(null);
        FollowEvent.Type type = account != null ? null : FollowEvent.Type.byWireName(wireName)
                .orElseThrow(() -> new SQLException("follow_outbox.type " + wireName + " is not a known change"));
        return new OutboxEntry(rs.getLong("id"), rs.getLong("follower_id"), rs.getLong("followee_id"),
                type, rs.getLong("followed_at"), rs.getLong("version"),
                rs.getTimestamp("created_at").toInstant(), published == null ? null : published.toInstant(),
                new OutboxTrace(rs.getString("trace_parent"), rs.getString("request_id")), account);
    }
}
