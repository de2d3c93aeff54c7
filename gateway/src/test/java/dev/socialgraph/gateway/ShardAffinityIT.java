package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.common.shard.ShardAffinity;
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
import java.util.BitSet;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Shard-affine reads with two follow-check-service instances behind the gateway, each its own JVM with
 * its own {@code graph.check.affinity.instance-id} and the same {@code graph.check.affinity.instances}; the gateway
 * lists both in {@code spring.cloud.discovery.client.simple.instances.follow-check-service}. Edges are written
 * through follow-write-service before the check instances start (the relay is off), so each instance's bloom filter
 * comes from its start-up scan alone: it must hold exactly the edges of followers in its own logical shards.
 * Which instance answered is read from the {@code X-Served-By} header the check service adds.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ShardAffinityIT {

    static final String TOKEN_SECRET = "affinity-it-follow-token-secret-0123456789";
    static final String JWT_SECRET = "affinity-it-jwt-secret-0123456789-abcdefghij";
    static final List<String> INSTANCES = List.of("check-a", "check-b");
    static final TestShards SHARDS = TestShards.create("affinity");
    static final KafkaServer KAFKA = TestServers.kafka();
    static final String TOPIC = KAFKA.createTopic("follow-events", 2);
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();
    static final JsonMapper JSON = JsonMapper.builder().build();
    /** Followers 1..80 (logical shards 1..80) and 300..339 (44..83), each following two users. */
    static final long[] FOLLOWERS;
    static final ServiceProcess WRITE;
    static final Map<String, ServiceProcess> CHECKS = new HashMap<>();

    static {
        List<Long> followers = new ArrayList<>();
        for (long f = 1; f <= 80; f++) {
            followers.add(f);
        }
        for (long f = 300; f < 340; f++) {
            followers.add(f);
        }
        FOLLOWERS = followers.stream().mapToLong(Long::longValue).toArray();

        String redis = TestServers.redis().uri(TestServers.redis().freshDatabase());
        Map<String, String> common = new HashMap<>(SHARDS.springProperties());
        common.put("logging.level.org.apache.kafka", "warn");
        Map<String, String> write = new HashMap<>(common);
        write.put("graph.shards.migrate-on-startup", "true");
        write.put("graph.write.token-secret", TOKEN_SECRET);
        write.put("graph.write.redis.uri", redis);
        write.put("graph.write.relay.enabled", "false");
        WRITE = ServiceProcess.start("follow-write-service", write, Duration.ofSeconds(180));
        try {
            seedAndStartChecks(common, redis);
        } catch (RuntimeException e) {
            stop(); // a failed class initializer runs no @AfterAll: do not leave the JVMs running
            throw e;
        }
    }

    private static void seedAndStartChecks(Map<String, String> common, String redis) {
        for (long follower : FOLLOWERS) {
            for (long followee : followeesOf(follower)) {
                HttpResponse<String> r = call("PUT", WRITE.baseUrl() + "/internal/v1/users/" + follower
                        + "/following/" + followee);
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("seeding " + follower + " -> " + followee + ": " + r.body());
                }
            }
        }
        for (String id : INSTANCES) {
            Map<String, String> check = new HashMap<>(common);
            check.put("graph.check.token-secret", TOKEN_SECRET);
            check.put("graph.check.redis-uri", redis);
            check.put("graph.check.bloom.kafka-bootstrap", KAFKA.bootstrapServers());
            check.put("graph.check.bloom.topic", TOPIC);
            check.put("graph.check.bloom.minimum-expected-edges", "1000");
            check.put("graph.check.bloom.snapshot-dir", "target/affinity-it-no-snapshots");
            check.put("graph.check.affinity.instance-id", id);
            check.put("graph.check.affinity.instances", String.join(",", INSTANCES));
            // The relay is off, so the seeded follows stay in the outbox, unpublished: the feed-lag guard would
            // (rightly) never trust the filter. This test is about which edges each filter holds, not the guard.
            check.put("graph.check.feed.max-lag", "1d");
            CHECKS.put(id, ServiceProcess.start("follow-check-service", check, Duration.ofSeconds(180)));
        }
    }

    /** The two users {@code follower} follows. */
    static long[] followeesOf(long follower) {
        return new long[] {follower + 10_000, follower + 20_000};
    }

    @DynamicPropertySource
    static void routes(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.jwt-secret", () -> JWT_SECRET);
        // A service JVM's first answers can take seconds on a loaded test machine (cold JIT, first connections);
        // the 5 s production timeout would turn them into 504s.
        registry.add("graph.gateway.response-timeout", () -> "30s");
        registry.add("spring.data.redis.host", () -> TestServers.redis().host());
        registry.add("spring.data.redis.port", () -> TestServers.redis().port());
        registry.add("graph.gateway.reads.replenish-rate", () -> "100000");
        registry.add("graph.gateway.reads.burst-capacity", () -> "100000");
        registry.add("graph.gateway.write-uri", WRITE::baseUrl);
        for (int i = 0; i < INSTANCES.size(); i++) {
            String prefix = "spring.cloud.discovery.client.simple.instances.follow-check-service[" + i + "].";
            String id = INSTANCES.get(i);
            registry.add(prefix + "instance-id", () -> id);
            registry.add(prefix + "uri", () -> CHECKS.get(id).baseUrl());
        }
    }

    @AfterAll
    static void stop() {
        CHECKS.values().forEach(ServiceProcess::close);
        WRITE.close();
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    private static HttpResponse<String> call(String method, String url) {
        return call(method, url, null, null);
    }

    private static HttpResponse<String> call(String method, String url, String bearer, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)) // loaded CI
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (bearer != null) {
            b.header("Authorization", "Bearer " + bearer);
        } else {
            b.header("X-Service-Token", ServiceProcess.SERVICE_TOKEN); // straight to a service, which requires it
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(method + " " + url, e);
        }
    }

    private static String token(long user) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(Long.toString(user)).issueTime(new Date())
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(JWT_SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private static String owner(long user) {
        return ShardAffinity.owner((int) Math.floorMod(user, (long) TestShards.LOGICAL_SHARDS), INSTANCES);
    }

    /** Answers of the check instance that the bloom filter gave ({@code graph.check.latency{layer="bloom"}}). */
    private static long bloomAnswers(String instance) {
        String metrics = call("GET", CHECKS.get(instance).managementUrl() + "/actuator/prometheus").body();
        Matcher m = Pattern.compile("(?m)^graph_check_latency_seconds_count\\{[^}]*layer=\"bloom\"[^}]*} (\\S+)$")
                .matcher(metrics);
        assertThat(m.find()).as("bloom latency count of %s", instance).isTrue();
        return (long) Double.parseDouble(m.group(1));
    }

    @Test
    void everyRequestAboutAFollower_reachesTheInstanceThatOwnsItsShard() throws Exception {
        String base = "http://127.0.0.1:" + port + "/v1/users/";
        Set<String> served = new HashSet<>();
        for (long follower : FOLLOWERS) {
            String bearer = token(follower); // each user asks about itself: its own rate-limit bucket
            String expected = owner(follower);
            long followee = followeesOf(follower)[0];
            List<HttpResponse<String>> replies = List.of(
                    call("GET", base + follower + "/following/" + followee, bearer, null),
                    call("GET", base + follower + "/following/" + (followee + 5), bearer, null),
                    call("POST", base + follower + "/following/contains", bearer, "{\"ids\":[" + followee + "]}"),
                    call("GET", base + follower + "/following?limit=1", bearer, null),
                    call("GET", base + follower + "/counts", bearer, null),
                    call("GET", base + follower + "/relationship/" + followee, bearer, null));
            for (HttpResponse<String> r : replies) {
                assertThat(r.statusCode()).as("%s: %s", r.uri(), r.body()).isEqualTo(200);
                assertThat(r.headers().firstValue("X-Served-By")).as("%s", r.uri()).hasValue(expected);
            }
            assertThat(replies.get(0).body()).isEqualTo("{\"following\":true}");
            assertThat(replies.get(1).body()).isEqualTo("{\"following\":false}");
            served.add(expected);
        }
        assertThat(served).containsExactlyInAnyOrderElementsOf(INSTANCES);
        // A bad id goes to some instance and still gets the check service's 400 naming it.
        HttpResponse<String> bad = call("GET", base + "0/counts", token(7), null);
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("\"id\"");
    }

    @Test
    void eachInstancesBloomFilter_holdsExactlyTheEdgesOfItsOwnShards() throws Exception {
        int totalShards = 0;
        for (String instance : INSTANCES) {
            ServiceProcess check = CHECKS.get(instance);
            JsonNode state = JSON.readTree(call("GET", check.baseUrl() + "/internal/v1/bloom").body());
            assertThat(state.get("state").asString()).isEqualTo("ready");
            assertThat(state.get("instanceId").asString()).isEqualTo(instance);
            BitSet owned = ShardAffinity.ownedShards(instance, INSTANCES, TestShards.LOGICAL_SHARDS);
            List<Integer> ownedShards = new ArrayList<>();
            state.get("ownedShards").forEach(s -> ownedShards.add(s.asInt()));
            assertThat(ownedShards).containsExactlyElementsOf(owned.stream().boxed().toList());
            totalShards += ownedShards.size();

            long expectedEdges = 0;
            for (long follower : FOLLOWERS) {
                if (owned.get((int) (follower % TestShards.LOGICAL_SHARDS))) {
                    expectedEdges += followeesOf(follower).length;
                }
            }
            assertThat(expectedEdges).as("seeded edges owned by %s", instance).isPositive();
            assertThat(state.get("edges").asLong()).as("edges in the filter of %s", instance).isEqualTo(expectedEdges);
        }
        assertThat(totalShards).isEqualTo(TestShards.LOGICAL_SHARDS);
    }

    /**
     * Asked directly, each instance answers every follower correctly: for its own followers the filter holds every
     * edge (a missing one would be a false "no") and rules out non-edges by itself; for the other instance's
     * followers it does not consult its filter (which lacks their edges) and answers from the caches or shard.
     */
    @Test
    void eachInstance_answersFromItsFilterOnlyForItsOwnFollowers() {
        for (String instance : INSTANCES) {
            String base = CHECKS.get(instance).baseUrl() + "/internal/v1/users/";
            int ownNonEdges = 0;
            long before = bloomAnswers(instance);
            for (long follower : FOLLOWERS) {
                if (!owner(follower).equals(instance)) {
                    continue;
                }
                for (long followee : followeesOf(follower)) {
                    assertThat(call("GET", base + follower + "/following/" + followee).body())
                            .isEqualTo("{\"following\":true}");
                }
                assertThat(call("GET", base + follower + "/following/" + (follower + 30_000)).body())
                        .isEqualTo("{\"following\":false}");
                ownNonEdges++;
            }
            long ownBloomAnswers = bloomAnswers(instance) - before;
            // fpp 0.001 over at least 1000 expected edges: every non-edge but (rarely) one is ruled out by the filter.
            assertThat(ownBloomAnswers).as("bloom answers of %s for its own followers", instance)
                    .isBetween((long) ownNonEdges - 1, (long) ownNonEdges);

            before = bloomAnswers(instance);
            int foreign = 0;
            for (long follower : FOLLOWERS) {
                if (owner(follower).equals(instance)) {
                    continue;
                }
                assertThat(call("GET", base + follower + "/following/" + followeesOf(follower)[1]).body())
                        .isEqualTo("{\"following\":true}");
                assertThat(call("GET", base + follower + "/following/" + (follower + 30_000)).body())
                        .isEqualTo("{\"following\":false}");
                foreign++;
            }
            assertThat(foreign).isPositive();
            assertThat(bloomAnswers(instance) - before).as("bloom answers of %s for other followers", instance)
                    .isZero();
        }
    }
}
