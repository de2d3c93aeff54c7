package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.testsupport.TestServers;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * One keep-alive connection to the gateway keeps being read after an answer the gateway gives at once (a path the
 * {@link PathGuard} refuses) follows one it gives later (a request that waits on Redis and on a service). The
 * services are not running: the later answer is 503.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class KeepAliveIT {

    static final String SECRET = "keep-alive-it-jwt-secret-0123456789-abcdefgh";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.jwt-secret", () -> SECRET);
        registry.add("graph.gateway.write-uri", () -> "http://127.0.0.1:9"); // discard port: nothing listens
        registry.add("graph.gateway.check-uri", () -> "http://127.0.0.1:9");
        registry.add("spring.data.redis.host", () -> TestServers.redis().host());
        registry.add("spring.data.redis.port", () -> TestServers.redis().port());
    }

    @LocalServerPort
    int port;

    /**
     * Regression test: a malformed request in GatewayIT's fuzz test sometimes got no answer for 10 s.
     * Reactor Netty 1.3.7 queued a request that arrived while the previous request's exchange was still finishing,
     * and when the queued request was answered within the drain of that queue (as every request the gateway refuses
     * before routing is), the drain ended without asking the connection for more bytes: the next request on the
     * connection was never read. Pipelining the two requests makes the queueing certain instead of a race.
     */
    @Test
    void aRequestRefusedAtOnce_afterOneAnsweredLater_leavesTheConnectionReadingTheNext() throws Exception {
        // Answered later: a proxied read, and the single check, answered by the gateway's own handler.
        for (String laterPath : new String[] {"/v1/users/5/counts", "/v1/users/5/following/6"}) {
            pipelined(request("GET", laterPath, token(701)));
        }
    }

    private void pipelined(String later) throws Exception {
        String atOnce = request("GET", "/v1/users/%20/counts", token(701));
        try (Socket socket = new Socket("127.0.0.1", port)) {
            // A bound on each read, only so that the old behaviour fails instead of hanging the build.
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write((later + atOnce).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(RawHttp.read(in).status()).as(later).isEqualTo(503);
            assertThat(RawHttp.read(in).status()).isEqualTo(400);

            out.write(atOnce.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            RawHttp.Response next = RawHttp.read(in);
            assertThat(next.status()).isEqualTo(400);
            assertThat(next.contentType()).startsWith("application/problem+json");
            assertThat(next.body()).contains("\"parameter\":\"path\"");
        }
    }

    private String request(String method, String path, String bearer) {
        return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAuthorization: Bearer " + bearer
                + "\r\n\r\n";
    }

    private static String token(long user) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(Long.toString(user))
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }
}
