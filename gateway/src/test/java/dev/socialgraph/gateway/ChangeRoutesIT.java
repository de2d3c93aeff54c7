package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.wire.Headers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The change stream's routes (docs/decisions/0063-the-change-stream.md): {@code /v1/changes} and
 * {@code /v1/changes/head} only for tokens with the {@code graph:changes} scope, {@code /v1/me/changes} for any user as
 * the subject's own stream, each passed to the check service's {@code /internal/v1/...} with the query as sent, the
 * service credential and the public path, on the stream's own connections: a long-poll silent for longer than the
 * reads' response timeout is not cut, and a server-sent stream reaches the client event by event. The check service is
 * a stand-in HTTP server that records what it gets; the real endpoints are the check service's own tests.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ChangeRoutesIT {

    static final String SECRET = "change-routes-it-jwt-secret-0123456789-abcdef";
    static final HttpServer CHECK_SERVICE;
    static final List<Seen> SEEN = new CopyOnWriteArrayList<>();
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final String PAGE = "{\"events\":[],\"cursor\":\"AQAB\"}";
    /** Released by the test once it has read the stream's first event: only then is the second sent. */
    static volatile CountDownLatch firstEventRead = new CountDownLatch(1);
    /** Whether the stand-in sent the second event because the client had the first, not because it gave up. */
    static volatile boolean releasedByTheClient;

    /** A request as the check service received it. */
    record Seen(String path, String query, List<String> serviceTokens, String publicPath) {
    }

    static {
        try {
            CHECK_SERVICE = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        CHECK_SERVICE.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        CHECK_SERVICE.createContext("/", ChangeRoutesIT::answer);
        CHECK_SERVICE.start();
    }

    private static void answer(HttpExchange exchange) throws IOException {
        var headers = exchange.getRequestHeaders();
        List<String> tokens = headers.get(ServiceHeaders.HEADER);
        SEEN.add(new Seen(exchange.getRequestURI().getRawPath(), exchange.getRequestURI().getRawQuery(),
                tokens == null ? List.of() : List.copyOf(tokens), headers.getFirst(Headers.PUBLIC_PATH)));
        String accept = headers.getFirst("Accept");
        if (accept != null && accept.contains("text/event-stream")) {
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write("id:c1\nevent:follow\ndata:{\"eventId\":\"1-1\"}\n\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
                try {
                    // The second event only once the client has the first: a proxy that buffered would deadlock here
                    // until the latch gives up, and the client would then get both at once.
                    releasedByTheClient = firstEventRead.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                out.write("id:c2\nevent:unfollow\ndata:{\"eventId\":\"1-2\"}\n\n".getBytes(StandardCharsets.UTF_8));
            }
            return;
        }
        if (exchange.getRequestURI().getRawQuery() != null && exchange.getRequestURI().getRawQuery().contains("wait=2")) {
            try {
                Thread.sleep(2_000); // a long-poll that found nothing: silent for longer than the reads' 1 s
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        byte[] body = PAGE.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        String uri = "http://127.0.0.1:" + CHECK_SERVICE.getAddress().getPort();
        registry.add("graph.gateway.jwt-secret", () -> SECRET);
        registry.add("graph.gateway.check-uri", () -> uri);
        registry.add("graph.gateway.write-uri", () -> "http://127.0.0.1:9"); // no change request may go there
        registry.add("graph.gateway.response-timeout", () -> "1s"); // the reads'; the stream's silence is 40 s
        registry.add("spring.data.redis.url", () -> TestServers.redis().uri(TestServers.redis().freshDatabase()));
    }

    @AfterAll
    static void stop() {
        CHECK_SERVICE.stop(0);
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void clear() {
        SEEN.clear();
        firstEventRead = new CountDownLatch(1);
        releasedByTheClient = false;
    }

    private static String token(String subject, String scope) throws Exception {
        JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder().subject(subject)
                .expirationTime(Date.from(Instant.now().plusSeconds(300)));
        if (scope != null) {
            claims.claim("scope", scope);
        }
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims.build());
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private HttpRequest.Builder get(String path, String bearer) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .GET().timeout(Duration.ofSeconds(30));
        return bearer == null ? b : b.header("Authorization", "Bearer " + bearer);
    }

    private HttpResponse<String> send(String path, String bearer) throws Exception {
        return http.send(get(path, bearer).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theWholeStream_needsTheChangesScope_andAUserGets403NamingIt() throws Exception {
        for (String bearer : List.of(token("42", null), token("42", "graph:read graph:admin"),
                token("42", "graph:change"))) {
            for (String path : List.of("/v1/changes", "/v1/changes?wait=1", "/v1/changes/head")) {
                HttpResponse<String> r = send(path, bearer);
                assertThat(r.statusCode()).as(path).isEqualTo(403);
                assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                        t -> assertThat(t).startsWith("application/problem+json"));
                JsonNode problem = JSON.readTree(r.body());
                assertThat(problem.path("type").asString()).isEqualTo("https://socialgraph.dev/problems/forbidden");
                assertThat(problem.path("detail").asString()).contains("graph:changes").contains("/v1/me/changes");
                assertThat(problem.path("parameter").asString()).isEqualTo("Authorization");
            }
        }
        assertThat(send("/v1/changes", null).statusCode()).isEqualTo(401);
        assertThat(SEEN).isEmpty();
    }

    @Test
    void aBackendToken_reachesTheStream_atTheSamePathUnderInternal_withTheQueryAsSent() throws Exception {
        String backend = token("7", "graph:changes");
        HttpResponse<String> page = send("/v1/changes?cursor=AQAB&kinds=follow,unfollow&users=1,2&limit=5", backend);
        HttpResponse<String> head = send("/v1/changes/head", backend);

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).isEqualTo(PAGE);
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(SEEN).extracting(Seen::path).containsExactly("/internal/v1/changes", "/internal/v1/changes/head");
        assertThat(SEEN.get(0).query()).isEqualTo("cursor=AQAB&kinds=follow,unfollow&users=1,2&limit=5");
        assertThat(SEEN.get(0).serviceTokens()).containsExactly(ServiceProcess.SERVICE_TOKEN);
        assertThat(SEEN.get(0).publicPath()).isEqualTo("/v1/changes");
    }

    @Test
    void ownChanges_areTheSubjectsStream_forAnyToken() throws Exception {
        HttpResponse<String> r = send("/v1/me/changes?wait=1&kinds=follow", token("42", null));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(SEEN).singleElement().satisfies(seen -> {
            assertThat(seen.path()).isEqualTo("/internal/v1/users/42/changes");
            assertThat(seen.query()).isEqualTo("wait=1&kinds=follow");
            assertThat(seen.publicPath()).isEqualTo("/v1/me/changes");
        });
    }

    @Test
    void aLongPoll_silentLongerThanAReadMayBe_isNotCut() throws Exception {
        HttpResponse<String> r = send("/v1/changes?wait=2", token("7", "graph:changes"));

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).isEqualTo(PAGE);
    }

    @Test
    void serverSentEvents_reachTheClient_oneByOne() throws Exception {
        HttpRequest request = get("/v1/changes", token("7", "graph:changes"))
                .header("Accept", "text/event-stream").build();
        HttpResponse<java.io.InputStream> r = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("text/event-stream"));
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            assertThat(lines.readLine()).isEqualTo("id:c1");
            assertThat(lines.readLine()).isEqualTo("event:follow");
            assertThat(lines.readLine()).startsWith("data:");
            assertThat(firstEventRead.getCount()).as("the second event is not sent yet").isOne();
            firstEventRead.countDown();
            assertThat(lines.readLine()).isEmpty();
            assertThat(lines.readLine()).isEqualTo("id:c2");
            assertThat(lines.readLine()).isEqualTo("event:unfollow");
        }
        assertThat(releasedByTheClient).as("the first event reached the client before the second was sent").isTrue();
    }
}
