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
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A gateway bound to an issuer and an audience ({@code graph.gateway.jwt-issuer}, {@code graph.gateway.jwt-audience})
 * refuses, with the chain's 401, a token signed with its key for another issuer or another audience, or with neither,
 * on the single check's cached path and on every other route alike, however often it is sent; a token for this API is
 * served on both.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class TokenAudienceIT {

    static final String SECRET = "token-audience-it-jwt-secret-0123456789abcdef";
    static final String ISSUER = "https://idp.example/";
    static final String AUDIENCE = "api://social-graph";
    static final HttpServer SERVICE;

    static {
        try {
            SERVICE = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        SERVICE.setExecutor(Executors.newCachedThreadPool(Thread.ofPlatform().daemon().factory()));
        // The same stand-in check instance as SingleCheckEntryIT's: every pair follows, any other read is counts.
        SERVICE.createContext("/", SingleCheckEntryIT::serve);
        SERVICE.start();
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        String uri = "http://127.0.0.1:" + SERVICE.getAddress().getPort();
        registry.add("graph.gateway.jwt-secret", () -> SECRET);
        registry.add("graph.gateway.jwt-issuer", () -> ISSUER);
        registry.add("graph.gateway.jwt-audience", () -> AUDIENCE);
        registry.add("graph.gateway.check-uri", () -> uri);
        registry.add("graph.gateway.write-uri", () -> uri);
        // The stand-in answers each read as a GET of its own; LeanReadsIT holds what a batch of reads carries.
        registry.add("graph.gateway.lean-reads.coalesce", () -> "false");
        registry.add("spring.data.redis.url", () -> TestServers.redis().uri(TestServers.redis().freshDatabase()));
        registry.add("graph.gateway.reads.replenish-rate", () -> "100000");
        registry.add("graph.gateway.reads.burst-capacity", () -> "100000");
    }

    @AfterAll
    static void stop() {
        SERVICE.stop(0);
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static String token(String issuer, String audience) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject("91").issuer(issuer).audience(audience)
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private HttpResponse<String> get(String path, String token) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + token).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aTokenForAnotherIssuerOrAudience_is401OnTheCheckAndEveryRoute_everyTime() throws Exception {
        String[][] others = {{"https://another-idp.example/", AUDIENCE}, {ISSUER, "api://another-api"},
                {null, AUDIENCE}, {ISSUER, null}, {null, null}};
        for (String[] other : others) {
            String token = token(other[0], other[1]);
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> check = get("/v1/users/91/following/92", token);
                HttpResponse<String> counts = get("/v1/users/91/counts", token);
                assertThat(check.statusCode()).as("iss %s aud %s", other[0], other[1]).isEqualTo(401);
                assertThat(counts.statusCode()).as("iss %s aud %s", other[0], other[1]).isEqualTo(401);
                assertThat(check.body()).contains("\"parameter\":\"Authorization\"");
            }
        }
    }

    @Test
    void aTokenForThisApi_isServedOnTheCheckAndEveryRoute() throws Exception {
        String token = token(ISSUER, AUDIENCE);
        for (int i = 0; i < 3; i++) {
            assertThat(get("/v1/users/91/following/92", token).body()).isEqualTo("{\"following\":true}");
            assertThat(get("/v1/users/91/counts", token).statusCode()).isEqualTo(200);
        }
    }
}
