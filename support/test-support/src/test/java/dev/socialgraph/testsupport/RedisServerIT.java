package dev.socialgraph.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RedisServerIT {

    private static final RedisServer redis = TestServers.redis();
    private static RedisClient client;

    @BeforeAll
    static void createClient() {
        client = RedisClient.create();
    }

    @AfterAll
    static void shutDownClient() {
        client.shutdown();
    }

    @Test
    void redis_withoutEnvironmentVariable_isEmbeddedOnLoopback() {
        assumeTrue(System.getenv(TestServers.REDIS_URL) == null, "external Redis configured");

        assertThat(redis.source()).isEqualTo(Source.EMBEDDED);
        assertThat(redis.host()).isEqualTo("127.0.0.1");
        assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
    }

    @Test
    void redis_calledAgain_returnsSameServer() {
        assertThat(TestServers.redis()).isSameAs(redis);
    }

    @Test
    void uri_withFreshDatabase_setAndGetThroughLettuce() {
        int database = redis.freshDatabase();
        try (StatefulRedisConnection<String, String> connection = client.connect(RedisURI.create(redis.uri(database)))) {
            RedisCommands<String, String> commands = connection.sync();

            commands.sadd("following:{42}", "-1", "7", "9");
            commands.set("count:{42}", "2");

            assertThat(commands.get("count:{42}")).isEqualTo("2");
            assertThat(commands.smembers("following:{42}")).containsExactlyInAnyOrder("-1", "7", "9");
            assertThat(commands.dbsize()).isEqualTo(2);
        }
    }

    @Test
    void freshDatabase_twice_givesDistinctIsolatedDatabases() {
        int first = redis.freshDatabase();
        int second = redis.freshDatabase();
        try (StatefulRedisConnection<String, String> one = client.connect(RedisURI.create(redis.uri(first)));
                StatefulRedisConnection<String, String> two = client.connect(RedisURI.create(redis.uri(second)))) {
            one.sync().set("suggest:{1}", "from-first");

            assertThat(first).isBetween(1, 15);
            assertThat(second).isBetween(1, 15).isNotEqualTo(first);
            assertThat(two.sync().get("suggest:{1}")).isNull();
            assertThat(two.sync().dbsize()).isZero();
            assertThat(one.sync().get("suggest:{1}")).isEqualTo("from-first");
        }
    }

    @Test
    void freshDatabase_whenIndexComesRound_hasBeenEmptied() {
        int first = redis.freshDatabase();
        try (StatefulRedisConnection<String, String> connection = client.connect(RedisURI.create(redis.uri(first)))) {
            connection.sync().set("left-over", "x");
            List<Integer> taken = new ArrayList<>();
            for (int i = 0; i < 14; i++) {
                taken.add(redis.freshDatabase());
            }

            int again = redis.freshDatabase();

            assertThat(taken).doesNotContain(first).doesNotHaveDuplicates().allMatch(d -> d >= 1 && d <= 15);
            assertThat(again).isEqualTo(first);
            assertThat(connection.sync().get("left-over")).isNull();
        }
    }
}
