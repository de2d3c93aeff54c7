package dev.socialgraph.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.cache.FollowingCacheScripts;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.keys.RedisKeys;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.testsupport.PrivateRedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Redis outages on the consumer's side: the follower side goes on being applied, batch after batch (a Redis outage
 * is a cache outage), but no event is committed until its cached set has been updated or dropped, so a Redis that
 * kept its data never serves a set from before an event for longer than the consumer's retry interval.
 */
@SpringBootTest(classes = CdcConsumerApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
@DirtiesContext
class CacheOutageIT {

    private static final TestShards SHARDS = TestShards.create("cdc_cache_outage");
    private static final CdcHarness KAFKA = new CdcHarness("cdc-cache-outage");
    private static final PrivateRedisServer REDIS = TestServers.privateRedis();
    private static final long T0 = 1_700_000_000_000L;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        KAFKA.properties(SHARDS).forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.cdc.redis-uri", REDIS::uri);
    }

    @AfterAll
    static void close() {
        KAFKA.close();
        SHARDS.close();
        REDIS.close();
    }

    @Autowired
    ShardDataSources dataSources;
    @Autowired
    MeterRegistry registry;

    @Test
    void redisDown_followerSideKeepsBeingApplied_offsetsHeldUntilCacheUpdatesSucceed() throws Exception {
        long follower = 11;
        KAFKA.publish(FollowEvent.follow(follower, 500, T0, 1, T0)); // the consumer connects to Redis
        KAFKA.awaitCaughtUp();
        double errorsBefore = errors();
        double batchFailuresBefore = batchFailures();

        REDIS.stop();
        try {
            KAFKA.publish(FollowEvent.follow(follower, 501, T0 + 1, 2, T0 + 1));
            KAFKA.publish(FollowEvent.follow(12, 501, T0 + 2, 1, T0 + 2));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(CdcHarness.followers(dataSources, 501))
                    .first().isEqualTo(new long[] {follower, T0 + 1}));
            await().atMost(Duration.ofSeconds(30)).until(() -> errors() > errorsBefore);
            // Before the fix the failed batch was retried until Redis answered: nothing after it was applied.
            KAFKA.publish(FollowEvent.follow(13, 503, T0 + 4, 1, T0 + 4));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(CdcHarness.followers(dataSources, 503))
                    .containsExactly(new long[] {13, T0 + 4}));
            assertThat(KAFKA.lag()).as("events whose cache update failed are not committed").isPositive();
            assertThat(batchFailures()).as("a cache failure fails no batch").isEqualTo(batchFailuresBefore);
            assertThat(owed()).isPositive();
        } finally {
            REDIS.start(); // back, and empty
        }
        KAFKA.awaitCaughtUp();
        assertThat(CdcHarness.followers(dataSources, 501))
                .containsExactly(new long[] {follower, T0 + 1}, new long[] {12, T0 + 2});
        try (RedisClient client = RedisClient.create(REDIS.uri());
             StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            String set = RedisKeys.following(follower);
            redis.eval(FollowingCacheScripts.FILL, ScriptOutputType.INTEGER,
                    new String[] {set, RedisKeys.followingVersion(follower)}, "2", "3600", "500", "501");
            KAFKA.publish(FollowEvent.follow(follower, 502, T0 + 3, 3, T0 + 3));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(redis.smembers(set)).containsExactlyInAnyOrder("-1", "500", "501", "502"));
        }
    }

    /**
     * The fault where both updates of an unfollow were lost: the write service's update is not made at all (the
     * test publishes the event as the relay would), and the consumer's first attempt dies with its connection
     * while Redis keeps its data. Before the fix the event was acknowledged anyway and the set answered "follows"
     * for its TTL.
     */
    @Test
    void unfollow_whileTheConsumersRedisConnectionsAreKilled_setNoLongerHoldsTheEdgeOnceRedisAnswers()
            throws Exception {
        long follower = 21;
        long followee = 600;
        KAFKA.publish(FollowEvent.follow(follower, followee, T0, 1, T0));
        KAFKA.awaitCaughtUp();
        try (RedisClient client = RedisClient.create(REDIS.uri());
             StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            String set = RedisKeys.following(follower);
            String version = RedisKeys.followingVersion(follower);
            assertThat(redis.eval(FollowingCacheScripts.FILL, ScriptOutputType.INTEGER, new String[] {set, version},
                    "1", "3600", Long.toString(followee)).toString()).isEqualTo("1");
            assertThat(answer(redis, follower, followee)).isEqualTo("following");
            double errorsBefore = errors();

            // Write commands (scripts) of every client now wait in the server; the consumer's time out.
            client(redis, "PAUSE", "60000", "WRITE");
            KAFKA.publish(FollowEvent.unfollow(follower, followee, T0, 2, T0 + 1));
            await().atMost(Duration.ofSeconds(30)).until(() -> errors() > errorsBefore);
            // The consumer loses its connections: the scripts it had queued are discarded, never run.
            redis.clientKill(KillArgs.Builder.typeNormal()); // SKIPME yes: not this test's own
            assertThat(KAFKA.lag()).as("the unfollow is not committed while its cache update fails").isPositive();
            assertThat(answer(redis, follower, followee)).isEqualTo("following");
            client(redis, "UNPAUSE");

            KAFKA.awaitCaughtUp();
            assertThat(answer(redis, follower, followee)).isIn("not following", "not cached");
            assertThat(redis.get(version)).isEqualTo("2");
        }
    }

    /** What the check service would read from {@code SMISMEMBER following:{a} b -1}. */
    private static String answer(RedisCommands<String, String> redis, long follower, long followee) {
        List<Boolean> members = redis.smismember(RedisKeys.following(follower), Long.toString(followee),
                RedisKeys.SENTINEL_MEMBER);
        if (!members.get(1)) {
            return "not cached";
        }
        return members.get(0) ? "following" : "not following";
    }

    /** {@code CLIENT <args>}, for the subcommands Lettuce's API lacks. */
    private static void client(RedisCommands<String, String> redis, String... args) {
        CommandArgs<String, String> commandArgs = new CommandArgs<>(StringCodec.UTF8);
        for (String arg : args) {
            commandArgs.add(arg);
        }
        assertThat(redis.dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8), commandArgs)).isEqualTo("OK");
    }

    private double batchFailures() {
        return registry.get("graph.cdc.batch.failures").counter().count();
    }

    private double owed() {
        return registry.get("graph.cdc.cache.updates.owed").gauge().value();
    }

    private double errors() {
        var counter = registry.find("graph.cdc.cache.updates").tag("outcome", "error").counter();
        return counter == null ? 0 : counter.count();
    }
}
