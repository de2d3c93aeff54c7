package dev.socialgraph.store.shard;

import dev.socialgraph.common.shard.ShardGroup;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The fence of a shard move (docs/shard-moves.md), on one shard database: PostgreSQL advisory locks per
 * (group, logical shard) and the {@code shard_moves} rows that say which shards the database gave away.
 *
 * <ul>
 *   <li>Every write transaction on a user's rows calls {@link #enter} first: a <em>shared</em> transaction lock on
 *       the user's shard, then the check that the shard still lives here. Writers never wait for each other.</li>
 *   <li>The mover takes the same locks <em>exclusively</em> ({@link #fence}) on a session of its own: that waits for
 *       the writers in flight and holds back new ones, the whole fence lasting one final copy, the outbox drain and
 *       the map switch. It then records the move ({@link #markMoved}) and releases the locks; the writers that were
 *       held back find the record and go to the new owner.</li>
 *   <li>Reads do not lock: {@link #owner} tells a reader that the rows here are frozen since the move, so it reads the
 *       new owner once it knows the newer map.</li>
 * </ul>
 *
 * <p>Lock keys use PostgreSQL's two-key form ({@code pg_advisory_xact_lock_shared(int, int)}), a key space apart
 * from the outbox relay's single-key lock: key 1 is {@link #KEY} plus the group's ordinal, key 2 the shard.
 * Costs a writer one lock and one primary-key lookup inside its transaction, in two statements sent in one round trip (see {@link #enter}).
 */
public final class ShardFence {

    /** First key of the fence locks ({@code "SG"} in ASCII, times 16), plus the group's ordinal. */
    public static final int KEY = 0x5347_0;

    private static final String ENTER = "SELECT pg_advisory_xact_lock_shared(?, ?); "
            + "SELECT map_version, moved_to FROM shard_moves WHERE shard_group = ? AND shard = ?";
    private static final String OWNER = "SELECT map_version, moved_to FROM shard_moves WHERE shard_group = ? AND shard = ?";
    private static final String FENCE = "SELECT pg_advisory_lock(?, ?)";
    private static final String UNFENCE = "SELECT pg_advisory_unlock(?, ?)";
    private static final String MARK = """
            INSERT INTO shard_moves (shard_group, shard, map_version, moved_to, moved_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (shard_group, shard) DO UPDATE SET map_version = EXCLUDED.map_version,
                moved_to = EXCLUDED.moved_to, moved_at = EXCLUDED.moved_at""";
    private static final String CLEAR = "DELETE FROM shard_moves WHERE shard_group = ? AND shard BETWEEN ? AND ?";

    private ShardFence() {
    }

    /**
     * Enters the fence of {@code shard} for the rest of the transaction and checks that the shard lives here.
     * Call first in a write transaction (auto-commit off); waits while a mover holds the fence.
     *
     * @param connection a connection in a transaction on the database the caller routed to
     * @param group      the group of the user's row
     * @param shard      the user's logical shard
     * @throws ShardMovedException when the shard was moved away from this database; nothing was written
     * @throws SQLException        on a database error (a lock wait past {@code statement_timeout} included)
     */
    public static void enter(Connection connection, ShardGroup group, int shard) throws SQLException {
        // Two statements, one round trip (pgjdbc sends both before it waits). The check must be a statement of its
        // own: under READ COMMITTED a statement's snapshot is taken when it starts, so a check in the statement that
        // waited for the lock would miss the move the fence holder committed meanwhile.
        try (PreparedStatement ps = connection.prepareStatement(ENTER)) {
            ps.setInt(1, KEY + group.ordinal());
            ps.setInt(2, shard);
            ps.setShort(3, (short) group.ordinal());
            ps.setInt(4, shard);
            ps.execute();
            if (!ps.getMoreResults()) {
                throw new SQLException("the fence check returned no result");
            }
            try (ResultSet rs = ps.getResultSet()) {
                if (rs.next()) {
                    throw new ShardMovedException(group, shard, rs.getLong(1), rs.getString(2));
                }
            }
        }
    }

    /**
     * Whether this database gave {@code shard} away, without locking: for readers.
     *
     * @param connection a connection to the database the caller routed to
     * @param group      the group
     * @param shard      the logical shard
     * @return the move's map version, or 0 when the shard lives here
     * @throws SQLException on a database error
     */
    public static long movedIn(Connection connection, ShardGroup group, int shard) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(OWNER)) {
            ps.setShort(1, (short) group.ordinal());
            ps.setInt(2, shard);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    /**
     * Takes the fence of shards {@code first..last} exclusively on a session (auto-commit on; held until
     * {@link #unfence} or the session ends). Waits for the write transactions in flight on those shards and holds new
     * ones back.
     *
     * @param session a dedicated connection to the shards' current owner, not in a transaction
     * @param group   the group
     * @param first   first logical shard, inclusive
     * @param last    last logical shard, inclusive
     * @throws SQLException on a database error; the locks taken so far stay held by the session
     */
    public static void fence(Connection session, ShardGroup group, int first, int last) throws SQLException {
        lockEach(session, FENCE, group, first, last);
    }

    /**
     * Releases what {@link #fence} took.
     *
     * @param session the session that fenced
     * @param group   the group
     * @param first   first logical shard, inclusive
     * @param last    last logical shard, inclusive
     * @throws SQLException on a database error
     */
    public static void unfence(Connection session, ShardGroup group, int first, int last) throws SQLException {
        lockEach(session, UNFENCE, group, first, last);
    }

    private static void lockEach(Connection session, String sql, ShardGroup group, int first, int last)
            throws SQLException {
        try (PreparedStatement ps = session.prepareStatement(sql)) {
            for (int shard = first; shard <= last; shard++) {
                ps.setInt(1, KEY + group.ordinal());
                ps.setInt(2, shard);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                }
            }
        }
    }

    /**
     * Records that shards {@code first..last} moved away from this database.
     *
     * @param connection a connection to the old owner
     * @param group      the group
     * @param first      first logical shard, inclusive
     * @param last       last logical shard, inclusive
     * @param mapVersion the shard map version that routes them to their new owner
     * @param movedTo    the new owner's database name
     * @param movedAt    epoch milliseconds
     * @throws SQLException on a database error
     */
    public static void markMoved(Connection connection, ShardGroup group, int first, int last, long mapVersion,
                                 String movedTo, long movedAt) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(MARK)) {
            for (int shard = first; shard <= last; shard++) {
                ps.setShort(1, (short) group.ordinal());
                ps.setInt(2, shard);
                ps.setLong(3, mapVersion);
                ps.setString(4, movedTo);
                ps.setLong(5, movedAt);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /**
     * Deletes the records of shards {@code first..last}: they live here (again).
     *
     * @param connection a connection to the new owner
     * @param group      the group
     * @param first      first logical shard, inclusive
     * @param last       last logical shard, inclusive
     * @return records deleted
     * @throws SQLException on a database error
     */
    public static int clearMoved(Connection connection, ShardGroup group, int first, int last) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(CLEAR)) {
            ps.setShort(1, (short) group.ordinal());
            ps.setInt(2, first);
            ps.setInt(3, last);
            return ps.executeUpdate();
        }
    }

    /**
     * The shards of {@code group} this database gave away.
     *
     * @param connection a connection to the database
     * @param group      the group
     * @return the logical shards, ascending
     * @throws SQLException on a database error
     */
    public static List<Integer> moved(Connection connection, ShardGroup group) throws SQLException {
        List<Integer> shards = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT shard FROM shard_moves WHERE shard_group = ? ORDER BY shard")) {
            ps.setShort(1, (short) group.ordinal());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    shards.add(rs.getInt(1));
                }
            }
        }
        return shards;
    }
}
