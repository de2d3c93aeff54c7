package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.testsupport.PrivateRedisServer;
import dev.socialgraph.testsupport.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Per-user rate limits against a real Redis. The services behind the routes are not running: a request the limiter
 * lets through gets 503 (service unavailable), one it stops gets 429, which is what these tests tell apart.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class RateLimitIT {

    static final String SECRET = "rate-limit-it-jwt-secret-0123456789-abcdefgh";
    static final PrivateRedisServer REDIS = TestServers.privateRedis();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.jwt-secret", () -> SECRET);
        registry.add("graph.gateway.write-uri", () -> "http://127.0.0.1:9"); // discard port: nothing listens
        registry.add("graph.gateway.check-uri", () -> "http://127.0.0.1:9");
        registry.add("graph.gateway.writes.replenish-rate", () -> "1");
        registry.add("graph.gateway.writes.burst-capacity", () -> "2");
        registry.add("graph.gateway.reads.replenish-rate", () -> "1");
        registry.add("graph.gateway.reads.burst-capacity", () -> "10");
        registry.add("spring.data.redis.host", REDIS::host);
        registry.add("spring.data.redis.port", REDIS::port);
    }

    @AfterAll
    static void stopRedis() {
        REDIS.close();
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build(); // no h2c upgrade attempt: plain HTTP/1.1 as API clients send it

    private int send(String method, String path, long user) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(Long.toString(user))
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + jwt.serialize())
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 429) {
            assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        }
        return r.statusCode();
    }

    @Test
    void writesBeyondTheBudgetGet429AndRecoverAfterRefill() throws Exception {
        long user = 501;
        assertThat(send("PUT", "/v1/me/following/2", user)).isEqualTo(503);
        assertThat(send("PUT", "/v1/me/following/2", user)).isEqualTo(503);
        // The bucket (2 tokens, +1 per second, refilled in whole seconds by the Redis script) runs dry within a
        // few more requests sent back to back; at most one refill can land in between.
        int rejected = 0;
        for (int i = 0; i < 4; i++) {
            if (send("PUT", "/v1/me/following/2", user) == 429) {
                rejected++;
            }
        }
        assertThat(rejected).isGreaterThanOrEqualTo(2);
        // Another user has a bucket of its own.
        assertThat(send("PUT", "/v1/me/following/2", 502)).isEqualTo(503);
        // Reads are a separate budget.
        assertThat(send("GET", "/v1/users/1/counts", user)).isEqualTo(503);
        Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(300))
                .until(() -> send("PUT", "/v1/me/following/2", user) == 503);
    }

    @Test
    void readsAndWritesHaveTheirOwnBudgets() throws Exception {
        long user = 504;
        // The reads budget (burst 10) lets 8 reads through back to back; the writes budget (burst 2) would not.
        for (int i = 0; i < 8; i++) {
            assertThat(send("GET", "/v1/users/1/counts", user)).as("read %d", i).isEqualTo(503);
        }
        // Writes have a bucket of their own, full although 8 reads were just made ...
        assertThat(send("PUT", "/v1/me/following/2", user)).isEqualTo(503);
        int rejected = 0;
        for (int i = 0; i < 4; i++) {
            rejected += send("PUT", "/v1/me/following/2", user) == 429 ? 1 : 0;
        }
        assertThat(rejected).isGreaterThanOrEqualTo(2);
        // ... and running it dry leaves the reads bucket alone.
        assertThat(send("GET", "/v1/users/1/counts", user)).isEqualTo(503);
    }

    @Test
    void singleChecks_spendTheReadsBudget() throws Exception {
        long user = 505;
        // The reads budget (burst 10, +1 per second) lets about ten checks through back to back (the service is
        // down: 503), then refuses them with 429 problem+json and Retry-After (send checks both): the coalesced
        // check's own handler spends the reads budget as the routes do.
        int rejected = 0;
        for (int i = 0; i < 20; i++) {
            int status = send("GET", "/v1/users/1/following/2", user);
            assertThat(status).as("check %d", i).isIn(503, 429);
            rejected += status == 429 ? 1 : 0;
        }
        assertThat(rejected).isGreaterThanOrEqualTo(5);
    }

    @Test
    void whenRedisIsDown_readsFailOpenAndWritesAreStillLimitedInProcess() throws Exception {
        REDIS.stop();
        try {
            long user = 503;
            for (int i = 0; i < 6; i++) {
                assertThat(send("GET", "/v1/users/1/counts", user)).as("read %d", i).isEqualTo(503);
            }
            int limited = 0;
            for (int i = 0; i < 5; i++) {
                if (send("PUT", "/v1/me/following/2", user) == 429) {
                    limited++;
                }
            }
            assertThat(limited).isGreaterThanOrEqualTo(3);
        } finally {
            REDIS.start();
        }
    }
}
