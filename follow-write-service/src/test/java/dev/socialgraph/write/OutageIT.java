package dev.socialgraph.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.cache.FollowingCacheScripts;
import dev.socialgraph.common.keys.RedisKeys;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardMigrations;
import dev.socialgraph.testsupport.PrivateKafkaServer;
import dev.socialgraph.testsupport.PrivateRedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import dev.socialgraph.write.outbox.TopicReader;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
 * The failure behaviour of DESIGN.md 7 for the write path, in one application context with its own Redis and Kafka
 * that the tests stop and start, and a shard map whose second following database points at a port where nothing
 * listens: Redis down or Kafka down, writes still succeed; a database down, only its users get 503.
 */
// Closed after the class: its databases are dropped then, and its relays and pools must not outlive them.
@DirtiesContext
@SpringBootTest(classes = FollowWriteServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OutageIT {

    private static final TestShards SHARDS = TestShards.create("write_outage");
    private static final PrivateRedisServer REDIS = TestServers.privateRedis();
    private static final PrivateKafkaServer KAFKA = TestServers.privateKafka();
    private static final String TOPIC = KAFKA.createTopic("outage-events", 3);

    /** Logical shard 3: the first following database, which is up. */
    private static final long UP = 256L * 40 + 3;
    /** Logical shard 131: the second following database, which is down. */
    private static final long DOWN = 256L * 40 + 131;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        migrate();
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        int following1 = SHARDS.shardMap().ranges(ShardGroup.FOLLOWING).indexOf(
                SHARDS.shardMap().route(ShardGroup.FOLLOWING, DOWN));
        assertThat(following1).isEqualTo(1);
        registry.add("graph.shards.ranges[1].jdbc-url", () -> "jdbc:postgresql://127.0.0.1:" + deadPort() + "/down");
        registry.add("graph.shards.migrate-on-startup", () -> false);
        registry.add("graph.shards.connection-timeout", () -> "500ms");
        registry.add("graph.write.redis.uri", REDIS::uri);
        registry.add("graph.write.relay.bootstrap-servers", KAFKA::bootstrapServers);
        registry.add("graph.write.relay.send-timeout", () -> "2s");
        registry.add("graph.write.relay.poll-interval", () -> "50ms");
        registry.add("graph.write.topic", () -> TOPIC);
    }

    /** The service migrates at start-up; here one database is unreachable, so the reachable ones are migrated first. */
    private static void migrate() {
        try (ShardDataSources all = new ShardDataSources(SHARDS.shardMap(), new ShardDataSources.PoolSettings(
                SHARDS.username(), SHARDS.password(), 2, Duration.ofSeconds(2), "outage-migrate"))) {
            ShardMigrations.migrateAll(all);
        }
    }

    private static int deadPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort(); // closed again: connections to it are refused
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterAll
    static void close() {
        REDIS.close();
        KAFKA.close();
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    ShardDataSources dataSources;

    @Autowired
    ShardMap shardMap;

    @Autowired
    MeterRegistry meters;

    WriteHttp http;
    ShardRows rows;

    @BeforeEach
    void setUp() {
        http = new WriteHttp(port);
        rows = new ShardRows(dataSources);
    }

    @Test
    void databaseDown_onlyItsUsersGet503ProblemAndOthersWrite() {
        WriteHttp.Reply down = http.follow(DOWN, 7);
        assertThat(down.status()).isEqualTo(503);
        assertThat(down.contentType()).startsWith("application/problem+json");
        assertThat(down.body().get("status").asInt()).isEqualTo(503);
        assertThat(http.unfollow(DOWN, 7).status()).isEqualTo(503);

        assertThat(http.follow(UP, 7).status()).isEqualTo(200);
        assertThat(meters.get("graph.write.results").tag("outcome", "unavailable").counter().count()).isEqualTo(2);
    }

    @Test
    void redisDown_writesSucceedAndAreDurable_andAfterRestartTheCacheIsNotStale() {
        long follower = UP + 256;
        RedisClient client = RedisClient.create(REDIS.uri());
        try (StatefulRedisConnection<String, String> redis = client.connect()) {
            assertThat(http.follow(follower, 1).status()).isEqualTo(200);
            redis.sync().eval(FollowingCacheScripts.FILL, ScriptOutputType.INTEGER,
                    new String[] {RedisKeys.following(follower), RedisKeys.followingVersion(follower)}, "1", "3600", "1");
        }
        double failedBefore = cacheResult("failed");

        REDIS.stop();
        for (long followee = 2; followee <= 6; followee++) {
            WriteHttp.Reply reply = http.follow(follower, followee);
            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.body().get("version").asLong()).isEqualTo(followee);
        }
        assertThat(http.unfollow(follower, 3).status()).isEqualTo(200);
        assertThat(cacheResult("failed")).isEqualTo(failedBefore + 6);
        FollowingRow row = rows.followingRow(follower).orElseThrow();
        assertThat(row.followingIds()).containsExactly(1, 2, 4, 5, 6);
        assertThat(row.version()).isEqualTo(7);
        assertThat(rows.outboxOf(follower)).hasSize(7);

        REDIS.start();
        try (StatefulRedisConnection<String, String> redis = client.connect()) {
            // Either absent or exactly the row: never the set of version 1 without the later writes.
            Set<String> cached = redis.sync().smembers(RedisKeys.following(follower));
            if (!cached.isEmpty()) {
                Set<String> expected = new HashSet<>(List.of("-1", "1", "2", "4", "5", "6"));
                assertThat(cached).isEqualTo(expected);
            }
            // Once the service has reconnected, its next write records the version floor again.
            long[] followee = {100};
            await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200)).until(() -> {
                WriteHttp.Reply reply = http.follow(follower, followee[0]++);
                return reply.status() == 200 && Long.toString(reply.body().get("version").asLong())
                        .equals(redis.sync().get(RedisKeys.followingVersion(follower)));
            });
            assertThat(redis.sync().exists(RedisKeys.following(follower))).isZero();
        } finally {
            client.shutdown();
        }
    }

    @Test
    void kafkaDown_writesSucceed_andEveryEventArrivesAfterRestart() {
        try (TopicReader reader = new TopicReader(KAFKA.bootstrapServers(), TOPIC)) {
            assertThat(http.follow(UP + 512, 1).status()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(30)).until(() -> reader.poll().stream()
                    .anyMatch(r -> r.event().followerId() == UP + 512));
        }

        KAFKA.stop();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            long follower = UP + 256L * (10 + i);
            WriteHttp.Reply reply = http.follow(follower, 42);
            assertThat(reply.status()).isEqualTo(200);
            expected.add(follower + "-" + reply.body().get("version").asLong());
        }
        WriteHttp.Reply unfollow = http.unfollow(UP + 256L * 10, 42);
        assertThat(unfollow.status()).isEqualTo(200);
        expected.add((UP + 256L * 10) + "-" + unfollow.body().get("version").asLong());

        KAFKA.start();
        try (TopicReader reader = new TopicReader(KAFKA.bootstrapServers(), TOPIC)) {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(reader.poll())
                    .extracting(r -> r.event().eventId()).containsAll(expected));
        }
    }

    private double cacheResult(String result) {
        return meters.get("graph.write.cache.apply").tag("result", result).counter().count();
    }
}
