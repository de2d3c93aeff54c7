package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
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
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Regression test of a security review's finding, "a benchmark door in the product": {@code
 * graph.gateway.bare-route=true} once routed {@code GET /internal/v1/users/{id}/following/{targetId}} from the public
 * port to the check service without authentication, and the check service served {@code /internal/v1/hello}. The
 * benchmark's floors now live in support/floors. Here the retired property is set anyway: the shipped gateway answers
 * 404 for the internal API, with or without a token, and nothing reaches the check service (a stand-in HTTP server
 * that would answer 200 to anything).
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "graph.gateway.bare-route=true")
class InternalApiClosedIT {

    static final String JWT_SECRET = "internal-api-closed-it-jwt-secret-0123456789";
    static final HttpServer CHECK;
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    static {
        try {
            CHECK = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        CHECK.createContext("/", exchange -> {
            SEEN.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawPath());
            byte[] body = "{\"following\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        CHECK.start();
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.jwt-secret", () -> JWT_SECRET);
        registry.add("graph.gateway.check-uri", () -> "http://127.0.0.1:" + CHECK.getAddress().getPort());
        registry.add("graph.gateway.write-uri", () -> "http://127.0.0.1:" + CHECK.getAddress().getPort());
        registry.add("spring.data.redis.host", () -> TestServers.redis().host());
        registry.add("spring.data.redis.port", () -> TestServers.redis().port());
    }

    @AfterAll
    static void stop() {
        CHECK.stop(0);
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private HttpResponse<String> send(String method, String path, String bearer) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10));
        if (bearer != null) {
            b.header("Authorization", "Bearer " + bearer);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A valid bearer token of user {@code subject}, for a minute. */
    private static String token(String subject) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(subject).issueTime(new Date())
                .expirationTime(Date.from(Instant.now().plusSeconds(60))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(JWT_SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    @Test
    void theInternalCheckPath_is404_notAProxied200_evenWithTheRetiredBareRouteProperty() throws Exception {
        HttpResponse<String> r = send("GET", "/internal/v1/users/1/following/2", null);

        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("\"status\":404").doesNotContain("\"following\":true");
        assertThat(SEEN).isEmpty();
    }

    @Test
    void noInternalPath_isRouted_withOrWithoutAToken() throws Exception {
        String bearer = token("1");
        for (String path : new String[] {"/internal/v1/users/1/following/2", "/internal/v1/hello",
                "/internal/v1/users/1/counts", "/internal/v1/following/pairs", "/internal/v1/bloom"}) {
            for (String method : new String[] {"GET", "POST", "PUT"}) {
                assertThat(send(method, path, null).statusCode()).as("%s %s", method, path).isEqualTo(404);
                assertThat(send(method, path, bearer).statusCode()).as("%s %s with a token", method, path)
                        .isEqualTo(404);
            }
        }
        assertThat(SEEN).isEmpty();
    }
}
