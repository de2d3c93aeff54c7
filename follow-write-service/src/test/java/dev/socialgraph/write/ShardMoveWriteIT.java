package dev.socialgraph.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardFence;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import dev.socialgraph.write.outbox.OutboxRelay;
import dev.socialgraph.write.outbox.OutboxRelays;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Writes during shard moves (docs/shard-moves.md) against real shard databases: a follow enters the fence of the
 * follower's shard, so a database that gave the shard away refuses it (503, nothing written) until the service knows
 * the newer map; with the newer map, or once it fetched it after the refusal, the follow lands on the new owner. And
 * a following database that joins the map gets its outbox relay.
 *
 * <p>No shard directory is configured: the tests apply maps to the service's {@link ShardDataSources} themselves, as
 * its poller would. Each test derives its map from the current one and moves shards of its own, so the order of the
 * tests does not matter.
 */
@DirtiesContext
@SpringBootTest(classes = FollowWriteServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ShardMoveWriteIT {

    private static final TestShards SHARDS = TestShards.create("write_move");
    private static final RedisServer REDIS = TestServers.redis();
    private static final KafkaServer KAFKA = TestServers.kafka();
    private static final String TOPIC = KAFKA.createTopic("shard-move", 1);

    /** A shard of the first following database that each test moves (or marks moved) on its own. */
    private static final int REFUSED_SHARD = 10;
    private static final int MOVED_SHARD = 20;
    private static final int FETCHED_SHARD = 30;
    private static final int JOINING_SHARD = 40;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.write.redis.uri", () -> REDIS.uri(REDIS.freshDatabase()));
        registry.add("graph.write.topic", () -> TOPIC);
        registry.add("graph.write.relay.bootstrap-servers", KAFKA::bootstrapServers);
        registry.add("graph.write.relay.send-timeout", () -> "2s");
        registry.add("graph.write.relay.poll-interval", () -> "50ms");
    }

    @AfterAll
    static void close() {
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    ShardDataSources dataSources;

    @Autowired
    OutboxRelays relays;

    @Autowired
    MeterRegistry meters;

    private final FollowingRepository following = new FollowingRepository();
    private WriteHttp http;
    private ShardRows rows;

    @BeforeEach
    void setUp() {
        http = new WriteHttp(port);
        rows = new ShardRows(dataSources);
    }

    @AfterEach
    void noDirectory() {
        dataSources.refresher(() -> { });
    }

    @Test
    void follow_whenTheDatabaseGaveTheShardAwayInAMapNotKnownYet_gets503AndWritesNothing() throws SQLException {
        long follower = userOnShard(REFUSED_SHARD, 1);
        ShardRange home = dataSources.shardMap().route(ShardGroup.FOLLOWING, follower);
        assertThat(home.jdbcUrl()).isEqualTo(SHARDS.shardMap().ranges(ShardGroup.FOLLOWING).getFirst().jdbcUrl());
        long totalBefore = rows.totalRows();
        double unavailableBefore = unavailable();
        try (Connection c = dataSources.forRange(home).getConnection()) {
            ShardFence.markMoved(c, ShardGroup.FOLLOWING, REFUSED_SHARD, REFUSED_SHARD, dataSources.version() + 1,
                    "a_database_this_instance_does_not_know", System.currentTimeMillis());
        }
        try {
            WriteHttp.Reply reply = http.follow(follower, 7);

            assertThat(reply.status()).isEqualTo(503);
            assertThat(reply.contentType()).startsWith("application/problem+json");
            assertThat(reply.retryAfter()).isEqualTo("1");
            assertThat(rows.totalRows()).as("nothing written anywhere").isEqualTo(totalBefore);
            assertThat(unavailable()).isEqualTo(unavailableBefore + 1);
        } finally {
            try (Connection c = dataSources.forRange(home).getConnection()) {
                ShardFence.clearMoved(c, ShardGroup.FOLLOWING, REFUSED_SHARD, REFUSED_SHARD);
            }
        }
        assertThat(http.follow(follower, 7).status()).as("the shard lives there again").isEqualTo(200);
    }

    @Test
    void follow_afterANewerMapMovedTheShard_landsOnTheNewOwner() {
        long follower = userOnShard(MOVED_SHARD, 1);
        ShardRange oldOwner = dataSources.shardMap().route(ShardGroup.FOLLOWING, follower);
        ShardRange newOwner = SHARDS.shardMap().ranges(ShardGroup.FOLLOWING).getLast();
        assertThat(newOwner.jdbcUrl()).isNotEqualTo(oldOwner.jdbcUrl());

        assertThat(dataSources.apply(dataSources.version() + 1, dataSources.shardMap()
                .reassign(ShardGroup.FOLLOWING, MOVED_SHARD, MOVED_SHARD, newOwner.database(), newOwner.jdbcUrl())))
                .isTrue();
        WriteHttp.Reply reply = http.follow(follower, 8);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(followingRow(newOwner, follower)).hasValueSatisfying(
                row -> assertThat(row.followingIds()).containsExactly(8L));
        assertThat(followingRow(oldOwner, follower)).isEmpty();
        assertThat(rows.allOutbox(dataSources.forRange(newOwner)))
                .anySatisfy(e -> assertThat(e.followerId()).isEqualTo(follower));
        assertThat(rows.allOutbox(dataSources.forRange(oldOwner)))
                .noneSatisfy(e -> assertThat(e.followerId()).isEqualTo(follower));
    }

    @Test
    void follow_whenTheDatabaseSaysTheShardMoved_fetchesTheNewerMapAndLandsOnTheNewOwner() throws SQLException {
        long follower = userOnShard(FETCHED_SHARD, 1);
        ShardRange oldOwner = dataSources.shardMap().route(ShardGroup.FOLLOWING, follower);
        ShardRange newOwner = SHARDS.shardMap().ranges(ShardGroup.FOLLOWING).getLast();
        long newer = dataSources.version() + 1;
        ShardMap moved = dataSources.shardMap()
                .reassign(ShardGroup.FOLLOWING, FETCHED_SHARD, FETCHED_SHARD, newOwner.database(), newOwner.jdbcUrl());
        // The mover's order: the move recorded on the old owner; this instance learns the map only when it asks.
        try (Connection c = dataSources.forRange(oldOwner).getConnection()) {
            ShardFence.markMoved(c, ShardGroup.FOLLOWING, FETCHED_SHARD, FETCHED_SHARD, newer, newOwner.database(),
                    System.currentTimeMillis());
        }
        dataSources.refresher(() -> dataSources.apply(newer, moved));

        WriteHttp.Reply reply = http.follow(follower, 9);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(dataSources.version()).isEqualTo(newer);
        assertThat(followingRow(newOwner, follower)).hasValueSatisfying(
                row -> assertThat(row.followingIds()).containsExactly(9L));
        assertThat(followingRow(oldOwner, follower)).isEmpty();
    }

    @Test
    void newerMapWithANewFollowingDatabase_startsItsRelayOnce() {
        ShardRange joining = SHARDS.shardMap().ranges(ShardGroup.FOLLOWER).getFirst(); // same schema, not following
        assertThat(relays.relays()).extracting(OutboxRelay::database).doesNotContain(joining.database());
        ShardMap map = dataSources.shardMap()
                .reassign(ShardGroup.FOLLOWING, JOINING_SHARD, JOINING_SHARD, joining.database(), joining.jdbcUrl());

        assertThat(dataSources.apply(dataSources.version() + 1, map)).isTrue();
        assertThat(dataSources.apply(dataSources.version() + 1, map)).as("the same databases, a newer version")
                .isTrue();

        assertThat(relays.relays()).extracting(OutboxRelay::database).containsOnlyOnce(joining.database())
                .doesNotHaveDuplicates();
        OutboxRelay relay = relays.relays().stream().filter(r -> r.database().equals(joining.database()))
                .findFirst().orElseThrow();
        await().atMost(Duration.ofSeconds(30)).until(relay::isActive);
        long follower = userOnShard(JOINING_SHARD, 1);
        assertThat(http.follow(follower, 10).status()).isEqualTo(200);
        DataSource joined = dataSources.forRange(joining);
        await().atMost(Duration.ofSeconds(30)).until(() -> rows.allOutbox(joined).stream()
                .anyMatch(e -> e.followerId() == follower && e.publishedAt() != null));
    }

    /** The {@code n}-th positive user id on logical shard {@code shard} ({@code id mod 256}, TestShards' map). */
    private static long userOnShard(int shard, int n) {
        return (long) TestShards.LOGICAL_SHARDS * (1_000 + n) + shard;
    }

    private Optional<FollowingRow> followingRow(ShardRange database, long followerId) {
        return ShardRows.query(dataSources.forRange(database), c -> following.find(c, followerId));
    }

    private double unavailable() {
        return meters.get("graph.write.results").tag("outcome", "unavailable").counter().count();
    }
}
