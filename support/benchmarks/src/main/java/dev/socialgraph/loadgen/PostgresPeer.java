package dev.socialgraph.loadgen;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.socialgraph.loadgen.Operation.Kind;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * Peer (b): the naive design users start from. One table,
 * {@code follows(follower_id, followee_id, followed_at, PRIMARY KEY (follower_id, followee_id))} plus an index on
 * {@code (followee_id, followed_at)}, loaded with the same edges by {@code COPY}; checks by primary key, list pages by
 * keyset (first pages here), counts by {@code count(*)}, writes as single-row autocommit statements.
 *
 * <p>HikariCP with as many connections as the runner allows operations in flight, each driven by its own thread
 * (JDBC blocks). CPU is counted over this database's client backends ({@code pg_stat_activity}), so the server must
 * run on this machine; WAL writer and checkpointer work caused by writes is not included.
 */
final class PostgresPeer implements Target {

    private static final String CREATE_TABLE = """
            CREATE TABLE follows (
                follower_id BIGINT NOT NULL,
                followee_id BIGINT NOT NULL,
                followed_at TIMESTAMPTZ NOT NULL
            )""";
    private static final String ADD_KEYS = """
            ALTER TABLE follows ADD PRIMARY KEY (follower_id, followee_id);
            CREATE INDEX follows_followee_followed_at ON follows (followee_id, followed_at);
            ANALYZE follows""";
    private static final String CHECK = "SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?";
    private static final String BATCH_CHECK =
            "SELECT followee_id FROM follows WHERE follower_id = ? AND followee_id = ANY (?)";
    // Newest first like the service; the primary key finds the follower's rows, a top-50 sort orders them.
    private static final String FOLLOWING_PAGE = """
            SELECT followee_id, followed_at FROM follows WHERE follower_id = ?
            ORDER BY followed_at DESC, followee_id DESC LIMIT 50""";
    private static final String FOLLOWERS_PAGE = """
            SELECT follower_id, followed_at FROM follows WHERE followee_id = ?
            ORDER BY followed_at DESC LIMIT 50""";
    private static final String COUNTS = """
            SELECT (SELECT count(*) FROM follows WHERE followee_id = ?),
                   (SELECT count(*) FROM follows WHERE follower_id = ?)""";
    private static final String FOLLOW =
            "INSERT INTO follows (follower_id, followee_id, followed_at) VALUES (?, ?, now()) ON CONFLICT DO NOTHING";
    private static final String UNFOLLOW = "DELETE FROM follows WHERE follower_id = ? AND followee_id = ?";
    /** Blocks and mutes the naive way: a table each, keyed both ways where a lookup needs it. */
    private static final String CREATE_RELATIONS = """
            CREATE TABLE IF NOT EXISTS blocks (
                blocker_id BIGINT NOT NULL, blocked_id BIGINT NOT NULL, blocked_at TIMESTAMPTZ NOT NULL,
                PRIMARY KEY (blocker_id, blocked_id));
            CREATE INDEX IF NOT EXISTS blocks_blocked ON blocks (blocked_id, blocker_id);
            CREATE TABLE IF NOT EXISTS mutes (
                muter_id BIGINT NOT NULL, muted_id BIGINT NOT NULL, muted_at TIMESTAMPTZ NOT NULL,
                PRIMARY KEY (muter_id, muted_id))""";
    private static final String HIDDEN = """
            SELECT blocked_id, 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ANY (?)
            UNION ALL SELECT blocker_id, 2 FROM blocks WHERE blocked_id = ? AND blocker_id = ANY (?)
            UNION ALL SELECT muted_id, 3 FROM mutes WHERE muter_id = ? AND muted_id = ANY (?)""";
    /** The block and the removal of the follows both ways, in one statement (one transaction). */
    private static final String BLOCK = """
            WITH b AS (INSERT INTO blocks (blocker_id, blocked_id, blocked_at) VALUES (?, ?, now())
                       ON CONFLICT DO NOTHING RETURNING blocker_id, blocked_id)
            DELETE FROM follows f USING b
             WHERE (f.follower_id = b.blocker_id AND f.followee_id = b.blocked_id)
                OR (f.follower_id = b.blocked_id AND f.followee_id = b.blocker_id)""";
    private static final String UNBLOCK = "DELETE FROM blocks WHERE blocker_id = ? AND blocked_id = ?";
    private static final String BACKENDS = """
            SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'""";

    /** Edge {@code i} of the load gets {@code 2020-01-01T00:00:00Z + i ms}, as the importer dates file lines. */
    private static final long EPOCH_2020_MS = 1_577_836_800_000L;

    private final HikariDataSource pool;
    private final ExecutorService workers;

