package dev.socialgraph.gateway;

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
import dev.socialgraph.wire.PublicApi;
import dev.socialgraph.wire.ReadBatch;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The lean reads ({@link LeanReads}, on by default) against a stand-in check instance: each public GET read reaches
 * the instance on its internal path with the query, the credential, the request id, the follow token, the viewer
 * and the public path the route sends; the route's refusals (400 naming the variable, 401, 403, 429) are given
 * without calling it; its 503 reaches the caller with its {@code Retry-After}; and each read is timed in
 * the entry's own timer under its operation's template, and not in {@code http.server.requests}.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class LeanReadsIT {

    static final String SECRET = "lean-reads-it-jwt-secret-0123456789-abcdefgh";
    static final String SERVICE_TOKEN = "test-only-service-token-0123456789abcdef";
    /** Shared with {@link LeanReadsUncoalescedIT}, and so never stopped: its threads are daemons. */
    static final Stub SERVICE = Stub.start();

    /**
     * A stand-in check instance that records each call and answers {@code 200 {"path":"<its raw path>"}}, or, for a
     * path about user 503, {@code 503} problem+json with {@code Retry-After: 7}, as a check instance whose shard is
     * not loaded yet answers; both with {@code X-Served-By: stub-check}.
     */
    static final class Stub {

        /** What one call carried. */
        record Call(String method, String uri, String serviceToken, String requestId, String followToken,
                    String viewer, String publicPath, String traceparent) {
        }

        final HttpServer server;
        final List<Call> calls = new CopyOnWriteArrayList<>();

        private Stub(HttpServer server) {
            this.server = server;
        }

        static Stub start() {
            try {
                Stub stub = new Stub(HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0));
                stub.server.setExecutor(Executors.newCachedThreadPool(Thread.ofPlatform().daemon().factory()));
                stub.server.createContext("/", stub::serve);
                stub.server.start();
                return stub;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        String uri() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        private void serve(HttpExchange exchange) throws IOException {
            var h = exchange.getRequestHeaders();
            if (exchange.getRequestURI().getRawPath().equals(dev.socialgraph.wire.InternalApi.READS.template())) {
                serveBatch(exchange);
                return;
            }
            calls.add(new Call(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath()
                    + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery()),
                    h.getFirst("X-Service-Token"), h.getFirst("X-Request-Id"), h.getFirst("X-Follow-Token"),
                    h.getFirst("X-Viewer-Id"), h.getFirst("X-Public-Path"), h.getFirst("traceparent")));
            boolean unavailable = exchange.getRequestURI().getRawPath().startsWith("/internal/v1/users/503/");
            byte[] body = (unavailable
                    ? UNAVAILABLE
                    : "{\"path\":\"" + exchange.getRequestURI().getRawPath() + "\"}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", unavailable ? "application/problem+json" : "application/json");
            exchange.getResponseHeaders().set("X-Served-By", "stub-check");
            if (unavailable) {
                exchange.getResponseHeaders().set("Retry-After", "7");
            }
            exchange.sendResponseHeaders(unavailable ? 503 : 200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }

        /**
         * A batch of reads ({@link ReadBatch}): each recorded as a call of method {@code BATCH} with the batch's
         * credential, request id and trace context and the read's own headers, and answered as its {@code GET}; a
         * read about user 707 is deferred, as one memory does not hold.
         */
        private void serveBatch(HttpExchange exchange) throws IOException {
            var h = exchange.getRequestHeaders();
            List<ReadBatch.Read> reads;
            try (var in = exchange.getRequestBody()) {
                reads = ReadBatch.decodeRequest(JSON.readTree(in.readAllBytes()), 1000);
            }
            List<ReadBatch.Result> results = new java.util.ArrayList<>();
            for (ReadBatch.Read read : reads) {
                calls.add(new Call("BATCH", read.path() + (read.query() == null ? "" : "?" + read.query()),
                        h.getFirst("X-Service-Token"), h.getFirst("X-Request-Id"), read.headers().get("X-Follow-Token"),
                        read.headers().get("X-Viewer-Id"), h.getFirst("X-Public-Path"), h.getFirst("traceparent")));
                boolean unavailable = read.path().startsWith("/internal/v1/users/503/");
                results.add(read.path().startsWith("/internal/v1/users/707/") ? ReadBatch.DEFERRED_RESULT
                        : unavailable ? new ReadBatch.Result(503, "7", UNAVAILABLE.getBytes(StandardCharsets.UTF_8))
                        : new ReadBatch.Result(200, null,
                        ("{\"path\":\"" + read.path() + "\"}").getBytes(StandardCharsets.UTF_8)));
            }
            byte[] body = ReadBatch.encodeAnswer(results);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.getResponseHeaders().set("X-Served-By", "stub-check");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    static final String UNAVAILABLE = "{\"type\":\"https://socialgraph.dev/problems/shard-unavailable\",\"status\":503}";
    static final tools.jackson.databind.json.JsonMapper JSON = tools.jackson.databind.json.JsonMapper.builder().build();

    /**
     * Whether a read sent on its own (as every read here is: one at a time) goes to the instance in a batch; by
     * default ({@code graph.gateway.lean-reads.alone-as-get}) a read the coalescer would send alone is its own GET.
     */
    boolean batched() {
        return false;
    }

    /** Whether the reads go through the instance's read coalescer ({@code graph.gateway.lean-reads.coalesce}). */
    boolean coalescing() {
        return true;
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.jwt-secret", () -> SECRET);
        registry.add("graph.gateway.check-uri", SERVICE::uri);
        registry.add("graph.gateway.write-uri", SERVICE::uri);
        registry.add("spring.data.redis.url", () -> TestServers.redis().uri(TestServers.redis().freshDatabase()));
        // Ten reads back to back per user, then one a second: each test's users stay within it, but one.
        registry.add("graph.gateway.reads.replenish-rate", () -> "1");
        registry.add("graph.gateway.reads.burst-capacity", () -> "10");
    }

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry meters;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void clear() {
        SERVICE.calls.clear();
    }

    static String token(String secret, long user) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(Long.toString(user))
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    static HttpResponse<String> get(HttpClient http, int port, String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).GET();
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path, String... headers) throws Exception {
        return get(http, port, path, headers);
    }

    /** A public read: its path as sent, the path and query the check instance gets, the path it names as public. */
    record Read(String operation, String path, String internal, String publicPath) {
    }

    /** Every lean read, as user {@code me} sends it. */
    static List<Read> reads(long me) {
        return List.of(
                new Read("listFollowing", "/v1/users/31/following?limit=5&cursor=a%2Bb%3D",
                        "/internal/v1/users/31/following?limit=5&cursor=a%2Bb%3D", "/v1/users/31/following"),
                new Read("listFollowers", "/v1/users/32/followers?limit=2",
                        "/internal/v1/users/32/followers?limit=2", "/v1/users/32/followers"),
                new Read("countFollows", "/v1/users/33/counts", "/internal/v1/users/33/counts", "/v1/users/33/counts"),
                new Read("listCommonFollowing", "/v1/users/34/common-following/35?cursor=c1",
                        "/internal/v1/users/34/common-following/35?cursor=c1", "/v1/users/34/common-following/35"),
                new Read("listKnownFollowers", "/v1/users/39/followers/known?limit=3",
                        "/internal/v1/users/39/followers/known?limit=3", "/v1/users/39/followers/known"),
                new Read("getRelationship", "/v1/users/36/relationship/37",
                        "/internal/v1/users/36/relationship/37", "/v1/users/36/relationship/37"),
                new Read("suggestUsers", "/v1/users/38/suggestions?limit=4&stringify_ids=true",
                        "/internal/v1/users/38/suggestions?limit=4&stringify_ids=true", "/v1/users/38/suggestions"),
                new Read("listUserBlocks", "/v1/users/" + me + "/blocking?limit=1",
                        "/internal/v1/users/" + me + "/blocking?limit=1", "/v1/users/" + me + "/blocking"),
                new Read("listUserMutes", "/v1/users/" + me + "/muting",
                        "/internal/v1/users/" + me + "/muting", "/v1/users/" + me + "/muting"),
                new Read("listOwnBlocks", "/v1/me/blocking?cursor=c2",
                        "/internal/v1/users/" + me + "/blocking?cursor=c2", "/v1/me/blocking"),
                new Read("listOwnMutes", "/v1/me/muting?limit=9",
                        "/internal/v1/users/" + me + "/muting?limit=9", "/v1/me/muting"));
    }

    @Test
    void everyLeanRead_reachesTheInstanceOnItsInternalPath_withTheRoutesHeaders_andItsAnswerIsRelayed()
            throws Exception {
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        List<Read> reads = reads(0);
        assertThat(reads).extracting(Read::operation)
                .containsExactlyElementsOf(LeanReads.ENDPOINTS.stream().map(e -> e.name()).toList());
        for (int i = 0; i < reads.size(); i++) {
            long me = 100 + i; // a budget of its own for each
            Read read = reads(me).get(i);
            String bearer = "Bearer " + token(SECRET, me);
            get(read.path(), "Authorization", bearer); // the chain accepts the token and caches it
            SERVICE.calls.clear();

            HttpResponse<String> r = get(read.path(), "Authorization", bearer, "X-Request-Id", "lean-" + i,
                    "X-Follow-Token", "tok-" + i, "X-Viewer-Id", "999",
                    "traceparent", "00-" + traceId + "-00f067aa0ba902b7-01");

            String name = read.operation();
            assertThat(r.statusCode()).as(name).isEqualTo(200);
            assertThat(r.body()).as(name).isEqualTo("{\"path\":\"" + read.internal().replaceAll("\\?.*", "") + "\"}");
            assertThat(r.headers().firstValue("Content-Type")).as(name).hasValue("application/json");
            assertThat(r.headers().firstValue("X-Served-By")).as(name).hasValue("stub-check");
            assertThat(r.headers().firstValue("X-Request-Id")).as(name).hasValue("lean-" + i);
            // Spring Security's response headers, as on every route.
            assertThat(r.headers().map()).as(name).containsKeys("cache-control", "x-content-type-options");
            assertThat(SERVICE.calls).as(name).hasSize(1);
            Stub.Call call = SERVICE.calls.get(0);
            boolean batched = batched() && ReadBatch.endpoint(read.internal().replaceAll("\\?.*", "")) != null;
            assertThat(call.method()).as(name).isEqualTo(batched ? "BATCH" : "GET");
            assertThat(call.uri()).as(name).isEqualTo(read.internal());
            assertThat(call.serviceToken()).as(name).isEqualTo(SERVICE_TOKEN);
            assertThat(call.requestId()).as(name).isEqualTo("lean-" + i);
            assertThat(call.followToken()).as(name).isEqualTo("tok-" + i); // every batched read declares it
            assertThat(call.publicPath()).as(name).isEqualTo(batched ? null : read.publicPath());
            // No gateway span (the entry times the read instead): the caller's own context, so the service's span is
            // the caller's child.
            assertThat(call.traceparent()).as(name).isEqualTo("00-" + traceId + "-00f067aa0ba902b7-01");
            if (RoutesConfiguration.VIEWER_READS.stream().anyMatch(e -> e.name().equals(name))) {
                assertThat(call.viewer()).as(name + ": the viewer is the token's subject, whatever the client sent")
                        .isEqualTo(Long.toString(me));
            } else {
                assertThat(call.viewer()).as(name + ": no viewer, and not the one the client sent").isNull();
            }
        }
    }

    @Test
    void badUserIds_get400ProblemJsonNamingTheVariable_andReachNoInstance() throws Exception {
        String bearer = "Bearer " + token(SECRET, 201);
        String[][] cases = {
                {"/v1/users/abc/following", "id"}, {"/v1/users/0/followers", "id"}, {"/v1/users/-5/counts", "id"},
                {"/v1/users/7/common-following/x", "otherId"}, {"/v1/users/007/relationship/8", "id"},
                {"/v1/users/7/relationship/99999999999999999999", "otherId"}, {"/v1/users/abc/suggestions", "id"},
                {"/v1/users/0/followers/known", "id"}};
        for (String[] c : cases) {
            HttpResponse<String> r = get(c[0], "Authorization", bearer);
            assertThat(r.statusCode()).as(c[0]).isEqualTo(400);
            assertThat(r.headers().firstValue("Content-Type")).as(c[0]).hasValue("application/problem+json");
            assertThat(r.body()).as(c[0]).contains("\"parameter\":\"" + c[1] + "\"", "\"instance\":\"" + c[0] + "\"");
        }
        assertThat(SERVICE.calls).isEmpty();
    }

    @Test
    void withoutAToken_everyLeanReadGets401_andReachesNoInstance() throws Exception {
        for (Read read : reads(202)) {
            HttpResponse<String> r = get(read.path());
            assertThat(r.statusCode()).as(read.operation()).isEqualTo(401);
            assertThat(r.headers().firstValue("WWW-Authenticate")).as(read.operation()).hasValue("Bearer");
            assertThat(r.body()).as(read.operation()).contains("\"parameter\":\"Authorization\"");
        }
        assertThat(SERVICE.calls).isEmpty();
    }

    @Test
    void anotherUsersBlocksAndMutes_get403NamingTheId_andReachNoInstance() throws Exception {
        String bearer = "Bearer " + token(SECRET, 203);
        get("/v1/users/203/blocking", "Authorization", bearer); // cached: the entry authenticates the next ones
        SERVICE.calls.clear();
        for (String path : new String[] {"/v1/users/204/blocking", "/v1/users/204/muting"}) {
            HttpResponse<String> r = get(path, "Authorization", bearer);
            assertThat(r.statusCode()).as(path).isEqualTo(403);
            assertThat(r.headers().firstValue("Content-Type")).as(path).hasValue("application/problem+json");
            assertThat(r.body()).as(path).contains("\"parameter\":\"id\"");
        }
        assertThat(SERVICE.calls).isEmpty();
    }

    @Test
    void anOverLongFollowToken_gets400NamingTheHeader() throws Exception {
        HttpResponse<String> r = get("/v1/users/5/counts", "Authorization", "Bearer " + token(SECRET, 205),
                "X-Follow-Token", "t".repeat(65));

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("\"parameter\":\"X-Follow-Token\"");
        assertThat(SERVICE.calls).isEmpty();
    }

    @Test
    void theInstancesShardUnavailable503_reachesTheCaller_withItsRetryAfter() throws Exception {
        HttpResponse<String> r = get("/v1/users/503/following?limit=3", "Authorization", "Bearer " + token(SECRET, 206));

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).hasValue("7");
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.headers().firstValue("X-Served-By")).hasValue("stub-check");
        if (batched()) { // relayed as this caller's problem
            assertThat(r.body()).contains("\"type\":\"https://socialgraph.dev/problems/shard-unavailable\"",
                    "\"status\":503", "\"instance\":\"/v1/users/503/following\"");
        } else {
            assertThat(r.body()).isEqualTo(UNAVAILABLE);
        }
        assertThat(SERVICE.calls).extracting(Stub.Call::uri).containsExactly("/internal/v1/users/503/following?limit=3");
    }

    @Test
    void aReadTheInstanceDefers_isSentOnItsOwn_andItsAnswerRelayed() throws Exception {
        HttpResponse<String> r = get("/v1/users/707/counts", "Authorization", "Bearer " + token(SECRET, 209),
                "X-Request-Id", "deferred-1");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"path\":\"/internal/v1/users/707/counts\"}");
        assertThat(SERVICE.calls).extracting(Stub.Call::method)
                .containsExactlyElementsOf(batched() ? List.of("BATCH", "GET") : List.of("GET"));
        Stub.Call own = SERVICE.calls.get(SERVICE.calls.size() - 1);
        assertThat(own.uri()).isEqualTo("/internal/v1/users/707/counts");
        assertThat(own.requestId()).isEqualTo("deferred-1");
        assertThat(own.publicPath()).isEqualTo("/v1/users/707/counts");
    }

    @Test
    void followersYouKnow_areReadWithTheSubjectAsTheViewer() throws Exception {
        String bearer = "Bearer " + token(SECRET, 212);

        HttpResponse<String> r = get("/v1/users/35/followers/known?limit=3", "Authorization", bearer,
                "X-Follow-Token", "tok-k", "X-Viewer-Id", "999");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(SERVICE.calls).singleElement().satisfies(call -> {
            assertThat(call.method()).isEqualTo("GET");
            assertThat(call.uri()).isEqualTo("/internal/v1/users/35/followers/known?limit=3");
            assertThat(call.publicPath()).isEqualTo("/v1/users/35/followers/known");
            assertThat(call.followToken()).isEqualTo("tok-k");
            assertThat(call.viewer()).as("the token's subject, whatever the client sent").isEqualTo("212");
        });
        SERVICE.calls.clear();
        HttpResponse<String> bad = get("/v1/users/035/followers/known", "Authorization", bearer);
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("\"parameter\":\"id\"");
        assertThat(get("/v1/users/35/followers/known").statusCode()).isEqualTo(401);
        assertThat(SERVICE.calls).isEmpty();
    }

    @Test
    void aReadAlone_goesThroughTheInstancesCoalescer() throws Exception {
        String bearer = "Bearer " + token(SECRET, 211);
        get("/v1/users/9/followers?limit=5", "Authorization", bearer); // the chain accepts the token and caches it
        SERVICE.calls.clear();
        double before = meters.find("graph.gateway.read-coalescer.reads").functionCounters().stream()
                .mapToDouble(c -> c.count()).sum();

        HttpResponse<String> r = get("/v1/users/9/followers?limit=5", "Authorization", bearer);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(SERVICE.calls).extracting(Stub.Call::method).containsExactly(batched() ? "BATCH" : "GET");
        double after = meters.find("graph.gateway.read-coalescer.reads").functionCounters().stream()
                .mapToDouble(c -> c.count()).sum();
        assertThat(after - before).isEqualTo(coalescing() ? 1 : 0);
    }

    @Test
    void theReadBudget_isTheSubjects_andAnsweredWith429() throws Exception {
        String spender = "Bearer " + token(SECRET, 207);
        int rejected = 0;
        for (int i = 0; i < 20; i++) {
            HttpResponse<String> r = get(i % 2 == 0 ? "/v1/users/9/counts" : "/v1/me/muting", "Authorization", spender);
            assertThat(r.statusCode()).as("read %d", i).isIn(200, 429);
            if (r.statusCode() == 429) {
                rejected++;
                assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
                assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            }
        }
        assertThat(rejected).isGreaterThanOrEqualTo(5);
        assertThat(get("/v1/users/9/counts", "Authorization", "Bearer " + token(SECRET, 208)).statusCode())
                .as("another user's budget is untouched").isEqualTo(200);
    }

    private double timed(String uri, String status) {
        return meters.find(SingleCheckEntry.TIMER).tag("uri", uri).tag("status", status).timers().stream()
                .mapToDouble(Timer::count).sum();
    }

    private double observed() {
        return meters.find("http.server.requests").timers().stream().mapToDouble(Timer::count).sum();
    }

    @Test
    void eachLeanRead_isTimedByTheEntry_underItsOperationsTemplate_andNotInHttpServerRequests() throws Exception {
        String bearer = "Bearer " + token(SECRET, 210);
        String counts = PublicApi.COUNT_FOLLOWS.template();
        String relationship = PublicApi.GET_RELATIONSHIP.template();
        get("/v1/users/9/counts", "Authorization", bearer);
        get("/v1/nothing/here", "Authorization", bearer); // routed: observed
        await().until(() -> timed(counts, "200") > 0 && observed() > 0);
        double ok = timed(counts, "200");
        double bad = timed(relationship, "400");
        double unavailable = timed(counts, "503");
        double unauthorized = timed(counts, "401");
        double others = observed();

        get("/v1/users/9/counts", "Authorization", bearer);
        get("/v1/users/9/relationship/x", "Authorization", bearer);
        get("/v1/users/503/counts", "Authorization", bearer);
        get("/v1/users/9/counts", "Authorization", "Bearer not.a.token"); // the chain's refusal
        get("/v1/nothing/here", "Authorization", bearer);

        await().untilAsserted(() -> {
            assertThat(timed(counts, "200")).isEqualTo(ok + 1);
            assertThat(timed(relationship, "400")).isEqualTo(bad + 1);
            assertThat(timed(counts, "503")).isEqualTo(unavailable + 1);
            assertThat(timed(counts, "401")).isEqualTo(unauthorized + 1);
            assertThat(meters.find(SingleCheckEntry.TIMER).tag("uri", counts).tag("status", "503")
                    .tag("outcome", "SERVER_ERROR").timer()).isNotNull();
            assertThat(observed()).as("only the routed request").isEqualTo(others + 1);
        });
    }
}
