package dev.socialgraph.gateway;

import dev.socialgraph.wire.PublicApi;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.socialgraph.testsupport.TestServers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The public single check's entry ({@link SingleCheckEntry}) against a stand-in check instance: a token the chain
 * accepted is served again without Spring Security's chain, with exactly the answer and headers the chain gives it;
 * missing, malformed, expired and forged tokens get the chain's own answers, as another authenticated route does;
 * the check has its own timer and no {@code http.server.requests}.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SingleCheckEntryIT {

    static final String SECRET = "single-check-entry-it-jwt-secret-0123456789";
    static final HttpServer SERVICE;
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    static {
        try {
            SERVICE = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        SERVICE.setExecutor(Executors.newCachedThreadPool(Thread.ofPlatform().daemon().factory()));
        SERVICE.createContext("/", SingleCheckEntryIT::serve);
        SERVICE.start();
    }

    /** Every pair follows; any other path is answered {@code {"followers":1,"following":2}} as counts are. */
    static void serve(HttpExchange exchange) throws IOException {
        byte[] request = exchange.getRequestBody().readAllBytes();
        SEEN.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawPath() + " "
                + exchange.getRequestHeaders().getFirst("traceparent"));
        String body = exchange.getRequestURI().getRawPath().equals(FollowPairsClient.PATH)
                ? "{\"results\":[" + "{\"following\":true},".repeat(countPairs(request) - 1) + "{\"following\":true}]}"
                : "{\"followers\":1,\"following\":2}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.getResponseHeaders().set("X-Served-By", "stub-check");
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static int countPairs(byte[] request) {
        return new String(request, StandardCharsets.UTF_8).split("followerId", -1).length - 1;
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        String uri = "http://127.0.0.1:" + SERVICE.getAddress().getPort();
        registry.add("graph.gateway.jwt-secret", () -> SECRET);
        registry.add("graph.gateway.check-uri", () -> uri);
        registry.add("graph.gateway.write-uri", () -> uri);
        // The counts read is the control here: routed (the lean reads off), through Spring Security's whole chain and
        // the request observation, a GET of its own that the stub answers as counts.
        registry.add("graph.gateway.lean-reads.enabled", () -> "false");
        registry.add("spring.data.redis.url", () -> TestServers.redis().uri(TestServers.redis().freshDatabase()));
        registry.add("graph.gateway.reads.replenish-rate", () -> "100000");
        registry.add("graph.gateway.reads.burst-capacity", () -> "100000");
        registry.add("graph.gateway.check-coalescing.enabled", () -> "true");
    }

    @AfterAll
    static void stop() {
        SERVICE.stop(0);
    }

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry meters;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void clear() {
        SEEN.clear();
    }

    private static String token(String secret, long user, Instant expiresAt) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(Long.toString(user))
                .expirationTime(Date.from(expiresAt)).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private static String token(long user) throws Exception {
        return token(SECRET, user, Instant.now().plusSeconds(300));
    }

    private HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).GET();
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The answer's headers by lower-case name, without those named. */
    private static Map<String, List<String>> headers(HttpResponse<String> response, String... without) {
        Map<String, List<String>> out = new TreeMap<>();
        response.headers().map().forEach((name, values) -> out.put(name.toLowerCase(), values));
        for (String name : without) {
            out.remove(name.toLowerCase());
        }
        return out;
    }

    private double timed(String status) {
        Timer timer = meters.find(SingleCheckEntry.TIMER).tag("uri", PublicApi.IS_FOLLOWING.template())
                .tag("status", status).timer();
        return timer == null ? 0 : timer.count();
    }

    @Test
    void aTokenServedFromTheCache_getsTheAnswerAndHeadersTheChainGaveIt() throws Exception {
        String bearer = "Bearer " + token(31);
        // The token's first check goes through Spring Security's chain, which accepts and caches it; the next ones
        // are authenticated by the entry.
        HttpResponse<String> first = get("/v1/users/31/following/32", "Authorization", bearer, "X-Request-Id", "r-1");
        HttpResponse<String> again = get("/v1/users/31/following/32", "Authorization", bearer, "X-Request-Id", "r-1");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.body()).isEqualTo(first.body()).isEqualTo("{\"following\":true}");
        assertThat(headers(again)).isEqualTo(headers(first));
        // Spring Security's response headers are there, as on every authenticated route.
        assertThat(headers(again)).containsKeys("cache-control", "x-content-type-options", "x-frame-options");
        HttpResponse<String> counts = get("/v1/users/31/counts", "Authorization", bearer, "X-Request-Id", "r-1");
        assertThat(counts.statusCode()).isEqualTo(200);
        assertThat(headers(again, "content-length")).isEqualTo(headers(counts, "content-length", "date"));
    }

    @Test
    void missingMalformedExpiredAndForgedTokens_getTheChainsAnswer_asAnotherAuthenticatedRouteDoes() throws Exception {
        String valid = token(41);
        get("/v1/users/41/following/42", "Authorization", "Bearer " + valid); // cached now: must not matter below
        SEEN.clear();
        String[][] refused = {
                {},
                {"Authorization", "Bearer not-a-jwt"},
                {"Authorization", "Bearer " + token(SECRET, 41, Instant.now().minusSeconds(600))},
                {"Authorization", "Bearer " + token("another-secret-of-at-least-32-bytes-0123456789", 41,
                        Instant.now().plusSeconds(300))},
                {"Authorization", "Basic " + valid},
                {"Authorization", "Bearer " + valid, "Authorization", "Bearer " + valid},
        };
        double before = timed("401");
        for (String[] authorization : refused) {
            HttpResponse<String> check = get("/v1/users/41/following/42", authorization);
            HttpResponse<String> counts = get("/v1/users/41/counts", authorization);

            assertThat(check.statusCode()).as(String.join(" ", authorization)).isEqualTo(401);
            assertThat(check.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(check.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
            assertThat(check.body()).contains("\"parameter\":\"Authorization\"",
                    "\"instance\":\"/v1/users/41/following/42\"");
            assertThat(check.body().replace("/v1/users/41/following/42", "PATH"))
                    .isEqualTo(counts.body().replace("/v1/users/41/counts", "PATH"));
            assertThat(headers(check, "content-length")).isEqualTo(headers(counts, "content-length"));
        }
        assertThat(SEEN).noneMatch(call -> call.startsWith("POST"));
        await().untilAsserted(() -> assertThat(timed("401")).isEqualTo(before + refused.length));
    }

    @Test
    void theMeForm_isNoSingleCheck_andAnsweredAsBefore() throws Exception {
        String bearer = "Bearer " + token(51);
        get("/v1/users/51/following/52", "Authorization", bearer);

        HttpResponse<String> anonymous = get("/v1/me/following/52");
        HttpResponse<String> authenticated = get("/v1/me/following/52", "Authorization", bearer);

        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.body()).contains("\"instance\":\"/v1/me/following/52\"");
        assertThat(authenticated.statusCode()).isEqualTo(404);
        assertThat(authenticated.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(headers(authenticated)).containsKeys("cache-control", "x-content-type-options");
    }

    @Test
    void theSingleCheck_isTimedByItsOwnMeter_andNotByHttpServerRequests() throws Exception {
        String bearer = "Bearer " + token(61);
        get("/v1/users/61/counts", "Authorization", bearer);
        await().until(() -> meters.find("http.server.requests").timers().stream().mapToLong(Timer::count).sum() > 0);
        long observed = meters.find("http.server.requests").timers().stream().mapToLong(Timer::count).sum();
        double ok = timed("200");

        for (int i = 0; i < 3; i++) {
            assertThat(get("/v1/users/61/following/" + (62 + i), "Authorization", bearer).statusCode()).isEqualTo(200);
        }
        assertThat(get("/v1/users/61/following/abc", "Authorization", bearer).statusCode()).isEqualTo(400);
        get("/v1/users/61/counts", "Authorization", bearer);

        await().untilAsserted(() -> {
            assertThat(timed("200")).isEqualTo(ok + 3);
            assertThat(meters.find(SingleCheckEntry.TIMER).tag("status", "200").tag("outcome", "SUCCESS").timer())
                    .isNotNull();
            assertThat(meters.find(SingleCheckEntry.TIMER).tag("status", "400").tag("outcome", "CLIENT_ERROR")
                    .timer()).isNotNull();
            // Only the second counts request: none of the four checks.
            assertThat(meters.find("http.server.requests").timers().stream().mapToLong(Timer::count).sum())
                    .isEqualTo(observed + 1);
        });
    }

    @Test
    void aCallersTraceContext_reachesTheService_withoutAGatewaySpan() throws Exception {
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        String bearer = "Bearer " + token(71);

        assertThat(get("/v1/users/71/following/72", "Authorization", bearer, "traceparent", traceparent).statusCode())
                .isEqualTo(200);
        assertThat(get("/v1/users/71/following/73", "Authorization", bearer).statusCode()).isEqualTo(200);

        assertThat(SEEN).containsExactly("POST " + FollowPairsClient.PATH + " " + traceparent,
                "POST " + FollowPairsClient.PATH + " null");
    }

    /**
     * Every header and query variant of a token the cache holds: the single check (which the entry may answer from
     * the cache) gets the status and problem that the counts read (always Spring Security's chain) gets for the
     * same variant.
     */
    @Test
    void everyHeaderAndQueryVariant_getsOnTheCheckWhatTheChainAnswers() throws Exception {
        String valid = token(81);
        assertThat(get("/v1/users/81/following/82", "Authorization", "Bearer " + valid).statusCode()).isEqualTo(200);
        record Variant(String query, String... headers) {
        }
        Variant[] variants = {
                new Variant("", "Authorization", "Bearer " + valid),
                new Variant("", "Authorization", "bearer " + valid),
                new Variant("", "Authorization", "BEARER " + valid),
                new Variant("?stringify_ids=true", "Authorization", "Bearer " + valid),
                new Variant("?access_token=" + valid, "Authorization", "Bearer " + valid),
                new Variant("?access_token=" + valid),
                new Variant("?access%5Ftoken=" + valid, "Authorization", "Bearer " + valid),
                new Variant("?stringify_ids=true&access_token=x", "Authorization", "Bearer " + valid),
                new Variant("", "Authorization", "Bearer  " + valid),
                new Variant("", "Authorization", "Bearer " + valid + ", Bearer " + valid),
                new Variant("", "Authorization", "Bearer " + valid + "="),
                new Variant("", "X-Authorization", "Bearer " + valid),
                new Variant("", "Authorization", "Bearer " + valid, "Authorization", "Bearer " + valid),
                new Variant("", "Authorization", "Token " + valid),
        };
        for (Variant variant : variants) {
            String name = variant.query() + " " + String.join(" ", variant.headers());
            HttpResponse<String> check = get("/v1/users/81/following/82" + variant.query(), variant.headers());
            HttpResponse<String> counts = get("/v1/users/81/counts" + variant.query(), variant.headers());

            assertThat(check.statusCode()).as(name).isEqualTo(counts.statusCode());
            if (counts.statusCode() != 200) {
                assertThat(check.body().replace("/v1/users/81/following/82", "PATH")).as(name)
                        .isEqualTo(counts.body().replace("/v1/users/81/counts", "PATH"));
                assertThat(check.headers().firstValue("WWW-Authenticate")).as(name)
                        .isEqualTo(counts.headers().firstValue("WWW-Authenticate"));
            }
        }
    }
}
