package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import reactor.core.publisher.Mono;

class CachingJwtDecoderTest {

    private static final String SECRET = "caching-jwt-decoder-test-secret-0123456789abcdef";
    private static final Instant T0 = Instant.parse("2026-11-23T12:00:00Z");

    /** A settable clock shared by the delegate's timestamp validator and the cache. */
    private static final class MovableClock extends Clock {
        Instant now = T0;

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    private final MovableClock clock = new MovableClock();
    private final AtomicInteger decodes = new AtomicInteger();
    private final ReactiveJwtDecoder verifying = verifyingDecoder();
    private final ReactiveJwtDecoder counting = token -> {
        decodes.incrementAndGet();
        return verifying.decode(token);
    };

    private ReactiveJwtDecoder verifyingDecoder() {
        NimbusReactiveJwtDecoder d = NimbusReactiveJwtDecoder
                .withSecretKey(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"))
                .macAlgorithm(MacAlgorithm.HS256).build();
        JwtTimestampValidator timestamps = new JwtTimestampValidator(SecurityConfiguration.CLOCK_SKEW);
        timestamps.setClock(clock);
        d.setJwtValidator(timestamps);
        return d;
    }

    private CachingJwtDecoder cache(long maxBytes) {
        return new CachingJwtDecoder(counting, maxBytes, Duration.ofMinutes(5), SecurityConfiguration.CLOCK_SKEW, clock,
                null);
    }

    private static final long ONE_MB = 1 << 20;

    private static String token(String secret, long subject, Instant expiresAt, Instant notBefore) throws Exception {
        return token(secret, subject, expiresAt, notBefore, null);
    }

    private static String token(String secret, long subject, Instant expiresAt, Instant notBefore, String keyId)
            throws Exception {
        JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder().subject(Long.toString(subject))
                .expirationTime(Date.from(expiresAt));
        if (notBefore != null) {
            claims.notBeforeTime(Date.from(notBefore));
        }
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID(keyId).build(), claims.build());
        jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    @Test
    void decode_sameTokenTwice_verifiesOnceAndReturnsTheSameJwt() throws Exception {
        CachingJwtDecoder decoder = cache(ONE_MB);
        String token = token(SECRET, 42, T0.plusSeconds(600), null);

        Jwt first = decoder.decode(token).block();
        Jwt second = decoder.decode(token).block();

        assertThat(second).isSameAs(first);
        assertThat(second.getSubject()).isEqualTo("42");
        assertThat(decodes).hasValue(1);
    }

    @Test
    void decode_cachedTokenPastExpiryAndSkew_isVerifiedAgainAndRejected() throws Exception {
        CachingJwtDecoder decoder = cache(ONE_MB);
        String token = token(SECRET, 42, T0.plusSeconds(600), null);
        decoder.decode(token).block();

        clock.now = T0.plusSeconds(600 + 59); // inside the 60 s skew: still served from the cache
        assertThat(decoder.decode(token).block()).isNotNull();
        assertThat(decodes).hasValue(1);

        clock.now = T0.plusSeconds(600 + 61);
        assertThatThrownBy(() -> decoder.decode(token).block()).isInstanceOf(JwtException.class)
                .hasMessageContaining("expired");
        assertThat(decodes).hasValue(2);
        assertThat(decoder.size()).isZero();
    }

    @Test
    void decode_tokenNotYetValid_isNeverCachedIntoValidity() throws Exception {
        CachingJwtDecoder decoder = cache(ONE_MB);
        String early = token(SECRET, 42, T0.plusSeconds(3600), T0.plusSeconds(300));

        assertThatThrownBy(() -> decoder.decode(early).block()).isInstanceOf(JwtException.class);
        assertThatThrownBy(() -> decoder.decode(early).block()).isInstanceOf(JwtException.class);
        assertThat(decodes).hasValue(2);

        clock.now = T0.plusSeconds(300);
        assertThat(decoder.decode(early).block().getSubject()).isEqualTo("42");
    }

    @Test
    void decode_forgedSignature_isRejectedEveryTimeAndNotCached() throws Exception {
        CachingJwtDecoder decoder = cache(ONE_MB);
        String good = token(SECRET, 42, T0.plusSeconds(600), null);
        decoder.decode(good).block();
        String forged = token("another-secret-of-enough-length-0123456789abcdef", 42, T0.plusSeconds(600), null);

        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> decoder.decode(forged).block()).isInstanceOf(JwtException.class);
        }
        assertThat(decodes).hasValue(4);
        assertThat(decoder.size()).isEqualTo(1);
    }

    @Test
    void decode_delegateError_propagatesUnchanged() {
        CachingJwtDecoder decoder = new CachingJwtDecoder(t -> Mono.error(new JwtException("bad: " + t)), 10,
                Duration.ofMinutes(1), SecurityConfiguration.CLOCK_SKEW, clock, null);

        assertThatThrownBy(() -> decoder.decode("x.y.z").block()).isInstanceOf(JwtException.class).hasMessage("bad: x.y.z");
        assertThat(decoder.size()).isZero();
    }

    @Test
    void constructor_bytesBelowOne_isRefused() {
        assertThatThrownBy(() -> cache(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void manyTokens_areKeptWithinTheByteBound_largeOnesWeighingMore() throws Exception {
        String small = token(SECRET, 1, T0.plusSeconds(600), null);
        SignedJWT padded = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), new JWTClaimsSet.Builder().subject("2")
                .expirationTime(Date.from(T0.plusSeconds(600))).claim("padding", "x".repeat(6_000)).build());
        padded.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        String large = padded.serialize();
        assertThat(CachingJwtDecoder.weigh(large, null)).isGreaterThan(2 * 8_000)
                .isGreaterThan(4 * CachingJwtDecoder.weigh(small, null));

        long bound = 20L * CachingJwtDecoder.weigh(small, null);
        CachingJwtDecoder decoder = cache(bound);
        for (int user = 1; user <= 200; user++) {
            decoder.decode(token(SECRET, user, T0.plusSeconds(600), null)).block();
        }
        decoder.decode(large).block();

        assertThat(decoder.weightedBytes()).isLessThanOrEqualTo(bound);
        assertThat(decoder.size()).isBetween(1L, 20L);
    }

    @Test
    void retainKeys_dropsTheTokensOfAWithdrawnKey_andKidlessOnesOnlyWhenAKeyWasWithdrawn() throws Exception {
        CachingJwtDecoder decoder = cache(ONE_MB);
        String byK1 = token(SECRET, 1, T0.plusSeconds(600), null, "k1");
        String byK2 = token(SECRET, 2, T0.plusSeconds(600), null, "k2");
        String kidless = token(SECRET, 3, T0.plusSeconds(600), null);
        for (String token : new String[] {byK1, byK2, kidless}) {
            decoder.decode(token).block();
        }

        assertThat(decoder.retainKeys(Set.of("k1", "k2", "k3"), false)).isZero();
        assertThat(decoder.size()).isEqualTo(3);

        assertThat(decoder.retainKeys(Set.of("k2"), true)).isEqualTo(2);
        assertThat(decoder.cached(byK2)).isNotNull();
        assertThat(decoder.cached(byK1)).isNull();
        assertThat(decoder.cached(kidless)).isNull();
        // The next request of a dropped token is verified again (here the delegate still accepts it).
        decoder.decode(byK1).block();
        assertThat(decodes).hasValue(4);
    }
}
