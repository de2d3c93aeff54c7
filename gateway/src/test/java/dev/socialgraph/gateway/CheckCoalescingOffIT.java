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
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * With {@code graph.gateway.check-coalescing.enabled=false} the single check is Spring Cloud Gateway's {@code check}
 * route again: proxied as it is, one request per check, to the check service's own path.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class CheckCoalescingOffIT {

    static final String SECRET = "check-coalescing-off-it-jwt-secret-0123456789";
    static final HttpServer SERVICE;
    /** Method, path and follow token of every call the service got. */
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    static {
        try {
            SERVICE = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        SERVICE.createContext("/", exchange -> {
            SEEN.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " "
                    + exchange.getRequestHeaders().getFirst("X-Follow-Token"));
            byte[] body = "{\"following\":true}".getBytes(StandardCharsets.UTF_8);
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
        registry.add("spring.data.redis.url", () -> TestServers.redis().uri(TestServers.redis().freshDatabase()));
        registry.add("graph.gateway.check-coalescing.enabled", () -> "false");
    }

    @AfterAll
    static void stop() {
        SERVICE.stop(0);
    }

    @LocalServerPort
    int port;

    @Autowired
    ApplicationContext context;

    @Test
    void theCheck_isProxiedByTheRoute_toTheServicesOwnPath() throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject("12")
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        HttpResponse<String> r = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/users/12/following/14?x=1"))
                        .header("Authorization", "Bearer " + jwt.serialize()).header("X-Follow-Token", "tok")
                        .timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"following\":true}");
        assertThat(SEEN).containsExactly("GET /internal/v1/users/12/following/14?x=1 tok");
        assertThat(context.getBeansOfType(CheckCoalescing.CoalescedCheckMapping.class)).isEmpty();
    }
}
