package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

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
    private static final GatewayProperties.Changes CHANGES =
            new GatewayProperties.Changes(2048, java.time.Duration.ofSeconds(40));

    static final String ISSUER = "https://idp.example/";
    static final String AUDIENCE = "api://social-graph";

    private static GatewayProperties properties(URI jwkSetUri) {
        return jwkSetUri == null ? properties(null, null, null, Duration.ofMinutes(5))
                : properties(jwkSetUri, ISSUER, AUDIENCE, Duration.ofMinutes(5));
    }

    private static GatewayProperties properties(URI jwkSetUri, String issuer, String audience, Duration jwkRefresh) {
        return properties(null, jwkSetUri, issuer, audience, jwkRefresh);
    }

    private static GatewayProperties properties(String previousSecret, URI jwkSetUri, String issuer, String audience,
                                                Duration jwkRefresh) {
        return new GatewayProperties(SECRET, previousSecret, jwkSetUri, issuer, audience, jwkRefresh, URI.create("http://127.0.0.1:8082"),
                URI.create("http://127.0.0.1:8081"), new GatewayProperties.Budget(1, 1),
                new GatewayProperties.Budget(1, 1),
                new GatewayProperties.JwtCache(DataSize.ofMegabytes(1), Duration.ofMinutes(5)),
                Duration.ofSeconds(5), DataSize.ofMegabytes(1), POOL, CHANGES);
    }

    /** Claims of a token for this API: its issuer and audience. */
    private static JWTClaimsSet claims(String subject) {
        return claims(subject, ISSUER, AUDIENCE);
    }

    private static JWTClaimsSet claims(String subject, String issuer, String audience) {
        return new JWTClaimsSet.Builder().subject(subject).issueTime(new Date()).issuer(issuer).audience(audience)
                .expirationTime(Date.from(Instant.now().plusSeconds(60))).build();
    }

    private static String hs256(String subject) throws JOSEException {
        return hs256(claims(subject));
    }

    private static String hs256(JWTClaimsSet claims) throws JOSEException {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private static String rs256(RSAKey key, String subject) throws JOSEException {
        return rs256(key, claims(subject));
    }

    private static String rs256(RSAKey key, JWTClaimsSet claims) throws JOSEException {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(),
                claims);
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

    @Test
    void withASecretAndAnIssuerAndAudience_tokensForAnotherIssuerOrAudienceAreRefused() throws Exception {
        ReactiveJwtDecoder decoder = new SecurityConfiguration().jwtDecoder(
                properties(null, ISSUER, AUDIENCE, Duration.ofMinutes(5)), new SimpleMeterRegistry());

        assertThat(decoder.decode(hs256("44")).block().getSubject()).isEqualTo("44");
        for (String[] other : new String[][] {{"https://other.example/", AUDIENCE}, {ISSUER, "api://another-api"},
                {null, AUDIENCE}, {ISSUER, null}}) {
            String token = hs256(claims("44", other[0], other[1]));
            // Twice: the cache in front never serves a token the validators refused.
            for (int i = 0; i < 2; i++) {
                assertThatThrownBy(() -> decoder.decode(token).block()).as("iss %s aud %s", other[0], other[1])
                        .isInstanceOf(JwtException.class);
            }
        }
    }

    @Test
    void withAJwkSet_tokensForAnotherAudience_suchAsIdTokensOfAnotherApp_areRefused() throws Exception {
        try (JwkSetServer idp = new JwkSetServer(KEY)) {
            ReactiveJwtDecoder decoder = new SecurityConfiguration().jwtDecoder(properties(idp.uri()),
                    new SimpleMeterRegistry());
            assertThat(decoder.decode(rs256(KEY, "45")).block().getSubject()).isEqualTo("45");
            String idToken = rs256(KEY, claims("45", ISSUER, "some-web-app-client-id"));
            assertThatThrownBy(() -> decoder.decode(idToken).block()).isInstanceOf(JwtException.class)
                    .hasMessageContaining("aud");
            String otherIssuer = rs256(KEY, claims("45", "https://another-idp.example/", AUDIENCE));
            assertThatThrownBy(() -> decoder.decode(otherIssuer).block()).isInstanceOf(JwtException.class)
                    .hasMessageContaining("iss");
        }
    }

    @Test
    void aKeyWithdrawnFromTheJwkSet_endsItsCachedTokensWithinARefresh_andTheNewKeyWorks() throws Exception {
        RSAKey next = new RSAKeyGenerator(2048).keyID("k2").generate();
        try (JwkSetServer idp = new JwkSetServer(KEY)) {
            ReactiveJwtDecoder decoder = new SecurityConfiguration().jwtDecoder(
                    properties(idp.uri(), ISSUER, AUDIENCE, Duration.ofSeconds(2)), new SimpleMeterRegistry());
            assertThat(decoder).isInstanceOf(CachingJwtDecoder.class);
            String old = rs256(KEY, "46");
            assertThat(decoder.decode(old).block().getSubject()).isEqualTo("46");
            assertThat(((CachingJwtDecoder) decoder).cached(old)).isNotNull();

            // Rotation: k2 added and k1 withdrawn in one change of the set.
            idp.serve(next);
            // A token of the new key is accepted once the set is fetched again (an unknown kid fetches it, rate-limited).
            String fresh = rs256(next, "47");
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(decoder.decode(fresh).block().getSubject()).isEqualTo("47"));
            // The old key's cached token is refused once the set is fetched again, cache or not.
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThatThrownBy(() -> decoder.decode(old).block()).isInstanceOf(JwtException.class));
            assertThat(((CachingJwtDecoder) decoder).cached(old)).isNull();
        }
    }

    @Test
    void duringASecretRotation_tokensOfTheNewAndThePreviousSecretAreAccepted_andNoOther() throws Exception {
        String previous = "jwt-decoder-test-previous-secret-0123456789";
        ReactiveJwtDecoder decoder = new SecurityConfiguration().jwtDecoder(
                properties(previous, null, ISSUER, AUDIENCE, Duration.ofMinutes(5)), new SimpleMeterRegistry());

        assertThat(decoder.decode(hs256(claims("48"))).block().getSubject()).isEqualTo("48");
        assertThat(decoder.decode(signed(claims("49"), previous)).block().getSubject()).isEqualTo("49");
        String other = signed(claims("50"), "jwt-decoder-test-another-secret-0123456789");
        assertThatThrownBy(() -> decoder.decode(other).block()).isInstanceOf(JwtException.class);
        // The claim rules hold for tokens of the previous secret too.
        String foreign = signed(claims("51", ISSUER, "api://another-api"), previous);
        assertThatThrownBy(() -> decoder.decode(foreign).block()).isInstanceOf(JwtException.class);
    }

    private static String signed(JWTClaimsSet claims, String secret) throws JOSEException {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    /** A loopback identity provider serving a JWK Set of the public halves of the keys it is given last. */
    private static final class JwkSetServer implements AutoCloseable {

        private final HttpServer server;
        private volatile byte[] jwks;

        JwkSetServer(RSAKey... keys) throws java.io.IOException {
            serve(keys);
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/jwks.json", exchange -> {
                byte[] body = jwks;
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            server.start();
        }

        void serve(RSAKey... keys) {
            java.util.List<com.nimbusds.jose.jwk.JWK> publicKeys = new java.util.ArrayList<>();
            for (RSAKey key : keys) {
                publicKeys.add(key.toPublicJWK());
            }
            jwks = new JWKSet(publicKeys).toString().getBytes(StandardCharsets.UTF_8);
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/jwks.json");
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
