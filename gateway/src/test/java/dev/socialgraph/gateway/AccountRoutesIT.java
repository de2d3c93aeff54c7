package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.wire.Headers;
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
 * The account lifecycle's routes (docs/account-lifecycle.md): the operator API {@code /v1/admin/**} only for tokens
 * with the {@code graph:admin} scope, {@code DELETE /v1/me} for any user, each passed to the write service's
 * {@code /internal/v1/admin/...} with the gateway's service credential, request id and public path. The write
 * service is a stand-in HTTP server that records what it gets and answers a fixed state, so the test sees exactly
 * what the gateway sends; the real endpoints are the write service's own tests.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class AccountRoutesIT {

    static final String SECRET = "account-routes-it-jwt-secret-0123456789-abcdef";
    static final HttpServer WRITE_SERVICE;
    static final List<Seen> SEEN = new CopyOnWriteArrayList<>();
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final String STATE = "{\"userId\":42,\"state\":\"deactivated\",\"version\":1,\"changedAt\":1764240000000,"
            + "\"jobId\":\"42-1\",\"followToken\":\"t\"}";

    /** A request as the write service received it. */
    record Seen(String method, String path, List<String> serviceTokens, String publicPath, String requestId) {
    }

    static {
        try {
            WRITE_SERVICE = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        WRITE_SERVICE.createContext("/", exchange -> {
            var headers = exchange.getRequestHeaders();
            List<String> tokens = headers.get(ServiceHeaders.HEADER);
            SEEN.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
                    tokens == null ? List.of() : List.copyOf(tokens), headers.getFirst(Headers.PUBLIC_PATH),
                    headers.getFirst(Headers.REQUEST_ID)));
            byte[] body = STATE.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        WRITE_SERVICE.start();
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        String uri = "http://127.0.0.1:" + WRITE_SERVICE.getAddress().getPort();
        registry.add("graph.gateway.jwt-secret", () -> SECRET);
        registry.add("graph.gateway.write-uri", () -> uri);
        registry.add("graph.gateway.check-uri", () -> "http://127.0.0.1:9"); // no admin request may go there
        registry.add("spring.data.redis.url", () -> TestServers.redis().uri(TestServers.redis().freshDatabase()));
    }

    @AfterAll
    static void stop() {
        WRITE_SERVICE.stop(0);
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void clear() {
        SEEN.clear();
    }

    /** A token for user {@code subject} with {@code claim} (e.g. {@code scope}) set to {@code value}, if not null. */
    private static String token(String subject, String claim, Object value) throws Exception {
        JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder().subject(subject)
                .expirationTime(Date.from(Instant.now().plusSeconds(300)));
        if (claim != null) {
            claims.claim(claim, value);
        }
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims.build());
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private static String admin() throws Exception {
        return token("1", "scope", "graph:read graph:admin");
    }

    private static String user(long id) throws Exception {
        return token(Long.toString(id), null, null);
    }

    private HttpResponse<String> send(String method, String path, String bearer, String... headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10));
        if (bearer != null) {
            b.header("Authorization", "Bearer " + bearer);
        }
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode problem(HttpResponse<String> r) {
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/problem+json"));
        return JSON.readTree(r.body());
    }

    @Test
    void anAdminToken_reachesEachOperation_atTheSamePathUnderInternal() throws Exception {
        String token = admin();
        List<String[]> operations = List.of(
                new String[] {"PUT", "/v1/admin/users/42/deactivation"},
                new String[] {"DELETE", "/v1/admin/users/42/deactivation"},
                new String[] {"DELETE", "/v1/admin/users/42"},
                new String[] {"GET", "/v1/admin/users/42"},
                new String[] {"GET", "/v1/admin/jobs/42-1"});
        for (String[] op : operations) {
            HttpResponse<String> r = send(op[0], op[1], token, RequestIds.HEADER, "admin-req-" + op[0]);
            assertThat(r.statusCode()).as(op[0] + " " + op[1]).isEqualTo(200);
            assertThat(r.body()).isEqualTo(STATE); // the service's answer, passed through
        }

        assertThat(SEEN).hasSize(operations.size());
        for (int i = 0; i < operations.size(); i++) {
            String[] op = operations.get(i);
            Seen seen = SEEN.get(i);
            assertThat(seen.method()).isEqualTo(op[0]);
            assertThat(seen.path()).isEqualTo("/internal" + op[1]);
            assertThat(seen.serviceTokens()).containsExactly(ServiceProcess.SERVICE_TOKEN);
            assertThat(seen.publicPath()).isEqualTo(op[1]);
            assertThat(seen.requestId()).isEqualTo("admin-req-" + op[0]);
        }
    }

    @Test
    void theScope_mayBeAJsonArray_orTheScpClaim() throws Exception {
        assertThat(send("GET", "/v1/admin/users/42", token("1", "scope", List.of("graph:admin"))).statusCode())
                .isEqualTo(200);
        assertThat(send("GET", "/v1/admin/users/42", token("1", "scp", "graph:admin")).statusCode())
                .isEqualTo(200);
        assertThat(SEEN).hasSize(2);
    }

    @Test
    void noToken_is401_onEveryAdminOperation_andOnEraseMe() throws Exception {
        for (String[] op : new String[][] {{"PUT", "/v1/admin/users/42/deactivation"},
                {"DELETE", "/v1/admin/users/42/deactivation"}, {"DELETE", "/v1/admin/users/42"},
                {"GET", "/v1/admin/users/42"}, {"GET", "/v1/admin/jobs/42-1"}, {"DELETE", "/v1/me"}}) {
            HttpResponse<String> r = send(op[0], op[1], null);
            assertThat(r.statusCode()).as(op[0] + " " + op[1]).isEqualTo(401);
            assertThat(r.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
            assertThat(problem(r).path("type").asString()).isEqualTo("https://socialgraph.dev/problems/unauthorized");
        }
        assertThat(SEEN).isEmpty();
    }

    @Test
    void aUserToken_withoutTheAdminScope_is403_namingTheScope() throws Exception {
        List<String> tokens = List.of(user(42), token("42", "scope", "graph:read graph:write"),
                token("42", "scope", "graph:administrator"), token("42", "scope", "GRAPH:ADMIN"),
                token("42", "scope", ""));
        for (String token : tokens) {
            for (String[] op : new String[][] {{"PUT", "/v1/admin/users/42/deactivation"},
                    {"DELETE", "/v1/admin/users/42/deactivation"}, {"DELETE", "/v1/admin/users/42"},
                    {"GET", "/v1/admin/users/42"}, {"GET", "/v1/admin/jobs/42-1"}}) {
                HttpResponse<String> r = send(op[0], op[1], token);
                assertThat(r.statusCode()).as(op[0] + " " + op[1]).isEqualTo(403);
                JsonNode problem = problem(r);
                assertThat(problem.path("type").asString()).isEqualTo("https://socialgraph.dev/problems/forbidden");
                assertThat(problem.path("detail").asString()).contains("graph:admin");
                assertThat(problem.path("instance").asString()).isEqualTo(op[1]);
                assertThat(problem.path("parameter").asString()).isEqualTo("Authorization");
            }
        }
        assertThat(SEEN).isEmpty();
    }

    @Test
    void eraseMe_erasesTheTokensSubject_withoutTheAdminScope() throws Exception {
        HttpResponse<String> r = send("DELETE", "/v1/me", user(77));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(SEEN).singleElement().satisfies(seen -> {
            assertThat(seen.method()).isEqualTo("DELETE");
            assertThat(seen.path()).isEqualTo("/internal/v1/admin/users/77");
            assertThat(seen.serviceTokens()).containsExactly(ServiceProcess.SERVICE_TOKEN);
            assertThat(seen.publicPath()).isEqualTo("/v1/me");
            assertThat(seen.requestId()).isNotBlank();
        });
    }

    @Test
    void onlyDelete_isRoutedOnMe() throws Exception {
        for (String method : List.of("GET", "PUT", "POST")) {
            assertThat(send(method, "/v1/me", user(77)).statusCode()).as(method).isEqualTo(404);
        }
        assertThat(SEEN).isEmpty();
    }

    @Test
    void malformedIds_are400_namingTheField() throws Exception {
        String token = admin();
        for (String[] op : new String[][] {{"PUT", "/v1/admin/users/0/deactivation", "id"},
                {"DELETE", "/v1/admin/users/abc/deactivation", "id"}, {"DELETE", "/v1/admin/users/007", "id"},
                {"GET", "/v1/admin/users/-5", "id"}, {"GET", "/v1/admin/users/99999999999999999999", "id"},
                {"GET", "/v1/admin/jobs/42", "jobId"}, {"GET", "/v1/admin/jobs/42-0", "jobId"},
                {"GET", "/v1/admin/jobs/x-1", "jobId"}, {"GET", "/v1/admin/jobs/42-1-2", "jobId"},
                {"GET", "/v1/admin/jobs/-1", "jobId"}, {"GET", "/v1/admin/jobs/42-", "jobId"}}) {
            HttpResponse<String> r = send(op[0], op[1], token);
            assertThat(r.statusCode()).as(op[0] + " " + op[1]).isEqualTo(400);
            JsonNode problem = problem(r);
            assertThat(problem.path("type").asString())
                    .isEqualTo("https://socialgraph.dev/problems/invalid-parameter");
            assertThat(problem.path("parameter").asString()).as(op[1]).isEqualTo(op[2]);
            assertThat(problem.path("instance").asString()).isEqualTo(op[1]);
        }
        assertThat(SEEN).isEmpty();
    }

    @Test
    void otherMethods_onTheAdminPaths_areNotRouted() throws Exception {
        String token = admin();
        assertThat(send("GET", "/v1/admin/users/42/deactivation", token).statusCode()).isEqualTo(404);
        assertThat(send("PUT", "/v1/admin/users/42", token).statusCode()).isEqualTo(404);
        assertThat(send("DELETE", "/v1/admin/jobs/42-1", token).statusCode()).isEqualTo(404);
        assertThat(send("GET", "/v1/admin/users", token).statusCode()).isEqualTo(404);
        assertThat(SEEN).isEmpty();
    }
}
