package dev.socialgraph.store.account;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * JDBC access to {@code account_protection} (shard migration V9), in the user's FOLLOWING shard, on the caller's
 * connection: whether a user is a protected account, whose new followers need its approval
 * (docs/decisions/0064-follow-requests.md). Stateless and thread-safe.
 */
public final class ProtectionRepository {

    private static final String FIND = """
            SELECT protected, version, changed_at FROM account_protection WHERE user_id = ?
            """;

    private static final String FIND_FOR_UPDATE = FIND.strip() + " FOR UPDATE";

    private static final String UPSERT = """
            INSERT INTO account_protection (user_id, protected, version, changed_at, updated_at)
            VALUES (?, ?, ?, ?, now())
            ON CONFLICT (user_id) DO UPDATE
               SET protected = EXCLUDED.protected, version = EXCLUDED.version, changed_at = EXCLUDED.changed_at,
                   updated_at = now()
            """;

    /**
     * A user's protection.
     *
     * @param userId           positive user id
     * @param protectedAccount whether the account is protected
     * @param version          the number of protection changes so far; 0 for a user who never changed it
     * @param changedAt        epoch ms of the last change; 0 for a user who never changed it
     */
    public record Protection(long userId, boolean protectedAccount, long version, long changedAt) {

        /** A user who never changed their protection: public, version 0. */
        public static Protection never(long userId) {
            return new Protection(userId, false, 0, 0);
        }
    }

    /**
     * The user's protection, one primary-key lookup.
     *
     * @return the row, or {@link Protection#never} for a user without one
     */
    public Protection find(Connection connection, long userId) throws SQLException {
        return read(connection, FIND, userId);
    }

    /**
     * Sets the user's protection, under the row's lock: a change bumps the version and stamps {@code now}; setting what
     * is already set writes nothing.
     *
     * @param connection a connection in a transaction on the user's FOLLOWING shard
     * @param userId     positive user id
     * @param protect    whether the account is to be protected
     * @param now        epoch ms of the change
     * @return the protection after the call, and whether this call changed it
     */
    public Change set(Connection connection, long userId, boolean protect, long now) throws SQLException {
        Protection before = read(connection, FIND_FOR_UPDATE, userId);
        if (before.protectedAccount() == protect) {
            return new Change(before, false);
        }
        Protection after = new Protection(userId, protect, before.version() + 1, now);
        try (PreparedStatement ps = connection.prepareStatement(UPSERT)) {
            ps.setLong(1, userId);
            ps.setBoolean(2, protect);
            ps.setLong(3, after.version());
            ps.setLong(4, now);
            ps.executeUpdate();
        }
        return new Change(after, true);
    }

    /**
     * The result of {@link #set}.
     *
     * @param protection the user's protection after the call
     * @param changed    whether the call changed it
     */
    public record Change(Protection protection, boolean changed) {
    }

    private static Protection read(Connection connection, String sql, long userId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setLong(1, userId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Protection(userId, rs.getBoolean(1), rs.getLong(2), rs.getLong(3))
                        : Protection.never(userId);
            }
        }
    }
}
