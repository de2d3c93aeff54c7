package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.util.unit.DataSize;

/**
 * Start-up picks the token decoder from the settings: HS256 with {@code graph.gateway.jwt-secret}, or the JWK Set
 * of {@code graph.gateway.jwk-set-uri} when that is set (served here by a loopback HTTP server, no network).
 */
class JwtDecoderTest {

    private static final String SECRET = "jwt-decoder-test-secret-0123456789-abcdef";
    private static final RSAKey KEY = rsaKey();

    private static RSAKey rsaKey() {
        try {
            return new RSAKeyGenerator(2048).keyID("k1").generate();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final GatewayProperties.ServicePool POOL =
            new GatewayProperties.ServicePool(256, 1024, Duration.ofSeconds(1));

    private static GatewayProperties properties(URI jwkSetUri) {
        return new GatewayProperties(SECRET, jwkSetUri, URI.create("http://127.0.0.1:8082"),
                URI.create("http://127.0.0.1:8081"), new GatewayProperties.Budget(1, 1),
                new GatewayProperties.Budget(1, 1), new GatewayProperties.JwtCache(100, Duration.ofMinutes(5)),
                Duration.ofSeconds(5), DataSize.ofMegabytes(1), POOL);
    }

    private static JWTClaimsSet claims(String subject) {
        return new JWTClaimsSet.Builder().subject(subject).issueTime(new Date())
                .expirationTime(Date.from(Instant.now().plusSeconds(60))).build();
    }

    private static String hs256(String subject) throws JOSEException {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims(subject));
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private static String rs256(RSAKey key, String subject) throws JOSEException {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(),
                claims(subject));
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    @Test
    void withoutAJwkSetUri_acceptsHs256TokensOfTheSecret() throws Exception {
        ReactiveJwtDecoder decoder = new SecurityConfiguration().jwtDecoder(properties(null), new SimpleMeterRegistry());
        assertThat(decoder.decode(hs256("42")).block().getSubject()).isEqualTo("42");
        assertThatThrownBy(() -> decoder.decode(rs256(KEY, "42")).block()).isInstanceOf(JwtException.class);
    }

    @Test
    void tokenWithoutExp_isRefused() throws Exception {
        ReactiveJwtDecoder decoder = new SecurityConfiguration().jwtDecoder(properties(null), new SimpleMeterRegistry());
        String unexpiring = sign(new JWTClaimsSet.Builder().subject("42").issueTime(new Date()).build());
        assertThatThrownBy(() -> decoder.decode(unexpiring).block()).isInstanceOf(JwtException.class)
                .hasMessageContaining("exp");
    }

    @Test
    void numericSub_isRefused_andTheSameIdAsAStringAccepted() throws Exception {
        ReactiveJwtDecoder decoder = new SecurityConfiguration().jwtDecoder(properties(null), new SimpleMeterRegistry());
        Date exp = Date.from(Instant.now().plusSeconds(60));
        String numeric = sign(new JWTClaimsSet.Builder().claim("sub", 42L).expirationTime(exp).build());
        assertThatThrownBy(() -> decoder.decode(numeric).block()).isInstanceOf(JwtException.class)
                .hasMessageContaining("sub must be a string holding a positive 64-bit user id");
        String text = sign(new JWTClaimsSet.Builder().claim("sub", "42").expirationTime(exp).build());
        assertThat(decoder.decode(text).block().getSubject()).isEqualTo("42");
    }

    private static String sign(JWTClaimsSet claims) throws JOSEException {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    @Test
    void withAJwkSetUri_acceptsTokensSignedByItsKeysAndNoLongerTheSecret() throws Exception {
        RSAKey key = KEY;
        byte[] jwks = new JWKSet(key.toPublicJWK()).toString().getBytes(StandardCharsets.UTF_8);
        AtomicInteger fetches = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/jwks.json", exchange -> {
            fetches.incrementAndGet();
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, jwks.length);
            exchange.getResponseBody().write(jwks);
            exchange.close();
        });
        server.start();
        try {
            URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/jwks.json");
            ReactiveJwtDecoder decoder = new SecurityConfiguration().jwtDecoder(properties(uri), new SimpleMeterRegistry());
            assertThat(decoder.decode(rs256(key, "43")).block().getSubject()).isEqualTo("43");
            assertThat(fetches.get()).isPositive();
            assertThatThrownBy(() -> decoder.decode(hs256("43")).block()).isInstanceOf(JwtException.class);
            // The claim rules are the same: sub must be a user id.
            assertThatThrownBy(() -> decoder.decode(rs256(key, "abc")).block()).isInstanceOf(JwtException.class)
                    .hasMessageContaining("sub must be a string holding a positive 64-bit user id");
        } finally {
            server.stop(0);
        }
    }
}
