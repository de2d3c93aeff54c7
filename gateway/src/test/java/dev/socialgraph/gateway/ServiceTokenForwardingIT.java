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

/**
 * Every request the gateway proxies carries its service credential ({@code graph.service-token}, here the test
 * configuration's {@link ServiceProcess#SERVICE_TOKEN}) as the only {@code X-Service-Token}, whatever the client
 * sent. The services are one stand-in HTTP server that records the header values it gets.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ServiceTokenForwardingIT {

    static final String SECRET = "service-token-forwarding-it-jwt-secret-0123456789";
    static final HttpServer SERVICE;
    static final List<List<String>> SEEN = new CopyOnWriteArrayList<>();
    static final List<List<String>> SEEN_REQUEST_IDS = new CopyOnWriteArrayList<>();
    static final List<List<String>> SEEN_TRACEPARENTS = new CopyOnWriteArrayList<>();

    static {
        try {
            SERVICE = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        SERVICE.createContext("/", exchange -> {
            List<String> tokens = exchange.getRequestHeaders().get(ServiceHeaders.HEADER);
            SEEN.add(tokens == null ? List.of() : List.copyOf(tokens));
            List<String> ids = exchange.getRequestHeaders().get(RequestIds.HEADER);
            SEEN_REQUEST_IDS.add(ids == null ? List.of() : List.copyOf(ids));
            List<String> traceParents = exchange.getRequestHeaders().get("traceparent");
            SEEN_TRACEPARENTS.add(traceParents == null ? List.of() : List.copyOf(traceParents));
            byte[] body = "{\"followers\":1,\"following\":2}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        SERVICE.start();
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        String uri = "http://127.0.0.1:" + SERVICE.getAddress().getPort();
        registry.add("graph.gateway.jwt-secret", () -> SECRET);
        registry.add("graph.gateway.check-uri", () -> uri);
        registry.add("graph.gateway.write-uri", () -> uri);
        // The stand-in answers each read as a GET of its own; LeanReadsIT holds what a batch of reads carries.
        registry.add("graph.gateway.lean-reads.coalesce", () -> "false");
        registry.add("spring.data.redis.url", () -> TestServers.redis().uri(TestServers.redis().freshDatabase()));
    }

    @AfterAll
    static void stop() {
        SERVICE.stop(0);
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void clear() {
        SEEN.clear();
        SEEN_REQUEST_IDS.clear();
        SEEN_TRACEPARENTS.clear();
    }

    private HttpResponse<String> send(String method, String path, String... headers) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject("7")
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + jwt.serialize())
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void readsAndWrites_carryTheGatewaysCredential() throws Exception {
        assertThat(send("GET", "/v1/users/7/counts").statusCode()).isEqualTo(200);
        assertThat(send("PUT", "/v1/me/following/8").statusCode()).isEqualTo(200);
        assertThat(send("DELETE", "/v1/me/following/8").statusCode()).isEqualTo(200);

        assertThat(SEEN).containsExactly(List.of(ServiceProcess.SERVICE_TOKEN), List.of(ServiceProcess.SERVICE_TOKEN),
                List.of(ServiceProcess.SERVICE_TOKEN));
    }

    @Test
    void aClientsOwnServiceToken_isReplaced() throws Exception {
        String forged = "forged-by-a-client-0123456789-0123456789";

        assertThat(send("GET", "/v1/users/7/counts", "X-Service-Token", forged).statusCode()).isEqualTo(200);
        assertThat(send("PUT", "/v1/me/following/8", "X-Service-Token", forged, "X-Service-Token", forged)
                .statusCode()).isEqualTo(200);

        assertThat(SEEN).containsExactly(List.of(ServiceProcess.SERVICE_TOKEN), List.of(ServiceProcess.SERVICE_TOKEN));
    }

    @Test
    void theRequestId_theClientGetsBack_isTheOneTheServiceSaw() throws Exception {
        HttpResponse<String> generated = send("GET", "/v1/users/7/counts");
        HttpResponse<String> kept = send("PUT", "/v1/me/following/8", RequestIds.HEADER, "client-id-42");
        HttpResponse<String> replaced = send("GET", "/v1/users/7/counts", RequestIds.HEADER, "has space");

        String generatedId = generated.headers().firstValue(RequestIds.HEADER).orElseThrow();
        String replacedId = replaced.headers().firstValue(RequestIds.HEADER).orElseThrow();
        assertThat(kept.headers().firstValue(RequestIds.HEADER)).hasValue("client-id-42");
        assertThat(replacedId).isNotEqualTo("has space").hasSize(36);
        assertThat(SEEN_REQUEST_IDS).containsExactly(List.of(generatedId), List.of("client-id-42"), List.of(replacedId));
    }

    @Test
    void theService_getsTheGatewaysSpanAsParent_inTheClientsTrace_andARead_theClientsOwnContext() throws Exception {
        String traceId = "0af7651916cd43dd8448eb211c80319c";
        String clientSpan = "b7ad6b7169203331";
        String clientContext = "00-" + traceId + "-" + clientSpan + "-01";

        assertThat(send("PUT", "/v1/me/following/8", "traceparent", clientContext).statusCode()).isEqualTo(200);
        assertThat(send("PUT", "/v1/me/following/8").statusCode()).isEqualTo(200);
        assertThat(send("GET", "/v1/users/7/counts", "traceparent", clientContext).statusCode()).isEqualTo(200);

        assertThat(SEEN_TRACEPARENTS).hasSize(3);
        assertThat(SEEN_TRACEPARENTS.get(0)).singleElement().satisfies(parent -> {
            assertThat(parent).matches("00-" + traceId + "-[0-9a-f]{16}-01");
            assertThat(parent).doesNotContain(clientSpan); // the gateway's own span, the client's child
        });
        // Without a client context the gateway starts the trace; sampled or not, the service continues it. Flags:
        // bit 0 sampled, bit 1 "random trace id" (W3C Trace Context Level 2, which OpenTelemetry sets).
        assertThat(SEEN_TRACEPARENTS.get(1)).singleElement().asString()
                .matches("00-[0-9a-f]{32}-[0-9a-f]{16}-0[0-3]").doesNotContain(traceId);
        // A read the gateway serves itself has no gateway span: the service's span is the client's child.
        assertThat(SEEN_TRACEPARENTS.get(2)).containsExactly(clientContext);
    }
}