    private PostgresPeer(HikariDataSource pool, int connections) {
        this.pool = pool;
        this.workers = Executors.newFixedThreadPool(connections, r -> {
            Thread t = new Thread(r, "postgres-peer");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Opens the peer at {@code jdbcUrl} (user and password may be in the URL), creating the database when missing and
     * loading {@code graph} unless the table already holds it.
     */
    static PostgresPeer open(String jdbcUrl, int connections, EdgeList graph) throws SQLException {
        createDatabaseIfMissing(jdbcUrl);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(Math.max(1, connections));
        config.setMinimumIdle(Math.max(1, connections));
        config.setPoolName("postgres-peer");
        HikariDataSource pool = new HikariDataSource(config);
        try (Connection c = pool.getConnection()) {
            loadIfNeeded(c, graph);
        }
        return new PostgresPeer(pool, Math.max(1, connections));
    }

    private static void createDatabaseIfMissing(String jdbcUrl) throws SQLException {
        int slash = jdbcUrl.indexOf('/', "jdbc:postgresql://".length());
        int end = jdbcUrl.indexOf('?', slash);
        String database = jdbcUrl.substring(slash + 1, end < 0 ? jdbcUrl.length() : end);
        if (!database.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("peer database name must be a plain lower-case identifier: " + database);
        }
        String admin = jdbcUrl.substring(0, slash + 1) + "postgres" + (end < 0 ? "" : jdbcUrl.substring(end));
        try (Connection c = DriverManager.getConnection(admin);
             PreparedStatement exists = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            exists.setString(1, database);
            try (ResultSet rs = exists.executeQuery()) {
                if (!rs.next()) {
                    try (Statement s = c.createStatement()) {
                        s.execute("CREATE DATABASE " + database);
                    }
                }
            }
        }
    }

    private static Array bigints(Connection c, long[] values) throws SQLException {
        Long[] boxed = new Long[values.length];
        for (int i = 0; i < boxed.length; i++) {
            boxed[i] = values[i];
        }
        return c.createArrayOf("bigint", boxed);
    }

    private static void loadIfNeeded(Connection c, EdgeList graph) throws SQLException {
        String marker = graph.edgeCount() + " edges, " + graph.userCount() + " users";
        try (Statement s = c.createStatement()) {
            s.execute(CREATE_RELATIONS);
            s.execute("CREATE TABLE IF NOT EXISTS bench_loaded (marker TEXT NOT NULL)");
            try (ResultSet rs = s.executeQuery("SELECT marker FROM bench_loaded")) {
                if (rs.next() && marker.equals(rs.getString(1))) {
                    return;
                }
            }
            s.execute("DROP TABLE IF EXISTS follows");
            s.execute("TRUNCATE blocks, mutes"); // they were about the old graph
            s.execute(CREATE_TABLE);
            CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY follows FROM STDIN");
            StringBuilder chunk = new StringBuilder(1 << 20);
            int edge = 0;
            for (int u = 0; u < graph.userCount(); u++) {
                long follower = graph.user(u);
                for (int e = graph.rowStart(u); e < graph.rowEnd(u); e++, edge++) {
                    chunk.append(follower).append('\t').append(graph.followee(e)).append('\t')
                            .append(Instant.ofEpochMilli(EPOCH_2020_MS + edge)).append('\n');
                    if (chunk.length() > (1 << 20) - 100) {
                        byte[] bytes = chunk.toString().getBytes(StandardCharsets.US_ASCII);
                        copy.writeToCopy(bytes, 0, bytes.length);
                        chunk.setLength(0);
                    }
                }
            }
            byte[] bytes = chunk.toString().getBytes(StandardCharsets.US_ASCII);
            copy.writeToCopy(bytes, 0, bytes.length);
            copy.endCopy();
            s.execute(ADD_KEYS);
            s.execute("DELETE FROM bench_loaded");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO bench_loaded (marker) VALUES (?)")) {
                p.setString(1, marker);
                p.executeUpdate();
            }
        }
    }

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public boolean supports(Kind kind) {
        return kind != Kind.COMMON_FOLLOWING; // its pages have a fixed size, and it has no intersection query
    }

    @Override
    public List<ServerProcess> processes() {
        List<ServerProcess> backends = new ArrayList<>();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(BACKENDS)) {
            while (rs.next()) {
                backends.add(new ServerProcess("postgres-peer", rs.getLong(1)));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot list the peer's backends", e);
        }
        return backends;
    }

    @Override
    public CompletableFuture<Outcome> execute(Operation op) {
        return CompletableFuture.supplyAsync(() -> {
            try (Connection c = pool.getConnection()) {
                run(c, op);
                return Outcome.OK;
            } catch (SQLException | RuntimeException e) {
                return Outcome.ERROR;
            }
        }, workers);
    }

    /** Runs {@code op}; for a check, returns whether the edge exists (tests use it), else whether rows came back. */
    static boolean run(Connection c, Operation op) throws SQLException {
        String sql = switch (op.kind()) {
            case CHECK -> CHECK;
            case BATCH_CHECK -> BATCH_CHECK;
            case FOLLOWING_PAGE -> FOLLOWING_PAGE;
            case FOLLOWERS_PAGE -> FOLLOWERS_PAGE;
            case COUNTS -> COUNTS;
            case FOLLOW -> FOLLOW;
            case UNFOLLOW -> UNFOLLOW;
            case HIDDEN -> HIDDEN;
            case BLOCK -> BLOCK;
            case UNBLOCK -> UNBLOCK;
            case COMMON_FOLLOWING -> throw new IllegalArgumentException("the naive peer does not do " + op.kind());
        };
        try (PreparedStatement p = c.prepareStatement(sql)) {
            p.setLong(1, op.user());
            switch (op.kind()) {
                case CHECK, FOLLOW, UNFOLLOW, BLOCK, UNBLOCK -> p.setLong(2, op.other());
                case BATCH_CHECK -> p.setArray(2, bigints(c, op.ids()));
                case HIDDEN -> {
                    Array array = bigints(c, op.ids());
                    p.setArray(2, array);
                    p.setLong(3, op.user());
                    p.setArray(4, array);
                    p.setLong(5, op.user());
                    p.setArray(6, array);
                }
                case COUNTS -> p.setLong(2, op.user());
                default -> { }
            }
            if (op.kind().isWrite()) {
                return p.executeUpdate() > 0;
            }
            try (ResultSet rs = p.executeQuery()) {
                boolean any = false;
                while (rs.next()) {
                    any = true; // read every row: a list page costs its transfer
                }
                return any;
            }
        }
    }

    /** A connection from the peer's pool; for tests. */
    Connection connection() throws SQLException {
        return pool.getConnection();
    }

    @Override
    public void close() {
        workers.shutdownNow();
        pool.close();
    }
}
