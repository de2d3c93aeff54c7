package dev.socialgraph.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PrivateRedisServerIT {

    private static final Path MACHINE_REDIS = Path.of("/usr/bin/redis-server");

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
    void stop_thenConnectionsAreRefused_andStartServesSamePortAgainEmpty() {
        try (PrivateRedisServer redis = TestServers.privateRedis()) {
            RedisURI uri = RedisURI.create(redis.uri(0));
            uri.setTimeout(Duration.ofSeconds(5));
            try (StatefulRedisConnection<String, String> connection = client.connect(uri)) {
                connection.sync().set("rate:{9}", "3");
                assertThat(connection.sync().get("rate:{9}")).isEqualTo("3");
            }
            int port = redis.port();

            redis.stop();

            assertThat(redis.isRunning()).isFalse();
            assertThatThrownBy(() -> client.connect(uri).close())
                    .isInstanceOf(RedisConnectionException.class)
                    .rootCause()
                    .isInstanceOf(ConnectException.class)
                    .hasMessageContaining("Connection refused");

            redis.start();

            assertThat(redis.isRunning()).isTrue();
            assertThat(redis.port()).isEqualTo(port);
            try (StatefulRedisConnection<String, String> connection = client.connect(uri)) {
                assertThat(connection.sync().get("rate:{9}")).isNull();
                connection.sync().set("rate:{9}", "4");
                assertThat(connection.sync().get("rate:{9}")).isEqualTo("4");
            }
        }
    }

    @Test
    void close_stopsServerForGood() {
        PrivateRedisServer redis = TestServers.privateRedis();
        RedisURI uri = RedisURI.create(redis.uri());

        redis.close();
        redis.close();

        assertThat(redis.isRunning()).isFalse();
        assertThatThrownBy(() -> client.connect(uri).close()).isInstanceOf(RedisConnectionException.class);
        assertThatThrownBy(redis::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void privateRedis_isSeparateFromSharedServer() {
        try (PrivateRedisServer redis = TestServers.privateRedis()) {
            assertThat(redis.port()).isNotEqualTo(TestServers.redis().port());
            assertThat(redis.source()).isEqualTo(Source.EMBEDDED);
        }
    }

    @Test
    void start_withMissingPreferredBinaryAndNoneOnPath_usesBinaryBundledInEmbeddedRedis() {
        try (PrivateRedisServer redis = PrivateRedisServer.start(Optional.of(Path.of("/nonexistent/redis-server")),
                false)) {
            assertThat(redis.binary().getFileName().toString()).startsWith("redis-server-6.2.");
            assertThat(serverInfo(redis)).contains("redis_version:6.2.");
        }
    }

    @Test
    void start_withRedisServerOnPath_usesIt() {
        assumeTrue(Files.isExecutable(MACHINE_REDIS), "no redis-server installed on this machine");
        try (PrivateRedisServer redis = TestServers.privateRedis()) {
            assertThat(redis.binary().getFileName()).hasToString("redis-server");
            assertThat(serverInfo(redis)).contains("executable:" + redis.binary());
        }
    }

    private static String serverInfo(RedisServer redis) {
        try (StatefulRedisConnection<String, String> connection = client.connect(RedisURI.create(redis.uri()))) {
            return connection.sync().info("server");
        }
    }
}
