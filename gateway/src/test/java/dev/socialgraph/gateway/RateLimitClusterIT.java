package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.localruntime.RedisCluster;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The per-user rate limits on a Redis Cluster of six real {@code redis-server} processes, configured as an operator
 * would ({@code spring.data.redis.cluster.nodes}), including the master holding a user's bucket killed: the user is
 * limited in process meanwhile and by the bucket on the promoted replica afterwards. As in {@link RateLimitIT}, no
 * service runs behind the routes: 503 means the limiter let a request through, 429 that it stopped it.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class RateLimitClusterIT {

    static final String SECRET = "rate-limit-cluster-it-jwt-secret-0123456789";
    static final RedisCluster CLUSTER = start();

    private static RedisCluster start() {
        try {
            return RedisCluster.start(Files.createTempDirectory("gateway-redis-cluster"), RedisCluster.freePorts(6),
                    3, 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.jwt-secret", () -> SECRET);
        registry.add("graph.gateway.write-uri", () -> "http://127.0.0.1:9"); // discard port: nothing listens
        registry.add("graph.gateway.check-uri", () -> "http://127.0.0.1:9");
        registry.add("graph.gateway.writes.replenish-rate", () -> "1");
        registry.add("graph.gateway.writes.burst-capacity", () -> "2");
        registry.add("spring.data.redis.cluster.nodes", () -> String.join(",", CLUSTER.seeds()));
    }

    @AfterAll
    static void stopCluster() {
        CLUSTER.close();
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();

    private int write(long user) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(Long.toString(user))
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/me/following/2"))
                .header("Authorization", "Bearer " + jwt.serialize())
                .PUT(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    /** The user's writes bucket as stored in the cluster, or an empty map. */
    private static Map<String, String> bucket(long user) {
        List<RedisURI> seeds = CLUSTER.seeds().stream().map(s -> RedisURI.create("redis://" + s)).toList();
        RedisClusterClient client = RedisClusterClient.create(seeds);
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            return connection.sync().hgetall(key(user));
        } finally {
            client.shutdown();
        }
    }

    /** Deletes the user's bucket through the cluster; {@code false} while its slot has no master. */
    private static boolean deleteBucket(long user) {
        List<RedisURI> seeds = CLUSTER.seeds().stream().map(s -> RedisURI.create("redis://" + s)).toList();
        RedisClusterClient client = RedisClusterClient.create(seeds);
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            connection.sync().del(key(user));
            return connection.sync().exists(key(user)) == 0;
        } catch (RuntimeException e) {
            return false;
        } finally {
            client.shutdown();
        }
    }

    private static String key(long user) {
        return "rate_limit.{writes." + user + "}";
    }

    /** Sends a few writes back to back and counts the 429s. */
    private int refusedOf(long user, int requests) throws Exception {
        int refused = 0;
        for (int i = 0; i < requests; i++) {
            refused += write(user) == 429 ? 1 : 0;
        }
        return refused;
    }

    @Test
    void writesBeyondTheBudgetGet429_fromABucketInTheCluster() throws Exception {
        long user = 601;
        assertThat(write(user)).isEqualTo(503);
        assertThat(bucket(user)).containsKeys("tokens", "ts");
        // Burst 2, +1 per second: a few more back to back run it dry; at most one refill lands in between.
        assertThat(refusedOf(user, 5)).isGreaterThanOrEqualTo(2);
    }

    @Test
    void theMasterOfABucketKilled_limitsInProcess_thenFromThePromotedReplica() throws Exception {
        long user = 602;
        assertThat(write(user)).isEqualTo(503);
        CLUSTER.killMasterOf(key(user));

        // Redis cannot answer for this bucket: the in-process limiter at the write rate takes over.
        assertThat(refusedOf(user, 6)).isGreaterThanOrEqualTo(3);

        CLUSTER.awaitFailover();
        // The replicated bucket is removed, so only a gateway that reaches the promoted replica can bring it back.
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> deleteBucket(user));
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> write(user) > 0 && bucket(user).containsKey("tokens"));
        assertThat(refusedOf(user, 5)).isGreaterThanOrEqualTo(2);
    }
}
