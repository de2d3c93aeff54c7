package dev.socialgraph.reconciler.repair;

import dev.socialgraph.store.SqlArrays;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;

/**
 * Which users are inactive (deactivated or erased), read from {@code account_states} (shard migration V6,
 * docs/account-lifecycle.md). A user's row lives in the user's FOLLOWING shard; no row, or state 0, is active.
 *
 * <p>Why the reconciler asks: while a user is inactive, the account jobs own that user's edges. A deactivated user's
 * edges stay where they are, hidden at read time, with count exclusions that assume exactly those edges; an erased
 * user's edges are being deleted, follower side first. A repair of such a pair from the following side would put a
 * hidden edge back into a follower row (and off its exclusion) or bring an erased edge back, so every pair with an
 * inactive user is left alone.
 */
public final class AccountStates {

    private static final String INACTIVE = "SELECT user_id FROM account_states WHERE user_id = ANY (?) AND state <> 0";

    private AccountStates() {
    }

    /**
     * The inactive users among {@code userIds}, by the rows of one database.
     *
     * @param connection a FOLLOWING database holding the state rows of {@code userIds} (the rows of other users are
     *                   not there, so they read as active: group the ids by their following shard)
     * @param userIds    positive user ids
     * @return the ids whose state is deactivated or erased; empty when none
     * @throws SQLException when the database fails
     */
    public static Set<Long> inactive(Connection connection, long[] userIds) throws SQLException {
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
}
