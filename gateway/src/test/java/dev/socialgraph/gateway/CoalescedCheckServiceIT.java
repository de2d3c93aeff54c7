package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import io.micrometer.core.instrument.MeterRegistry;
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
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Concurrent single checks through the gateway, coalesced into batch calls, against the real write and check
 * services (their jars, each in its own JVM) on real PostgreSQL, Redis and Kafka: every caller gets its own right
 * answer, and the check instance gets fewer calls than there were checks.
 *
 * <p>The follows are written before the check instance starts and the write service's relay is off, so the bloom
 * filter holds exactly those edges and never learns a later follow: a follow made during the test is answered
 * {@code false} by the filter, and {@code true} only to a check that carries the follow's token (read-your-writes,
 * which skips the filter). The same pair asked with and without the token in one burst tells the tokens apart.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class CoalescedCheckServiceIT {

    static final String TOKEN_SECRET = "coalesced-service-it-follow-token-secret-0123";
    static final String JWT_SECRET = "coalesced-service-it-jwt-secret-0123456789-ab";
    static final TestShards SHARDS = TestShards.create("coalesced");
    static final KafkaServer KAFKA = TestServers.kafka();
    static final String TOPIC = KAFKA.createTopic("follow-events", 2);
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();
    /** Followers 1..60, each following {@link #followeesOf} before the check instance starts. */
    static final int FOLLOWERS = 60;
    /** The follower whose follow of {@link #FRESH_FOLLOWEE} the test makes while everything runs. */
    static final long FRESH_FOLLOWER = 500;
    static final long FRESH_FOLLOWEE = 501;
    static final ServiceProcess WRITE;
    static final ServiceProcess CHECK;

    static {
        String redis = TestServers.redis().uri(TestServers.redis().freshDatabase());
        Map<String, String> common = new HashMap<>(SHARDS.springProperties());
        common.put("logging.level.org.apache.kafka", "warn");
        Map<String, String> write = new HashMap<>(common);
        write.put("graph.shards.migrate-on-startup", "true");
        write.put("graph.write.token-secret", TOKEN_SECRET);
        write.put("graph.write.redis.uri", redis);
        write.put("graph.write.relay.enabled", "false");
        WRITE = ServiceProcess.start("follow-write-service", write, Duration.ofSeconds(180));
        ServiceProcess check = null;
        try {
            for (long follower = 1; follower <= FOLLOWERS; follower++) {
                for (long followee : followeesOf(follower)) {
                    HttpResponse<String> r = direct("PUT", WRITE.baseUrl() + "/internal/v1/users/" + follower
                            + "/following/" + followee);
                    if (r.statusCode() != 200) {
                        throw new IllegalStateException("seeding " + follower + " -> " + followee + ": " + r.body());
                    }
                }
            }
            Map<String, String> props = new HashMap<>(common);
            props.put("graph.check.token-secret", TOKEN_SECRET);
            props.put("graph.check.redis-uri", redis);
            props.put("graph.check.bloom.kafka-bootstrap", KAFKA.bootstrapServers());
            props.put("graph.check.bloom.topic", TOPIC);
            props.put("graph.check.bloom.minimum-expected-edges", "1000");
            props.put("graph.check.bloom.snapshot-dir", "target/coalesced-it-no-snapshots");
            // The relay is off, so the follows stay in the outbox: the feed-lag guard would never trust the filter.
            props.put("graph.check.feed.max-lag", "1d");
            check = ServiceProcess.start("follow-check-service", props, Duration.ofSeconds(180));
        } catch (RuntimeException e) {
            WRITE.close(); // a failed class initializer runs no @AfterAll
            SHARDS.close();
            throw e;
        }
        CHECK = check;
    }

    /** The users {@code follower} follows: one of each parity above 10,000. */
    static long[] followeesOf(long follower) {
        return new long[] {10_000 + 2 * follower, 10_001 + 2 * follower};
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.jwt-secret", () -> JWT_SECRET);
        registry.add("graph.gateway.response-timeout", () -> "30s"); // a cold service JVM on a loaded machine
        registry.add("spring.data.redis.host", () -> TestServers.redis().host());
        registry.add("spring.data.redis.port", () -> TestServers.redis().port());
        registry.add("graph.gateway.reads.replenish-rate", () -> "100000");
        registry.add("graph.gateway.reads.burst-capacity", () -> "100000");
        registry.add("graph.gateway.write-uri", WRITE::baseUrl);
        registry.add("graph.gateway.check-uri", CHECK::baseUrl);
        // One batch out at a time: the checks that arrive meanwhile form the next one.
        registry.add("graph.gateway.check-coalescing.max-in-flight", () -> "1");
    }

    @AfterAll
    static void stop() {
        CHECK.close();
        WRITE.close();
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry meters;

    private static HttpResponse<String> direct(String method, String url) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("X-Service-Token", ServiceProcess.SERVICE_TOKEN)
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(method + " " + url, e);
        }
    }

    private static String bearer(long user) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(Long.toString(user))
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(JWT_SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private HttpRequest check(long follower, long followee, String followToken) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/users/"
                        + follower + "/following/" + followee))
                .header("Authorization", "Bearer " + bearer(follower)).timeout(Duration.ofSeconds(60)).GET();
        if (followToken != null) {
            b.header("X-Follow-Token", followToken);
        }
        return b.build();
    }

    private double counted(String name) {
        return meters.get(name).tag("check_instance", "local").functionCounter().count();
    }

    /** A check and the answer it must get. */
    record Asked(long follower, long followee, String followToken, boolean following) {
    }

    @Test
    void concurrentChecks_eachGetTheirOwnRightAnswer_inFewerCallsThanChecks() throws Exception {
        // A follow the bloom filter never hears of (the relay is off): only its token shows it.
        HttpResponse<String> follow = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/v1/me/following/" + FRESH_FOLLOWEE))
                .header("Authorization", "Bearer " + bearer(FRESH_FOLLOWER)).timeout(Duration.ofSeconds(30))
                .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(follow.statusCode()).as(follow.body()).isEqualTo(200);
        Matcher token = Pattern.compile("\"followToken\":\"([^\"]+)\"").matcher(follow.body());
        assertThat(token.find()).isTrue();
        String followToken = token.group(1);

        List<Asked> asked = new ArrayList<>();
        for (long follower = 1; follower <= FOLLOWERS; follower++) {
            long[] followees = followeesOf(follower);
            asked.add(new Asked(follower, followees[(int) (follower % 2)], null, true));
            asked.add(new Asked(follower, followees[0] + 100_000, null, false));
            if (follower % 10 == 0) {
                asked.add(new Asked(FRESH_FOLLOWER, FRESH_FOLLOWEE, followToken, true));  // reads its own write
                asked.add(new Asked(FRESH_FOLLOWER, FRESH_FOLLOWEE, null, false));        // the filter's "no"
            }
        }
        double batchesBefore = counted("graph.gateway.coalescer.batches");
        double checksBefore = counted("graph.gateway.coalescer.checks");

        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (Asked a : asked) {
            answers.add(HTTP.sendAsync(check(a.follower(), a.followee(), a.followToken()),
                    HttpResponse.BodyHandlers.ofString()));
        }
        for (int i = 0; i < asked.size(); i++) {
            Asked a = asked.get(i);
            HttpResponse<String> r = answers.get(i).get(120, TimeUnit.SECONDS); // a hang guard
            assertThat(r.statusCode()).as("%s: %s", a, r.body()).isEqualTo(200);
            assertThat(r.body()).as("%s", a).isEqualTo("{\"following\":" + a.following() + "}");
        }

        double batches = counted("graph.gateway.coalescer.batches") - batchesBefore;
        double checks = counted("graph.gateway.coalescer.checks") - checksBefore;
        System.out.printf("coalesced: %.0f checks in %.0f calls%n", checks, batches);
        assertThat(checks).isEqualTo(asked.size());
        assertThat(batches).as("calls for %s checks", asked.size()).isPositive().isLessThan(checks);
    }

    @Test
    void aCoalescedAnswer_carriesTheCheckServicesHeaders_andTheGatewaysOwn() throws Exception {
        HttpResponse<String> direct = direct("GET", CHECK.baseUrl() + "/internal/v1/users/3/following/"
                + followeesOf(3)[0]);
        HttpResponse<String> through = HTTP.send(check(3, followeesOf(3)[0], null), HttpResponse.BodyHandlers.ofString());

        assertThat(through.body()).isEqualTo(direct.body()).isEqualTo("{\"following\":true}");
        TreeSet<String> serviceHeaders = names(direct);
        serviceHeaders.remove("connection"); // hop-by-hop: the proxying route never passed it on either
        TreeSet<String> gatewayHeaders = names(through);
        assertThat(gatewayHeaders).containsAll(serviceHeaders);
        for (String name : serviceHeaders) {
            assertThat(through.headers().allValues(name)).as(name).isEqualTo(direct.headers().allValues(name));
        }
        System.out.printf("check service headers %s%ngateway headers %s%n", serviceHeaders, gatewayHeaders);
        gatewayHeaders.removeAll(serviceHeaders);
        // What the gateway adds to every answer: the request id, and Spring Security's response headers.
        assertThat(gatewayHeaders).containsExactlyInAnyOrder("x-request-id", "cache-control", "pragma", "expires",
                "x-content-type-options", "x-frame-options", "x-xss-protection", "referrer-policy");
    }

    private static TreeSet<String> names(HttpResponse<?> response) {
        TreeSet<String> names = new TreeSet<>();
        response.headers().map().keySet().forEach(name -> names.add(name.toLowerCase(Locale.ROOT)));
        return names;
    }
}
