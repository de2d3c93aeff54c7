package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Metrics;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The connection pool to a service instance is bounded ({@code graph.gateway.service-pool.*}): with one connection
 * held by a request the service never answers, one more request may wait for it, and every request past that is
 * answered 503 problem+json with {@code Retry-After} at once, as is the waiting one when its wait ends; the service
 * never sees a second connection.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ServicePoolIT {

    static final String SECRET = "service-pool-it-jwt-secret-0123456789-abcdef";
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
        registry.add("graph.gateway.response-timeout", () -> "60s"); // the held request outlives the test
        registry.add("graph.gateway.service-pool.max-connections", () -> "1");
        registry.add("graph.gateway.service-pool.pending-acquire-max", () -> "1");
        registry.add("graph.gateway.service-pool.pending-acquire-timeout", () -> "2s");
        // The pool's gauges, to see the waiting request instead of guessing when it waits.
        registry.add("spring.cloud.gateway.server.webflux.httpclient.pool.metrics", () -> "true");
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

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void exhaustedPool_gets503ProblemJsonWithRetryAfter_andTheServiceOneConnection() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/users/7/counts"))
                .header("Authorization", "Bearer " + token()).timeout(Duration.ofSeconds(30)).GET().build();

        CompletableFuture<HttpResponse<String>> holding = http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(20)).until(() -> ACCEPTED.size() == 1);
        CompletableFuture<HttpResponse<String>> waiting = http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(20)).until(() -> pendingAcquires() == 1);

        HttpResponse<String> refused = http.send(request, HttpResponse.BodyHandlers.ofString()); // the queue is full
        assertServiceUnavailable(refused);
        assertServiceUnavailable(waiting.get()); // its wait (2 s) ended without a free connection
        assertThat(holding).isNotDone();
        assertThat(ACCEPTED).hasSize(1);
    }

    private static void assertServiceUnavailable(HttpResponse<String> response) {
        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(response.body()).contains("\"status\":503").contains("too many requests are waiting");
    }

    /** Requests waiting for a connection to the silent service, by Reactor Netty's pool gauge. */
    private static double pendingAcquires() {
        Gauge gauge = Metrics.globalRegistry.find("reactor.netty.connection.provider.pending.connections").gauge();
        return gauge == null ? -1 : gauge.value();
    }

    private static String token() throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject("7")
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }
}
