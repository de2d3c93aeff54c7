package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.FollowingRepository;
import dev.socialgraph.store.FollowingRow;
import dev.socialgraph.store.ShardDataSources;
import dev.socialgraph.store.Transactions;
import dev.socialgraph.testsupport.ServiceProcess;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The public API through the gateway against the real write and check services (their runnable jars, each in its
 * own JVM) on real
 * PostgreSQL shards and Redis: authentication, the actor taken from the token, routing, and problem+json errors.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class GatewayIT {

    static final String TOKEN_SECRET = "gateway-it-follow-token-secret-0123456789";
    static final String JWT_SECRET = "gateway-it-jwt-secret-0123456789-abcdefghij";
    static final TestShards SHARDS = TestShards.create("gateway");
    static final ServiceProcess WRITE;
    static final ServiceProcess CHECK;

    static {
        String redis = TestServers.redis().uri(TestServers.redis().freshDatabase());
        Map<String, String> common = new HashMap<>(SHARDS.springProperties());
        common.put("graph.shards.migrate-on-startup", "true");
        Map<String, String> write = new HashMap<>(common);
        write.put("graph.write.token-secret", TOKEN_SECRET);
        write.put("graph.write.redis.uri", redis);
        write.put("graph.write.relay.enabled", "false");
        WRITE = ServiceProcess.start("follow-write-service", write, Duration.ofSeconds(120));
        Map<String, String> check = new HashMap<>(common);
        check.put("graph.check.token-secret", TOKEN_SECRET);
        check.put("graph.check.redis-uri", redis);
        check.put("graph.check.bloom.enabled", "false");
        CHECK = ServiceProcess.start("follow-check-service", check, Duration.ofSeconds(120));
    }

    @DynamicPropertySource
    static void routes(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.jwt-secret", () -> JWT_SECRET);
        registry.add("graph.gateway.write-uri", WRITE::baseUrl);
        registry.add("graph.gateway.check-uri", CHECK::baseUrl);
    }

    @AfterAll
    static void stop() {
        WRITE.close();
        CHECK.close();
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static String token(String subject, Instant expiresAt, String secret) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(subject).issueTime(new Date())
                .expirationTime(Date.from(expiresAt)).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(secret.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private static String token(long user) throws Exception {
        return token(Long.toString(user), Instant.now().plusSeconds(300), JWT_SECRET);
    }

    private HttpResponse<String> send(String method, String path, String bearer) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).method(method, HttpRequest.BodyPublishers.noBody());
        if (bearer != null) {
            b.header("Authorization", "Bearer " + bearer);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private Optional<FollowingRow> followingRow(long user) throws Exception {
        try (ShardDataSources ds = new ShardDataSources(SHARDS.shardMap(), new ShardDataSources.PoolSettings(
                SHARDS.username(), SHARDS.password(), 1, Duration.ofSeconds(5), "gateway-it"))) {
            return Transactions.inTransaction(ds.forUser(ShardGroup.FOLLOWING, user),
                    c -> new FollowingRepository().find(c, user));
        }
    }

    @Test
    void follow_writesAsTheTokensSubjectAndTheCheckSeesIt() throws Exception {
        HttpResponse<String> put = send("PUT", "/v1/me/following/202", token(101));
        assertThat(put.statusCode()).isEqualTo(200);
        assertThat(put.body()).contains("\"followerId\":101").contains("\"followeeId\":202").contains("followToken");
        assertThat(put.headers().firstValue("X-Request-Id")).isPresent();
        assertThat(followingRow(101).orElseThrow().followingIds()).containsExactly(202);

        HttpResponse<String> check = send("GET", "/v1/users/101/following/202", token(999));
        assertThat(check.statusCode()).isEqualTo(200);
        assertThat(check.body()).isEqualTo("{\"following\":true}");

        HttpResponse<String> delete = send("DELETE", "/v1/me/following/202", token(101));
        assertThat(delete.statusCode()).isEqualTo(200);
        assertThat(followingRow(101).orElseThrow().followingIds()).isEmpty();
        // Read-your-writes: the follow token of the reply makes the check skip the in-process layers at once.
        java.util.regex.Matcher followToken = java.util.regex.Pattern.compile("\"followToken\":\"([^\"]+)\"")
                .matcher(delete.body());
        assertThat(followToken.find()).isTrue();
        HttpRequest recheck = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/users/101/following/202"))
                .header("Authorization", "Bearer " + token(101)).header("X-Follow-Token", followToken.group(1)).GET().build();
        assertThat(http.send(recheck, HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("{\"following\":false}");
    }

    @Test
    void requestsWithoutAValidToken_get401ProblemJsonAndReachNoService() throws Exception {
        String[] bad = {
                null,
                "not-a-jwt",
                token("103", Instant.now().minusSeconds(60), JWT_SECRET),                        // expired
                token("103", Instant.now().plusSeconds(60), "another-secret-0123456789-abcdefghijklm"), // forged
                token("0", Instant.now().plusSeconds(60), JWT_SECRET),                           // not a user id
                token("abc", Instant.now().plusSeconds(60), JWT_SECRET),
        };
        for (String bearer : bad) {
            HttpResponse<String> r = send("PUT", "/v1/me/following/204", bearer);
            assertThat(r.statusCode()).as("token %s", bearer).isEqualTo(401);
            assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                    ct -> assertThat(ct).startsWith("application/problem+json"));
            assertThat(r.body()).contains("\"status\":401").contains("Authorization");
        }
        assertThat(followingRow(103)).isEmpty();
    }

    @Test
    void internalPathsAreNotRoutedAndNoPathWritesAsAnotherUser() throws Exception {
        String bearer = token(105);
        HttpResponse<String> internal = send("PUT", "/internal/v1/users/106/following/107", bearer);
        assertThat(internal.statusCode()).isEqualTo(404);
        assertThat(internal.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        for (String path : new String[] {"/v1/users/106/following/107", "/v1/me/following/..%2F..%2F106%2Ffollowing%2F107",
                "/v1/me/following/%2e%2e", "/v1/me/following/107%3Fx"}) {
            HttpResponse<String> r = send("PUT", path, bearer);
            assertThat(r.statusCode()).as(path).isBetween(400, 499);
            assertThat(r.headers().firstValue("Content-Type").orElse("")).as(path).startsWith("application/problem+json");
        }
        assertThat(followingRow(106)).isEmpty();
        assertThat(followingRow(105)).isEmpty();
    }

    @Test
    void badTargetIds_get400NamingTheField() throws Exception {
        for (String target : new String[] {"0", "-1", "abc", "9223372036854775808"}) {
            HttpResponse<String> r = send("PUT", "/v1/me/following/" + target, token(108));
            assertThat(r.statusCode()).as(target).isEqualTo(400);
            assertThat(r.body()).as(target).contains("targetId");
        }
        assertThat(followingRow(108)).isEmpty();
    }

    @Test
    void serviceErrorsPassThroughAsProblemJson() throws Exception {
        HttpResponse<String> self = send("PUT", "/v1/me/following/109", token(109));
        assertThat(self.statusCode()).isEqualTo(400);
        assertThat(self.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        HttpResponse<String> badLimit = send("GET", "/v1/users/109/following?limit=0", token(109));
        assertThat(badLimit.statusCode()).isEqualTo(400);
        assertThat(badLimit.body()).contains("limit");
    }
}
