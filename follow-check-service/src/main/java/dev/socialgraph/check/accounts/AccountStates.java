package dev.socialgraph.check.accounts;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.ShardDataSources;
import dev.socialgraph.store.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.function.ObjIntConsumer;

/**
 * Reads of {@code account_states} (shard migration V6), the home of a user's account state in the user's following
 * shard: one user's state (a read with that user's follow token, which must see the state it just wrote) and every
 * row a database changed since a time (the view's feed).
 */
public final class AccountStates {

    /** {@code account_states.state} of an active user; also what no row means. */
    public static final int ACTIVE = 0;
    /** {@code account_states.state} of a deactivated user. */
    public static final int DEACTIVATED = 1;
    /** {@code account_states.state} of an erased user. */
    public static final int ERASED = 2;

    private static final String STATE = "SELECT state FROM account_states WHERE user_id = ?";
    private static final String CHANGED_SINCE = "SELECT user_id, state FROM account_states WHERE updated_at >= ?";

    private final ShardDataSources dataSources;

    /**
     * @param dataSources the shard databases
     */
    public AccountStates(ShardDataSources dataSources) {
        this.dataSources = dataSources;
    }

    /**
     * {@code userId}'s state, read from its following shard.
     *
     * @param userId positive
     * @return {@link #ACTIVE}, {@link #DEACTIVATED} or {@link #ERASED}
     * @throws ShardUnavailableException when that database is down
     */
    public int state(long userId) {
        try {
            return dataSources.readUser(ShardGroup.FOLLOWING, userId, c -> {
                try (PreparedStatement ps = c.prepareStatement(STATE)) {
                    ps.setLong(1, userId);
                    try (ResultSet rs = ps.executeQuery()) {
                        return rs.next() ? rs.getInt(1) : ACTIVE;
                    }
                }
            });
        } catch (SQLException e) {
            if (SqlErrors.classify(e) == SqlErrors.Kind.UNAVAILABLE) {
                throw new ShardUnavailableException("shard database of user " + userId + " is unavailable", e);
            }
            throw new IllegalStateException("account state read failed for user " + userId, e);
        }
    }

    /**
     * Every state row of one database whose {@code updated_at} is at or after {@code since}.
     *
     * @param c     a connection to the database, auto-commit
     * @param since inclusive lower bound by the database's clock
     * @param sink  receives {@code (userId, state)} per row
     * @throws SQLException when the database fails
     */
    static void changedSince(Connection c, OffsetDateTime since, ObjIntConsumer<Long> sink) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(CHANGED_SINCE)) {
            ps.setObject(1, since);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    sink.accept(rs.getLong(1), rs.getInt(2));
                }
            }
        }
    }

    /**
     * The database's clock now.
     *
     * @param c a connection
     * @return {@code now()} of a fresh statement
     * @throws SQLException when the database fails
     */
    static OffsetDateTime now(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT now()"); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class);
        }
    }
}
