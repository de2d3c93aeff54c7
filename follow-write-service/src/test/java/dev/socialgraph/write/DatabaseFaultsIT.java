package dev.socialgraph.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A database that misbehaves under a write in flight: its backend is terminated, or it holds the write on a lock.
 * Both are outages, answered 503 problem+json with {@code Retry-After} like a database that is down, and the
 * write leaves nothing behind. Before the fix the terminated write got 500: HikariCP evicted the broken
 * connection, and the auto-commit reset after the rollback threw its {@code "Connection is closed"} (no SQLState)
 * over the real error (57P01).
 */
// Closed after the class: its databases are dropped then, and its pools must not outlive them.
@DirtiesContext
@SpringBootTest(classes = FollowWriteServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class DatabaseFaultsIT {

    private static final TestShards SHARDS = TestShards.create("write_db_faults");
    private static final RedisServer REDIS = TestServers.redis();
    /** Logical shard 7: the first following database. */
    private static final long FOLLOWER = 256L * 3_000 + 7;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.write.redis.uri", () -> REDIS.uri(REDIS.freshDatabase()));
        registry.add("graph.write.relay.enabled", () -> false);
        registry.add("graph.shards.statement-timeout", () -> "3s");
        registry.add("graph.shards.socket-timeout", () -> "6s");
    }

    private final ExecutorService client = Executors.newSingleThreadExecutor();

    @AfterAll
    static void close() {
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    ShardDataSources dataSources;

    WriteHttp http;
    ShardRows rows;

    @BeforeEach
    void setUp() {
        http = new WriteHttp(port);
        rows = new ShardRows(dataSources);
    }

    @Test
    void backendTerminatedWhileTheWriteWaitsOnItsRowLock_gets503ProblemWithRetryAfter_andNothingIsWritten()
            throws Exception {
        long follower = FOLLOWER;
        assertThat(http.follow(follower, 1).status()).isEqualTo(200);

        try (Connection holder = openFollowingDatabase(follower)) {
            lockRow(holder, follower);
            CompletableFuture<WriteHttp.Reply> write = CompletableFuture.supplyAsync(() -> http.follow(follower, 2), client);
            int backend = awaitBackendWaitingOnALock(holder);
            assertThat(terminate(holder, backend)).as("the write's backend was terminated while it waited").isTrue();

            assertOutage(write.get(30, TimeUnit.SECONDS));
            holder.rollback();
        }
        assertNothingWrittenBeyondTheFirstFollow(follower);
        assertThat(http.follow(follower, 3).status()).as("the pool replaced the broken connection").isEqualTo(200);
    }

    @Test
    void writeBlockedOnARowLock_endsWith503AtTheStatementTimeout_andNothingIsWritten() throws Exception {
        long follower = FOLLOWER + 256;
        assertThat(http.follow(follower, 1).status()).isEqualTo(200);

        try (Connection holder = openFollowingDatabase(follower)) {
            lockRow(holder, follower);
            WriteHttp.Reply reply = CompletableFuture.supplyAsync(() -> http.follow(follower, 2), client)
                    .get(30, TimeUnit.SECONDS); // answered while the lock is still held
            assertOutage(reply);
            holder.rollback();
        }
        assertNothingWrittenBeyondTheFirstFollow(follower);
        assertThat(http.follow(follower, 3).status()).isEqualTo(200);
    }

    private static void assertOutage(WriteHttp.Reply reply) {
        assertThat(reply.status()).isEqualTo(503);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.body().get("status").asInt()).isEqualTo(503);
        assertThat(reply.body().get("title").asString()).isEqualTo("Shard unavailable");
        assertThat(reply.retryAfter()).isEqualTo("1");
    }

    private void assertNothingWrittenBeyondTheFirstFollow(long follower) {
        assertThat(rows.followingRow(follower).orElseThrow().followingIds()).containsExactly(1L);
        assertThat(rows.followingRow(follower).orElseThrow().version()).isEqualTo(1);
        assertThat(rows.outboxOf(follower)).hasSize(1);
    }

    /** A connection of its own, outside the service's pools, with auto-commit off. */
    private Connection openFollowingDatabase(long follower) throws SQLException {
        String url = dataSources.shardMap().route(ShardGroup.FOLLOWING, follower).jdbcUrl();
        Connection connection = DriverManager.getConnection(url, SHARDS.username(), SHARDS.password());
        connection.setAutoCommit(false);
        return connection;
    }

    private static void lockRow(Connection holder, long follower) throws SQLException {
        try (PreparedStatement ps = holder.prepareStatement(
                "SELECT version FROM following_adjacency WHERE follower_id = ? FOR UPDATE")) {
            ps.setLong(1, follower);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
            }
        }
    }

    /** The pid of the other backend of this database that waits on a lock: the service's write. */
    private static int awaitBackendWaitingOnALock(Connection holder) {
        int[] pid = {0};
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
            try (PreparedStatement ps = holder.prepareStatement("SELECT pid FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
                 ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return false;
                }
                pid[0] = rs.getInt(1);
                return true;
            }
        });
        return pid[0];
    }

    private static boolean terminate(Connection holder, int backend) throws SQLException {
        try (PreparedStatement ps = holder.prepareStatement("SELECT pg_terminate_backend(?)")) {
            ps.setInt(1, backend);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }
}
