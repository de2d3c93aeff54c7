package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every public endpoint (docs/openapi.yaml) answering through the gateway on the whole write and read path:
 * follows written by follow-write-service, relayed to {@code follow-events} on a real Kafka broker, applied to the
 * follower side by cdc-consumer, read by follow-check-service (bloom filter on, fed by the same topic), each
 * service its own JVM from its runnable jar, on real PostgreSQL shards and Redis. The gateway uses its default
 * single-instance list ({@code graph.gateway.check-uri} / {@code write-uri}).
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PublicApiIT {

    static final String TOKEN_SECRET = "public-api-it-follow-token-secret-0123456789";
    static final String JWT_SECRET = "public-api-it-jwt-secret-0123456789-abcdefghij";
    static final TestShards SHARDS = TestShards.create("public_api");
    static final KafkaServer KAFKA = TestServers.kafka();
    static final String TOPIC = KAFKA.createTopic("follow-events", 4);
    static ServiceProcess WRITE;
    static ServiceProcess CHECK;
    static ServiceProcess CDC;
    static final JsonMapper JSON = JsonMapper.builder().build();
    /** Other readers see a write within 2 s (DESIGN.md 1); generous for a loaded test machine. */
    static final Duration CONVERGENCE = Duration.ofSeconds(30);

    static {
        String redis = TestServers.redis().uri(TestServers.redis().freshDatabase());
        Map<String, String> common = new HashMap<>(SHARDS.springProperties());
        common.put("logging.level.org.apache.kafka", "warn");
        try {
            start(common, redis);
        } catch (RuntimeException e) {
            stop(); // a failed class initializer runs no @AfterAll: do not leave the JVMs running
            throw e;
        }
    }

    private static void start(Map<String, String> common, String redis) {
        Map<String, String> write = new HashMap<>(common);
        write.put("graph.shards.migrate-on-startup", "true");
        write.put("graph.write.token-secret", TOKEN_SECRET);
        write.put("graph.write.redis.uri", redis);
        write.put("graph.write.topic", TOPIC);
        write.put("graph.write.relay.bootstrap-servers", KAFKA.bootstrapServers());
        write.put("graph.write.relay.poll-interval", "50ms");
        WRITE = ServiceProcess.start("follow-write-service", write, Duration.ofSeconds(180));
        Map<String, String> cdc = new HashMap<>(common);
        cdc.put("spring.kafka.bootstrap-servers", KAFKA.bootstrapServers());
        cdc.put("graph.cdc.topic", TOPIC);
        cdc.put("graph.cdc.dlt-topic", KAFKA.createTopic(TOPIC + ".DLT", 1));
        cdc.put("graph.cdc.group-id", "cdc-" + TOPIC);
        cdc.put("graph.cdc.redis-uri", redis);
        CDC = ServiceProcess.start("cdc-consumer", cdc, Duration.ofSeconds(180));
        Map<String, String> check = new HashMap<>(common);
        check.put("graph.check.token-secret", TOKEN_SECRET);
        check.put("graph.check.redis-uri", redis);
        check.put("graph.check.bloom.kafka-bootstrap", KAFKA.bootstrapServers());
        check.put("graph.check.bloom.topic", TOPIC);
        check.put("graph.check.bloom.minimum-expected-edges", "1000");
        check.put("graph.check.bloom.snapshot-dir", "target/public-api-it-no-snapshots");
        CHECK = ServiceProcess.start("follow-check-service", check, Duration.ofSeconds(180));
    }

    @DynamicPropertySource
    static void routes(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.jwt-secret", () -> JWT_SECRET);
        // A service JVM's first answers can take seconds on a loaded test machine (cold JIT, first connections);
        // the 5 s production timeout would turn them into 504s.
        registry.add("graph.gateway.response-timeout", () -> "30s");
        registry.add("spring.data.redis.host", () -> TestServers.redis().host());
        registry.add("spring.data.redis.port", () -> TestServers.redis().port());
        registry.add("graph.gateway.write-uri", WRITE::baseUrl);
        registry.add("graph.gateway.check-uri", CHECK::baseUrl);
    }

    @AfterAll
    static void stop() {
        for (ServiceProcess service : new ServiceProcess[] {CHECK, CDC, WRITE}) {
            if (service != null) {
                service.close();
            }
        }
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();

    private static String token(long user) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(Long.toString(user)).issueTime(new Date())
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(JWT_SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private HttpResponse<String> send(String method, String path, long actor, String body, String followToken)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + token(actor))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (followToken != null) {
            b.header("X-Follow-Token", followToken);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** GET as user 9, asserting 200; the parsed body. */
    private JsonNode get(String path) throws Exception {
        HttpResponse<String> r = send("GET", path, 9, null, null);
        assertThat(r.statusCode()).as("GET %s: %s", path, r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    /** PUT /v1/me/following/{followee} as {@code follower}; the follow token of the reply. */
    private String follow(long follower, long followee) throws Exception {
        HttpResponse<String> r = send("PUT", "/v1/me/following/" + followee, follower, null, null);
        assertThat(r.statusCode()).as("follow %d -> %d: %s", follower, followee, r.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.get("followerId").asLong()).isEqualTo(follower);
        assertThat(body.get("followeeId").asLong()).isEqualTo(followee);
        return body.get("followToken").asString();
    }

    /** Walks every page of a list with {@code limit}, asserting page sizes; the ids in order. */
    private List<Long> walk(String path, int limit, String idField) throws Exception {
        List<Long> ids = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            JsonNode page = get(path + "?limit=" + limit + (cursor == null ? "" : "&cursor=" + cursor));
            assertThat(page.get("items").size()).isBetween(0, limit);
            for (JsonNode item : page.get("items")) {
                ids.add(item.get(idField).asLong());
            }
            JsonNode next = page.get("nextCursor");
            cursor = next == null || next.isNull() ? null : next.asString();
            assertThat(++pages).as("pages of %s", path).isLessThan(20);
        } while (cursor != null);
        return ids;
    }

    /**
     * Users 1001 follows 1002..1005; 1002 follows 1003, 1004, 1006; 1003 follows 1004, 1006; so 1001's
     * suggestions are 1006 (followed by two of its followings); 1005 follows then unfollows 1001.
     */
    @Test
    void everyPublicEndpoint_answersThroughTheGateway() throws Exception {
        long a = 1001, b = 1002, c = 1003, d = 1004, e = 1005, f = 1006;
        for (long followee : new long[] {b, c, d}) {
            follow(a, followee);
        }
        String lastToken = follow(a, e);
        follow(b, c);
        follow(b, d);
        follow(b, f);
        follow(c, d);
        follow(c, f);
        follow(e, a);
        HttpResponse<String> unfollow = send("DELETE", "/v1/me/following/" + a, e, null, null);
        assertThat(unfollow.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(unfollow.body()).get("followerId").asLong()).isEqualTo(e);
        String unfollowToken = JSON.readTree(unfollow.body()).get("followToken").asString();

        // GET /v1/users/{id}/following/{targetId}: with the follow token at once (read-your-writes), and without
        // once the event reached the check service's bloom filter.
        HttpResponse<String> fresh = send("GET", "/v1/users/" + a + "/following/" + e, a, null, lastToken);
        assertThat(fresh.statusCode()).isEqualTo(200);
        assertThat(fresh.body()).isEqualTo("{\"following\":true}");
        assertThat(send("GET", "/v1/users/" + e + "/following/" + a, e, null, unfollowToken).body())
                .isEqualTo("{\"following\":false}");
        await().atMost(CONVERGENCE).untilAsserted(() ->
                assertThat(get("/v1/users/" + a + "/following/" + e).get("following").asBoolean()).isTrue());
        assertThat(get("/v1/users/" + a + "/following/" + f).get("following").asBoolean()).isFalse();
        assertThat(get("/v1/users/" + e + "/following/" + a).get("following").asBoolean()).isFalse();

        // POST /v1/users/{id}/following/contains
        HttpResponse<String> contains = send("POST", "/v1/users/" + a + "/following/contains", 9,
                "{\"ids\":[" + f + "," + c + ",\"" + b + "\"," + c + "]}", null);
        assertThat(contains.statusCode()).as(contains.body()).isEqualTo(200);
        assertThat(contains.body()).isEqualTo("{\"following\":[" + b + "," + c + "],\"notFollowing\":[" + f + "]}");

        // GET /v1/users/{id}/following, newest first, two per page.
        assertThat(walk("/v1/users/" + a + "/following", 2, "userId")).containsExactly(e, d, c, b);
        assertThat(get("/v1/users/" + a + "/following?limit=1").get("items").get(0).get("followedAt").asLong())
                .isPositive();

        // GET /v1/users/{id}/followers: the follower side, written by cdc-consumer.
        await().atMost(CONVERGENCE).untilAsserted(() ->
                assertThat(walk("/v1/users/" + d + "/followers", 2, "userId")).containsExactly(c, b, a));
        await().atMost(CONVERGENCE).untilAsserted(() ->
                assertThat(walk("/v1/users/" + a + "/followers", 1, "userId")).isEmpty());

        // GET /v1/users/{id}/counts
        await().atMost(CONVERGENCE).untilAsserted(() -> {
            JsonNode counts = get("/v1/users/" + d + "/counts");
            assertThat(counts.get("followers").asLong()).isEqualTo(3);
            assertThat(counts.get("following").asLong()).isZero();
        });
        JsonNode countsA = get("/v1/users/" + a + "/counts");
        assertThat(countsA.get("following").asLong()).isEqualTo(4);
        assertThat(countsA.get("followers").asLong()).isZero();

        // GET /v1/users/{id}/common-following/{otherId}, ascending by id, one per page.
        assertThat(walk("/v1/users/" + a + "/common-following/" + b, 1, "userId")).containsExactly(c, d);

        // GET /v1/users/{id}/relationship/{otherId}
        JsonNode ab = get("/v1/users/" + a + "/relationship/" + b);
        assertThat(ab.get("following").asBoolean()).isTrue();
        assertThat(ab.get("followedBy").asBoolean()).isFalse();
        JsonNode ba = get("/v1/users/" + b + "/relationship/" + a);
        assertThat(ba.get("following").asBoolean()).isFalse();
        assertThat(ba.get("followedBy").asBoolean()).isTrue();

        // GET /v1/users/{id}/suggestions
        JsonNode suggestions = get("/v1/users/" + a + "/suggestions?limit=5");
        assertThat(suggestions.get("items").size()).isEqualTo(1);
        assertThat(suggestions.get("items").get(0).get("userId").asLong()).isEqualTo(f);
        assertThat(suggestions.get("items").get(0).get("mutualCount").asInt()).isEqualTo(2);
    }

    /**
     * Blocks and mutes on the whole path: 2002 follows 2001, then 2001 blocks 2002, so the block's event removes
     * 2002's follow on its own shard; 2001 mutes 2003. Lists, hidden authors, the relationship and the refused
     * follow, as each user sees them.
     */
    @Test
    void blocksAndMutes_answerThroughTheGateway() throws Exception {
        long a = 2001, b = 2002, c = 2003, d = 2004;
        follow(b, a);
        follow(a, b);
        HttpResponse<String> block = send("PUT", "/v1/me/blocking/" + b, a, null, null);
        assertThat(block.statusCode()).as(block.body()).isEqualTo(200);
        HttpResponse<String> mute = send("PUT", "/v1/me/muting/" + c, a, null, null);
        assertThat(mute.statusCode()).isEqualTo(200);
        String aToken = JSON.readTree(mute.body()).get("followToken").asString();

        // The blocked user's follow of the blocker is removed by the consumer, and the check service learns it.
        await().atMost(CONVERGENCE).untilAsserted(() -> {
            assertThat(get("/v1/users/" + b + "/following/" + a).get("following").asBoolean()).isFalse();
            assertThat(walk("/v1/users/" + a + "/followers", 5, "userId")).isEmpty();
            assertThat(walk("/v1/users/" + b + "/followers", 5, "userId")).isEmpty();
        });
        assertThat(get("/v1/users/" + a + "/following/" + b).get("following").asBoolean()).isFalse();

        HttpResponse<String> blocking = send("GET", "/v1/me/blocking", a, null, null);
        assertThat(JSON.readTree(blocking.body()).get("items").get(0).get("userId").asLong()).isEqualTo(b);
        HttpResponse<String> muting = send("GET", "/v1/me/muting", a, null, null);
        assertThat(JSON.readTree(muting.body()).get("items").get(0).get("userId").asLong()).isEqualTo(c);
        assertThat(send("GET", "/v1/users/" + a + "/blocking", d, null, null).statusCode()).isEqualTo(403);

        String ids = "{\"ids\":[" + a + "," + b + "," + c + "," + d + "]}";
        String hiddenFromA = "{\"blocking\":[" + b + "],\"blockedBy\":[],\"muting\":[" + c + "]}";
        // With the writer's token at once (read-your-writes); without it, once the events reached the check service.
        assertThat(send("POST", "/v1/me/hidden", a, ids, aToken).body()).isEqualTo(hiddenFromA);
        await().atMost(CONVERGENCE).untilAsserted(() ->
                assertThat(send("POST", "/v1/me/hidden", a, ids, null).body()).isEqualTo(hiddenFromA));
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(send("POST", "/v1/me/hidden", b, ids, null).body())
                .isEqualTo("{\"blocking\":[],\"blockedBy\":[" + a + "],\"muting\":[]}"));
        assertThat(send("POST", "/v1/me/hidden", d, ids, null).body())
                .isEqualTo("{\"blocking\":[],\"blockedBy\":[],\"muting\":[]}");

        JsonNode seenByB = JSON.readTree(send("GET", "/v1/users/" + b + "/relationship/" + a, b, null, null).body());
        assertThat(seenByB.get("blockedBy").asBoolean()).isTrue();
        assertThat(seenByB.get("following").asBoolean()).isFalse();
        assertThat(seenByB.has("muting")).isTrue();
        assertThat(JSON.readTree(send("GET", "/v1/users/" + a + "/relationship/" + c, d, null, null).body())
                .has("muting")).as("a mute is the muter's alone").isFalse();

        HttpResponse<String> refused = send("PUT", "/v1/me/following/" + a, b, null, null);
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        assertThat(send("PUT", "/v1/me/following/" + b, a, null, null).statusCode()).isEqualTo(409);

        assertThat(send("DELETE", "/v1/me/blocking/" + b, a, null, null).statusCode()).isEqualTo(200);
        assertThat(get("/v1/users/" + b + "/following/" + a).get("following").asBoolean())
                .as("unblocking restores nothing").isFalse();
        follow(b, a);
    }
}
