package dev.socialgraph.store.follower;

import dev.socialgraph.store.sql.AdjacencyRows;
import dev.socialgraph.store.sql.Jdbc;
import dev.socialgraph.store.sql.Sql;
import dev.socialgraph.store.sql.SqlArrays;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import dev.socialgraph.common.relation.Relation;
import java.util.List;
import java.util.Optional;

/**
 * JDBC access to {@code follower_adjacency} rows (DESIGN.md 2.2), on the caller's transaction. The follower row's
 * lock also guards the followee's celebrity pages: whoever changes pages holds the row lock first. Reads, locks and
 * versioned writes follow the row protocol the following side's repository runs too ({@link AdjacencyRows}); the SQL
 * is this class's own. Stateless and thread-safe.
 *
 * <p>One instance reads and writes one {@link Relation}'s rows ({@code relation} column); the no-argument
 * constructor gives follows. The follower side of a block is the blocked user's blocked-by row: "followee" is the
 * blocked user and "followers" are the users blocking them.
 */
public final class FollowerRepository {

    private static final String COLUMNS = "followee_id, follower_ids, followed_at, follower_count, version, celebrity";

    private static final String FIND = """
            SELECT %s FROM follower_adjacency WHERE followee_id = ? AND relation = :relation
            """.formatted(COLUMNS);

    private static final String LOCK = """
            SELECT %s FROM follower_adjacency WHERE followee_id = ? AND relation = :relation FOR UPDATE
            """.formatted(COLUMNS);

    private static final String CREATE_IF_ABSENT = """
            INSERT INTO follower_adjacency (followee_id, relation) VALUES (?, :relation)
            ON CONFLICT (followee_id, relation) DO NOTHING
            """;

    private static final String WRITE = """
            UPDATE follower_adjacency
               SET follower_ids = ?, followed_at = ?, follower_count = ?, celebrity = ?, version = ?, updated_at = now()
             WHERE followee_id = ? AND relation = :relation AND version = ?
            """;

    private static final String FIND_MANY = """
            SELECT %s FROM follower_adjacency WHERE followee_id = ANY (?) AND relation = :relation
            """.formatted(COLUMNS);

    private static final String COUNT = """
            SELECT follower_count FROM follower_adjacency WHERE followee_id = ? AND relation = :relation
            """;

    private static final String SCAN = """
            SELECT %s FROM follower_adjacency WHERE followee_id > ? AND relation = :relation
             ORDER BY followee_id LIMIT ?
            """.formatted(COLUMNS);

    private final AdjacencyRows<FollowerRow> rows;
    private final String countSql;

    /** Follows' rows. */
    public FollowerRepository() {
        this(Relation.FOLLOW);
    }

    /**
     * Rows of one relation.
     *
     * @param relation follows or blocks (mutes keep no reverse side, {@link Relation#keepsReverse()})
     */
    public FollowerRepository(Relation relation) {
        this.rows = new AdjacencyRows<>(relation, "follower",
                new AdjacencyRows.Statements(FIND, LOCK, CREATE_IF_ABSENT, FIND_MANY, SCAN, WRITE),
                FollowerRepository::map);
        this.countSql = Sql.forRelation(COUNT, relation);
    }

    /** The relation this repository's rows belong to. */
    public Relation relation() {
        return rows.relation();
    }

    /**
     * The number of followers of {@code followeeId}, from the row's count column (no array is read; a celebrity's
     * pages are not touched).
     *
     * @return {@code >= 0}; 0 when nobody has ever followed {@code followeeId}
     */
    public long count(Connection connection, long followeeId) throws SQLException {
        return Jdbc.one(connection, countSql, followeeId, rs -> rs.getLong(1)).orElse(0L);
    }

    /** Reads a row without locking; empty when nobody has ever followed {@code followeeId}. */
    public Optional<FollowerRow> find(Connection connection, long followeeId) throws SQLException {
        return rows.find(connection, followeeId);
    }

    /** Locks a row for the rest of the transaction; empty (nothing locked) when it does not exist. */
    public Optional<FollowerRow> lock(Connection connection, long followeeId) throws SQLException {
        return rows.lock(connection, followeeId);
    }

    /** Creates the row when absent (no followers, version 0), then locks it for the rest of the transaction. */
    public FollowerRow lockOrCreate(Connection connection, long followeeId) throws SQLException {
        return rows.lockOrCreate(connection, followeeId);
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
        rows.writeNextVersion(connection, locked.followeeId(), locked.version(), followerIds, followedAt, ps -> {
            ps.setLong(3, followerCount);
            ps.setBoolean(4, celebrity);
            return 5;
        });
        return next;
    }

    /** Reads several rows of this database without locking; absent users are left out, order unspecified. */
    public List<FollowerRow> findAll(Connection connection, long[] followeeIds) throws SQLException {
        return rows.findAll(connection, followeeIds);
    }

    /** Reads rows in followee-id order after {@code afterFolloweeId} (exclusive; 0 to start), for scans. */
    public List<FollowerRow> scan(Connection connection, long afterFolloweeId, int limit) throws SQLException {
        return rows.scan(connection, afterFolloweeId, limit);
    }

    private static FollowerRow map(ResultSet rs) throws SQLException {
        return new FollowerRow(rs.getLong("followee_id"), SqlArrays.longs(rs, "follower_ids"),
                SqlArrays.longs(rs, "followed_at"), rs.getLong("follower_count"), rs.getLong("version"),
                rs.getBoolean("celebrity"));
    }
}
