package dev.socialgraph.store.following;

import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.AdjacencyRows;
import dev.socialgraph.store.sql.Jdbc;
import dev.socialgraph.store.sql.Sql;
import dev.socialgraph.store.sql.SqlArrays;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import dev.socialgraph.common.relation.Relation;
import java.util.List;
import java.util.Optional;

/**
 * JDBC access to {@code following_adjacency} rows (DESIGN.md 2.2). Methods take the {@link Connection} of the
 * caller's transaction, so a row change and its outbox row commit together; the caller routes to the right
 * database with {@link ShardDataSources#forUser}. Stateless and thread-safe.
 *
 * <p>Changes are read-modify-write: {@link #lockOrCreate} takes the row lock ({@code SELECT ... FOR UPDATE}),
 * the caller computes the new arrays, {@link #writeNextVersion} stores them with {@code version + 1}. The follower
 * side's repository runs the same protocol, {@link AdjacencyRows}; the SQL is this class's own.
 *
 * <p>One instance reads and writes one {@link Relation}'s rows ({@code relation} column); the no-argument
 * constructor gives follows. For a block or a mute, "follower" is the blocker or muter and "following" its targets.
 */
public final class FollowingRepository {

    private static final String COLUMNS = "follower_id, following_ids, followed_at, version";

    private static final String FIND = """
            SELECT %s FROM following_adjacency WHERE follower_id = ? AND relation = :relation
            """.formatted(COLUMNS);

    private static final String LOCK = """
            SELECT %s FROM following_adjacency WHERE follower_id = ? AND relation = :relation FOR UPDATE
            """.formatted(COLUMNS);

    private static final String CREATE_IF_ABSENT = """
            INSERT INTO following_adjacency (follower_id, relation) VALUES (?, :relation)
            ON CONFLICT (follower_id, relation) DO NOTHING
            """;

    private static final String WRITE = """
            UPDATE following_adjacency
               SET following_ids = ?, followed_at = ?, following_count = ?, version = ?, updated_at = now()
             WHERE follower_id = ? AND relation = :relation AND version = ?
            """;

    private static final String FIND_MANY = """
            SELECT %s FROM following_adjacency WHERE follower_id = ANY (?) AND relation = :relation
            """.formatted(COLUMNS);

    private static final String COUNT = """
            SELECT following_count FROM following_adjacency WHERE follower_id = ? AND relation = :relation
            """;

    /** Membership inside PostgreSQL: a 50,000-entry block list is not shipped to answer one pair. */
    private static final String CONTAINS = """
            SELECT EXISTS (SELECT 1 FROM following_adjacency
                            WHERE follower_id = ? AND relation = :relation AND following_ids @> ARRAY[?]::bigint[])
            """;

    /**
     * Which of many rows hold one target, tested inside PostgreSQL: one primary-key lookup per source, and only the
     * matching ids come back (no following arrays are shipped).
     */
    private static final String HOLDERS = """
            SELECT follower_id FROM following_adjacency
             WHERE follower_id = ANY (?) AND relation = :relation AND following_ids @> ARRAY[?]::bigint[]
             ORDER BY follower_id
            """;

    private static final String EDGE_COUNT = """
            SELECT coalesce(sum(following_count), 0)::bigint FROM following_adjacency WHERE relation = :relation
            """;

    private static final String SCAN = """
            SELECT %s FROM following_adjacency WHERE follower_id > ? AND relation = :relation
             ORDER BY follower_id LIMIT ?
            """.formatted(COLUMNS);

    private final AdjacencyRows<FollowingRow> rows;
    private final String countSql;
    private final String containsSql;
    private final String holdersSql;
    private final String edgeCountSql;

    /** Follows' rows. */
    public FollowingRepository() {
        this(Relation.FOLLOW);
    }

    /**
     * Rows of one relation.
     *
     * @param relation follows, blocks or mutes
     */
    public FollowingRepository(Relation relation) {
        this.rows = new AdjacencyRows<>(relation, relation.wireName(),
                new AdjacencyRows.Statements(FIND, LOCK, CREATE_IF_ABSENT, FIND_MANY, SCAN, WRITE),
                FollowingRepository::map);
        this.countSql = Sql.forRelation(COUNT, relation);
        this.containsSql = Sql.forRelation(CONTAINS, relation);
        this.holdersSql = Sql.forRelation(HOLDERS, relation);
        this.edgeCountSql = Sql.forRelation(EDGE_COUNT, relation);
    }

