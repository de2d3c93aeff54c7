package dev.socialgraph.cache;

import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;

/** The protocol on one standalone Redis (test-support's shared server, a fresh logical database). */
class FollowingCacheIT extends FollowingCacheContract {

    private static String uri;

    @BeforeAll
    static void database() {
        RedisServer server = TestServers.redis();
        uri = server.uri(server.freshDatabase());
    }

    @Override
    protected RedisConnector connect() {
        return new RedisConnector(RedisEndpoint.parse(uri, RedisMode.STANDALONE, Duration.ofSeconds(2),
                Duration.ofSeconds(2)));
    }

    @Override
    protected void scriptFlush() {
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().scriptFlush();
        } finally {
            client.shutdown();
        }
    }
}
