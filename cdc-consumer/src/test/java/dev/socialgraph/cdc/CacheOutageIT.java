package dev.socialgraph.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.cache.FollowingCacheScripts;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.keys.RedisKeys;
import dev.socialgraph.store.ShardDataSources;
import dev.socialgraph.testsupport.PrivateRedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Redis is only a cache: while it is down the follower side is still applied and offsets still advance. */
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
    void redisDown_eventsStillApplied_andCacheUpdatesResumeWhenItIsBack() {
        long follower = 11;
        KAFKA.publish(FollowEvent.follow(follower, 500, T0, 1, T0)); // the consumer connects to Redis
        KAFKA.awaitCaughtUp();
        assertThat(errors()).isZero();

        REDIS.stop();
        KAFKA.publish(FollowEvent.follow(follower, 501, T0 + 1, 2, T0 + 1));
        KAFKA.publish(FollowEvent.follow(12, 501, T0 + 2, 1, T0 + 2));
        KAFKA.awaitCaughtUp();
        assertThat(CdcHarness.followers(dataSources, 501))
                .containsExactly(new long[] {follower, T0 + 1}, new long[] {12, T0 + 2});
        assertThat(errors()).isGreaterThanOrEqualTo(2);

        REDIS.start(); // back, and empty
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

    private double errors() {
        var counter = registry.find("graph.cdc.cache.updates").tag("outcome", "error").counter();
        return counter == null ? 0 : counter.count();
    }
}
