package dev.socialgraph.store.account;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * JDBC access to {@code count_exclusions} and {@code count_offsets} (shard migration V6), on the caller's connection
 * to the counted user's shard ({@link Counted#group()}). Stateless and thread-safe.
 *
 * <p>Each change is one statement that changes the exclusion row and the offset together, so it is idempotent on
 * its own: adding an exclusion that exists, or removing one that does not, leaves the offset as it is. A resumed job
 * may therefore repeat any change.
 */
public final class CountExclusionRepository {

    private static final String EXCLUDE = """
            WITH added AS (
                 INSERT INTO count_exclusions (user_id, counted, other_id) VALUES (?, ?, ?)
                 ON CONFLICT DO NOTHING RETURNING user_id, counted)
            INSERT INTO count_offsets (user_id, counted, excluded)
            SELECT user_id, counted, 1 FROM added
            ON CONFLICT (user_id, counted) DO UPDATE SET excluded = count_offsets.excluded + 1
            """;

    private static final String INCLUDE = """
            WITH removed AS (
                 DELETE FROM count_exclusions WHERE user_id = ? AND counted = ? AND other_id = ?
                 RETURNING user_id, counted)
            UPDATE count_offsets o SET excluded = o.excluded - 1
              FROM removed r WHERE o.user_id = r.user_id AND o.counted = r.counted
            """;

    private static final String OFFSET = "SELECT excluded FROM count_offsets WHERE user_id = ? AND counted = ?";

    /**
     * A count less its offset in one statement (one round trip): the row's count column of the counted user, less
     * the users taken out of it, never below 0; 0 without a row. {@code :count} is the counted row's subquery
     * (relation 0: follows).
     */
    private static final String VISIBLE_COUNT = """
            SELECT greatest(0, coalesce((:count), 0)
                   - coalesce((SELECT excluded FROM count_offsets WHERE user_id = ? AND counted = ?), 0))
            """;

    private static final String VISIBLE_FOLLOWING = VISIBLE_COUNT.replace(":count",
            "SELECT following_count FROM following_adjacency WHERE follower_id = ? AND relation = 0");

    private static final String VISIBLE_FOLLOWERS = VISIBLE_COUNT.replace(":count",
            "SELECT follower_count FROM follower_adjacency WHERE followee_id = ? AND relation = 0");

    private static final String EXCLUDES = """
            SELECT EXISTS (SELECT 1 FROM count_exclusions WHERE user_id = ? AND counted = ? AND other_id = ?)
            """;

    private static final String DELETE_EXCLUSIONS = "DELETE FROM count_exclusions WHERE user_id = ? AND counted = ?";

    private static final String DELETE_OFFSET = "DELETE FROM count_offsets WHERE user_id = ? AND counted = ?";

    /**
     * Takes {@code otherId} out of {@code userId}'s count, unless already out.
     *
     * @return whether the exclusion was added (and the offset raised by one)
     */
    public boolean exclude(Connection connection, long userId, Counted counted, long otherId) throws SQLException {
        return change(connection, EXCLUDE, userId, counted, otherId);
    }

    /**
     * Puts {@code otherId} back into {@code userId}'s count, if it was out.
     *
     * @return whether an exclusion was removed (and the offset lowered by one)
     */
    public boolean include(Connection connection, long userId, Counted counted, long otherId) throws SQLException {
        return change(connection, INCLUDE, userId, counted, otherId);
    }

    /** Whether {@code otherId} is out of {@code userId}'s count. */
    public boolean excludes(Connection connection, long userId, Counted counted, long otherId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(EXCLUDES)) {
            ps.setLong(1, userId);
            ps.setShort(2, counted.code());
            ps.setLong(3, otherId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /**
     * A follow count of {@code userId} as readers see it: the count column of its row ({@code following_count} of
     * the following row, {@code follower_count} of the follower row) less the users taken out of it, in one
     * statement on the connection to {@code counted}'s shard of the user.
     *
     * @param connection a connection to the database of {@code userId}'s shard of {@link Counted#group()}
     * @param userId     positive user id
     * @param counted    which count
     * @return {@code >= 0}; 0 when the user has no row
     * @throws SQLException as the database reported it
     */
    public long visibleCount(Connection connection, long userId, Counted counted) throws SQLException {
        String sql = counted == Counted.FOLLOWING ? VISIBLE_FOLLOWING : VISIBLE_FOLLOWERS;
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setLong(1, userId);
            ps.setLong(2, userId);
            ps.setShort(3, counted.code());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * What a count read subtracts from the row's count: the number of users taken out of it; 0 without a row. One
     * primary-key lookup.
     */
    public long offset(Connection connection, long userId, Counted counted) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(OFFSET)) {
            ps.setLong(1, userId);
            ps.setShort(2, counted.code());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    /**
     * Deletes every exclusion of {@code userId}'s count and its offset: an erased user's own.
     *
     * @return the rows deleted, exclusions and offset together
     */
    public int deleteAll(Connection connection, long userId, Counted counted) throws SQLException {
        int deleted = 0;
        for (String sql : new String[] {DELETE_EXCLUSIONS, DELETE_OFFSET}) {
            try (PreparedStatement ps = connection.prepareStatement(sql)) {
                ps.setLong(1, userId);
                ps.setShort(2, counted.code());
                deleted += ps.executeUpdate();
            }
        }
        return deleted;
    }

    private static boolean change(Connection connection, String sql, long userId, Counted counted, long otherId)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setLong(1, userId);
            ps.setShort(2, counted.code());
            ps.setLong(3, otherId);
            return ps.executeUpdate() == 1;
        }
    }
}
