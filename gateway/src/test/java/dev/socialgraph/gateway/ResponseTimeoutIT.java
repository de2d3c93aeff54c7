package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
 * A service that accepts the connection and never answers gets 504 problem+json after
 * {@code graph.gateway.response-timeout} (Reactor Netty's response timeout, {@link HttpClientTuning}), not a hang.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ResponseTimeoutIT {

    static final String SECRET = "response-timeout-it-jwt-secret-0123456789-abc";
    static final ServerSocket SILENT;
    static final List<Socket> ACCEPTED = new CopyOnWriteArrayList<>();

    static {
        try {
            SILENT = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        Thread.ofPlatform().daemon().name("silent-service").start(() -> {
            while (!SILENT.isClosed()) {
                try {
                    ACCEPTED.add(SILENT.accept()); // keep it open, read nothing, answer nothing
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        RedisServer redis = TestServers.redis();
        int database = redis.freshDatabase();
        registry.add("graph.gateway.jwt-secret", () -> SECRET);
        registry.add("graph.gateway.check-uri", () -> "http://127.0.0.1:" + SILENT.getLocalPort());
        registry.add("graph.gateway.write-uri", () -> "http://127.0.0.1:" + SILENT.getLocalPort());
        registry.add("graph.gateway.response-timeout", () -> "1s");
        registry.add("spring.data.redis.url", () -> redis.uri(database));
    }

    @AfterAll
    static void close() throws IOException {
        SILENT.close();
        for (Socket s : ACCEPTED) {
            s.close();
        }
    }

    @LocalServerPort
    int port;

    @Test
    void silentService_gets504ProblemJsonAfterTheResponseTimeout() throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject("7")
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        // A proxied read, and the single check, which the gateway's own handler sends as a batch call.
        for (String path : new String[] {"/v1/users/7/counts", "/v1/users/7/following/8"}) {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .header("Authorization", "Bearer " + jwt.serialize()).timeout(Duration.ofSeconds(30)).GET().build();

            long start = System.nanoTime();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            assertThat(response.statusCode()).as(path).isEqualTo(504);
            assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
            assertThat(response.body()).contains("\"status\":504").contains("did not answer in time");
            assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(900)).isLessThan(Duration.ofSeconds(10));
        }
        assertThat(ACCEPTED).hasSizeGreaterThanOrEqualTo(2);
    }
}
