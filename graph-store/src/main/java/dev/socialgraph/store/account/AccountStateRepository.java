package dev.socialgraph.store.account;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.store.sql.Sql;
import dev.socialgraph.store.sql.SqlArrays;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Set;
import java.util.HashSet;

/**
 * JDBC access to {@code account_states} (shard migrations V6 and V10: a user's state and protection), in the user's
 * FOLLOWING shard, on the caller's connection. Stateless and thread-safe.
 *
 * <p>A state change is serialized with the user's own writes by the user's following rows, not by this table: the
 * change locks (creating them if absent) the user's follow, block and mute rows, and a write reads the state after it
 * locked its row ({@link #state}); so a write either commits before the change (and the change's job sees its edge)
 * or reads the new state and is refused.
 */
public final class AccountStateRepository {

    private static final String FIND = """
            SELECT user_id, state, version, changed_at, job_id, protected FROM account_states WHERE user_id = ?
            """;

    private static final String STATE = "SELECT state FROM account_states WHERE user_id = ?";

    private static final String INACTIVE = "SELECT user_id FROM account_states WHERE user_id = ANY (?) AND state <> 0";

    /** The target side of a follow: its state, whether it blocks the follower, and its protection, in one round trip. */
    private static final String STATE_AND_BLOCK = Sql.forRelation("""
            SELECT s.state, s.protected,
                   EXISTS (SELECT 1 FROM following_adjacency
                            WHERE follower_id = ? AND relation = :relation AND following_ids @> ARRAY[?]::bigint[])
              FROM (SELECT ?::bigint AS user_id) AS target
              LEFT JOIN account_states s ON s.user_id = target.user_id
            """, Relation.BLOCK);

    private static final String UPSERT = """
            INSERT INTO account_states (user_id, state, version, changed_at, job_id, protected, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, now())
            ON CONFLICT (user_id) DO UPDATE
               SET state = EXCLUDED.state, version = EXCLUDED.version, changed_at = EXCLUDED.changed_at,
                   job_id = EXCLUDED.job_id, protected = EXCLUDED.protected, updated_at = now()
             WHERE account_states.version = EXCLUDED.version - 1
            """;

    private static final String LOCK_ROWS = """
            SELECT follower_id FROM following_adjacency WHERE follower_id = ? ORDER BY relation FOR UPDATE
            """;

    private static final String CREATE_ROWS = """
            INSERT INTO following_adjacency (follower_id, relation) VALUES (?, 0), (?, 1), (?, 2)
            ON CONFLICT (follower_id, relation) DO NOTHING
            """;

    /**
     * A target's state and whether it blocks someone, read together.
     *
     * @param state            the target's state
     * @param blocks           whether the target's block row holds the other id
     * @param protectedAccount whether the target is a protected account (its new followers need its approval)
     */
    public record TargetState(AccountState state, boolean blocks, boolean protectedAccount) {
    }

    /**
     * The user's row.
     *
     * @return the row, or {@link AccountStatus#never} for a user without one
     */
    public AccountStatus find(Connection connection, long userId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(FIND)) {
            ps.setLong(1, userId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return AccountStatus.never(userId);
                }
                return new AccountStatus(rs.getLong("user_id"), AccountState.ofCode(rs.getShort("state")),
                        rs.getLong("version"), rs.getLong("changed_at"), rs.getString("job_id"),
                        rs.getBoolean("protected"));
            }
        }
    }

    /** The user's state, one primary-key lookup: the write path's check. {@link AccountState#ACTIVE} without a row. */
    public AccountState state(Connection connection, long userId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(STATE)) {
            ps.setLong(1, userId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? AccountState.ofCode(rs.getShort(1)) : AccountState.ACTIVE;
            }
        }
    }

    /**
     * The inactive users among {@code userIds}, by the rows of one database: the reconciler's check before it repairs a
     * follower row (a pair with an inactive user is the account jobs' to change, not the reconciler's).
     *
     * @param connection a FOLLOWING database holding the state rows of {@code userIds} (other users' rows are not
     *                   there, so they read as active: group the ids by their following shard)
     * @param userIds    positive user ids
     * @return the ids whose state is deactivated or erased; empty when none
     */
    public Set<Long> inactiveAmong(Connection connection, long[] userIds) throws SQLException {
        Set<Long> out = new HashSet<>();
        if (userIds.length == 0) {
            return out;
        }
        try (PreparedStatement ps = connection.prepareStatement(INACTIVE)) {
            ps.setArray(1, SqlArrays.bigintArray(connection, userIds));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
        }
        return out;
    }

    /**
     * {@code targetId}'s state, whether {@code targetId} blocks {@code otherId}, and whether {@code targetId} is
     * protected, in one statement on the target's following shard: what a follow checks of its followee before its own
     * transaction.
     */
    public TargetState stateAndBlock(Connection connection, long targetId, long otherId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(STATE_AND_BLOCK)) {
            ps.setLong(1, targetId);
            ps.setLong(2, otherId);
            ps.setLong(3, targetId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                short code = rs.getShort(1);
                AccountState state = rs.wasNull() ? AccountState.ACTIVE : AccountState.ofCode(code);
                return new TargetState(state, rs.getBoolean(3), rs.getBoolean(2)); // protected is NULL without a row
            }
        }
    }

    /**
     * Locks the user's follow, block and mute rows for the rest of the transaction: every write by the user locks one
     * of them before it reads the user's state, so the two serialize. Always in relation order, as writes that lock
     * two rows (a block) do.
     *
     * @param createAbsent whether to create absent rows first (empty, version 0), so that a write that would create
     *                     one waits for this transaction too; a state change does so only when it will write, so a
     *                     repeated call writes nothing
     */
    public void lockUserRows(Connection connection, long userId, boolean createAbsent) throws SQLException {
        if (createAbsent) {
            try (PreparedStatement ps = connection.prepareStatement(CREATE_ROWS)) {
                ps.setLong(1, userId);
                ps.setLong(2, userId);
                ps.setLong(3, userId);
                ps.executeUpdate();
            }
        }
        try (PreparedStatement ps = connection.prepareStatement(LOCK_ROWS)) {
            ps.setLong(1, userId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    // each row returned is locked
                }
            }
        }
    }

    /**
     * Writes the next state: {@code next.version()} must be the stored version + 1 (or 1 for a user without a row).
     *
     * @throws IllegalStateException when the stored version is not {@code next.version() - 1}: the caller did not
     *                               hold {@link #lockUserRows}
     */
    public void write(Connection connection, AccountStatus next) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(UPSERT)) {
            ps.setLong(1, next.userId());
            ps.setShort(2, next.state().code());
            ps.setLong(3, next.version());
            ps.setLong(4, next.changedAt());
            ps.setString(5, next.jobId());
            ps.setBoolean(6, next.protectedAccount());
            if (ps.executeUpdate() != 1) {
                throw new IllegalStateException("account state of " + next.userId() + " is not at version "
                        + (next.version() - 1));
            }
        }
    }
}