    /** The relation this repository's rows belong to. */
    public Relation relation() {
        return rows.relation();
    }

    /**
     * The number of users {@code followerId} follows, from the row's count column (no array is read).
     *
     * @return {@code 0..relation().cap()}; 0 when {@code followerId} has no row of this relation
     */
    public int count(Connection connection, long followerId) throws SQLException {
        return Jdbc.one(connection, countSql, followerId, rs -> rs.getInt(1)).orElse(0);
    }

    /**
     * Whether {@code sourceId}'s row holds {@code targetId}, without reading the row into the caller; no lock.
     *
     * @return {@code false} also when the row does not exist
     */
    public boolean contains(Connection connection, long sourceId, long targetId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(containsSql)) {
            ps.setLong(1, sourceId);
            ps.setLong(2, targetId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /**
     * Which of {@code sourceIds} have {@code targetId} in their row ("which of these follow the target"), in one
     * statement on this database; no lock. Sources whose rows live elsewhere are simply not found.
     *
     * @param sourceIds positive user ids of this database's users, in any order
     * @param targetId  positive user id
     * @return the sources whose row holds the target, ascending; empty when none does
     */
    public long[] holdersOf(Connection connection, long[] sourceIds, long targetId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(holdersSql)) {
            ps.setArray(1, SqlArrays.bigintArray(connection, sourceIds));
            ps.setLong(2, targetId);
            return Jdbc.many(ps, rs -> rs.getLong(1)).stream().mapToLong(Long::longValue).toArray();
        }
    }

    /**
     * Reads a row without locking.
     *
     * @return the row, or empty when {@code followerId} has never followed anyone
     */
    public Optional<FollowingRow> find(Connection connection, long followerId) throws SQLException {
        return rows.find(connection, followerId);
    }

    /**
     * Locks a row for the rest of the transaction.
     *
     * @return the locked row, or empty when it does not exist (nothing is locked then)
     */
    public Optional<FollowingRow> lock(Connection connection, long followerId) throws SQLException {
        return rows.lock(connection, followerId);
    }

    /**
     * Creates the row when absent (no followings, version 0), then locks it for the rest of the transaction.
     * Two writers of the same follower serialize on this lock.
     */
    public FollowingRow lockOrCreate(Connection connection, long followerId) throws SQLException {
        return rows.lockOrCreate(connection, followerId);
    }

    /**
     * Stores new arrays for a row read under lock, with {@code version = locked.version() + 1}.
     *
     * @param locked       the row as read by {@link #lock} or {@link #lockOrCreate} in this transaction
     * @param followingIds the new target ids, sorted ascending, unique, at most {@link Relation#cap()}
     * @param followedAt   aligned epoch-ms times
     * @return the row as written
     * @throws IllegalStateException when the stored version is no longer {@code locked.version()}: the row was
     *                               not locked, or was changed by someone who did not lock it
     * @throws SQLException          on database errors, including the relation's cap ({@code check_violation})
     */
    public FollowingRow writeNextVersion(Connection connection, FollowingRow locked, long[] followingIds,
                                         long[] followedAt) throws SQLException {
        FollowingRow next = new FollowingRow(locked.followerId(), followingIds, followedAt, locked.version() + 1);
        rows.writeNextVersion(connection, locked.followerId(), locked.version(), followingIds, followedAt, ps -> {
            ps.setInt(3, followingIds.length);
            return 4;
        });
        return next;
    }

    /** Reads several rows of this database without locking; absent users are left out, order unspecified. */
    public List<FollowingRow> findAll(Connection connection, long[] followerIds) throws SQLException {
        return rows.findAll(connection, followerIds);
    }

    /**
     * Reads rows in follower-id order, for scans (reconciler, bloom snapshots).
     *
     * @param afterFollowerId exclusive lower bound; 0 to start
     * @param limit           maximum rows, {@code >= 1}
     */
    public List<FollowingRow> scan(Connection connection, long afterFollowerId, int limit) throws SQLException {
        return rows.scan(connection, afterFollowerId, limit);
    }


    /** The number of edges (followings) stored in this database: sizes bloom filters before a scan. */
    public long edgeCount(Connection connection) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(edgeCountSql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static FollowingRow map(ResultSet rs) throws SQLException {
        return new FollowingRow(rs.getLong("follower_id"), SqlArrays.longs(rs, "following_ids"),
                SqlArrays.longs(rs, "followed_at"), rs.getLong("version"));
    }
}
