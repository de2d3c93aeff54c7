package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.testsupport.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A service whose static instance list is empty: LoadBalancer finds no instance and the gateway answers 503
 * problem+json with {@code Retry-After}, not a 500.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class NoInstanceIT {

    static final String SECRET = "no-instance-it-jwt-secret-0123456789-abcdefgh";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.jwt-secret", () -> SECRET);
        registry.add("spring.data.redis.host", () -> TestServers.redis().host());
        registry.add("spring.data.redis.port", () -> TestServers.redis().port());
        registry.add("spring.cloud.discovery.client.simple.instances.follow-check-service", () -> "");
        registry.add("spring.cloud.discovery.client.simple.instances.follow-write-service", () -> "");
    }

    @LocalServerPort
    int port;

    @Test
    void aServiceWithoutInstances_gets503ProblemJson() throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject("11").issueTime(new Date())
                .expirationTime(Date.from(Instant.now().plusSeconds(60))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        for (String[] request : new String[][] {{"GET", "/v1/users/11/counts", "follow-check-service"},
                {"GET", "/v1/users/11/following/12", "follow-check-service"}, // the coalesced check's own handler
                {"PUT", "/v1/me/following/12", "follow-write-service"}}) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + request[1])).timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + jwt.serialize())
                    .method(request[0], HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(request[1]).isEqualTo(503);
            assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
            assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(r.body()).contains("\"status\":503").contains(request[2]); // "Unable to find instance for ..."
        }
    }
}
