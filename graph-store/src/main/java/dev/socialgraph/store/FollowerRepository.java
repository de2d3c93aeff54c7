package dev.socialgraph.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * JDBC access to {@code follower_adjacency} rows (DESIGN.md 2.2), on the caller's transaction. The follower row's
 * lock also guards the followee's celebrity pages: whoever changes pages holds the row lock first.
 * Stateless and thread-safe.
 */
public final class FollowerRepository {

    private static final String COLUMNS = "followee_id, follower_ids, followed_at, follower_count, version, celebrity";

    private static final String FIND = """
            SELECT %s FROM follower_adjacency WHERE followee_id = ?
            """.formatted(COLUMNS);

    private static final String LOCK = """
            SELECT %s FROM follower_adjacency WHERE followee_id = ? FOR UPDATE
            """.formatted(COLUMNS);

    private static final String CREATE_IF_ABSENT = """
            INSERT INTO follower_adjacency (followee_id) VALUES (?) ON CONFLICT (followee_id) DO NOTHING
            """;

    private static final String WRITE = """
            UPDATE follower_adjacency
               SET follower_ids = ?, followed_at = ?, follower_count = ?, celebrity = ?, version = ?, updated_at = now()
             WHERE followee_id = ? AND version = ?
            """;

    private static final String FIND_MANY = """
            SELECT %s FROM follower_adjacency WHERE followee_id = ANY (?)
            """.formatted(COLUMNS);

    private static final String COUNT = """
            SELECT follower_count FROM follower_adjacency WHERE followee_id = ?
            """;

    private static final String SCAN = """
            SELECT %s FROM follower_adjacency WHERE followee_id > ? ORDER BY followee_id LIMIT ?
            """.formatted(COLUMNS);

    /**
     * The number of followers of {@code followeeId}, from the row's count column (no array is read; a celebrity's
     * pages are not touched).
     *
     * @return {@code >= 0}; 0 when nobody has ever followed {@code followeeId}
     */
    public long count(Connection connection, long followeeId) throws SQLException {
        return Jdbc.one(connection, COUNT, followeeId, rs -> rs.getLong(1)).orElse(0L);
    }

    /** Reads a row without locking; empty when nobody has ever followed {@code followeeId}. */
    public Optional<FollowerRow> find(Connection connection, long followeeId) throws SQLException {
        return Jdbc.one(connection, FIND, followeeId, FollowerRepository::map);
    }

    /** Locks a row for the rest of the transaction; empty (nothing locked) when it does not exist. */
    public Optional<FollowerRow> lock(Connection connection, long followeeId) throws SQLException {
        return Jdbc.one(connection, LOCK, followeeId, FollowerRepository::map);
    }

    /** Creates the row when absent (no followers, version 0), then locks it for the rest of the transaction. */
    public FollowerRow lockOrCreate(Connection connection, long followeeId) throws SQLException {
        Jdbc.update(connection, CREATE_IF_ABSENT, followeeId);
        return lock(connection, followeeId).orElseThrow(
                () -> new IllegalStateException("follower row " + followeeId + " vanished after insert"));
    }

    /**
     * Stores a row read under lock with {@code version = locked.version() + 1}.
     *
     * @param locked        the row as read under lock in this transaction
     * @param followerIds   ids kept in the row, arrival order; must be empty when {@code celebrity}
     * @param followedAt    aligned epoch-ms times, ascending (ties by id)
     * @param followerCount total followers, row and pages
     * @param celebrity     whether the followers live in celebrity pages
     * @return the row as written
     * @throws IllegalStateException when the stored version is no longer {@code locked.version()}
     */
    public FollowerRow writeNextVersion(Connection connection, FollowerRow locked, long[] followerIds, long[] followedAt,
                                        long followerCount, boolean celebrity) throws SQLException {
        FollowerRow next = new FollowerRow(locked.followeeId(), followerIds, followedAt, followerCount,
                locked.version() + 1, celebrity);
        try (PreparedStatement ps = connection.prepareStatement(WRITE)) {
            ps.setArray(1, SqlArrays.bigintArray(connection, followerIds));
            ps.setArray(2, SqlArrays.bigintArray(connection, followedAt));
            ps.setLong(3, followerCount);
            ps.setBoolean(4, celebrity);
            ps.setLong(5, next.version());
            ps.setLong(6, locked.followeeId());
            ps.setLong(7, locked.version());
            if (ps.executeUpdate() != 1) {
                throw new IllegalStateException("follower row " + locked.followeeId() + " is not at version "
                        + locked.version() + "; was it locked in this transaction?");
            }
        }
        return next;
    }

    /** Reads several rows of this database without locking; absent users are left out, order unspecified. */
    public List<FollowerRow> findAll(Connection connection, long[] followeeIds) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(FIND_MANY)) {
            ps.setArray(1, SqlArrays.bigintArray(connection, followeeIds));
            return Jdbc.many(ps, FollowerRepository::map);
        }
    }

    /** Reads rows in followee-id order after {@code afterFolloweeId} (exclusive; 0 to start), for scans. */
    public List<FollowerRow> scan(Connection connection, long afterFolloweeId, int limit) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(SCAN)) {
            ps.setLong(1, afterFolloweeId);
            ps.setInt(2, limit);
            return Jdbc.many(ps, FollowerRepository::map);
        }
    }


    private static FollowerRow map(ResultSet rs) throws SQLException {
        return new FollowerRow(rs.getLong("followee_id"), SqlArrays.longs(rs, "follower_ids"),
                SqlArrays.longs(rs, "followed_at"), rs.getLong("follower_count"), rs.getLong("version"),
                rs.getBoolean("celebrity"));
    }
}
