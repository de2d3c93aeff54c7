package dev.socialgraph.common.token;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.token.FollowTokens.Verification;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class FollowTokensTest {

    private static final byte[] SECRET = "follow-token-secret-of-32-bytes!".getBytes(StandardCharsets.US_ASCII);
    private static final long T0 = 1_700_000_000_000L;
    private static final Duration MAX_AGE = Duration.ofSeconds(5);

    private static FollowTokens at(long millis) {
        return new FollowTokens(SECRET, Clock.fixed(Instant.ofEpochMilli(millis), ZoneOffset.UTC));
    }

    @Test
    void issue_writesActorAndTimeIn64Characters() {
        String token = at(T0).issue(42);

        assertThat(token).hasSize(FollowTokens.ENCODED_LENGTH).matches("[A-Za-z0-9_-]+");
        byte[] bytes = Base64.getUrlDecoder().decode(token);
        assertThat(bytes).hasSize(48);
        assertThat(java.nio.ByteBuffer.wrap(bytes).getLong(0)).isEqualTo(42);
        assertThat(java.nio.ByteBuffer.wrap(bytes).getLong(8)).isEqualTo(T0);
    }

    /** The bound the gateway and the check service refuse a longer {@code X-Follow-Token} by. */
    @Test
    void maxLength_isTheLengthOfEveryToken_andNothingLongerVerifies() {
        assertThat(FollowTokens.MAX_LENGTH).isEqualTo(64).isEqualTo(FollowTokens.ENCODED_LENGTH);
        String token = at(T0).issue(Long.MAX_VALUE);

        assertThat(token).hasSize(FollowTokens.MAX_LENGTH);
        assertThat(at(T0).verify(token + "A", Long.MAX_VALUE, MAX_AGE)).isEqualTo(Verification.MALFORMED);
    }

    @Test
    void verify_whenSameActorAndYoung_isValid() {
        String token = at(T0).issue(42);

        assertThat(at(T0).verify(token, 42, MAX_AGE)).isEqualTo(Verification.VALID);
        assertThat(at(T0 + 4_999).verify(token, 42, MAX_AGE)).isEqualTo(Verification.VALID);
        assertThat(at(T0).verify(token, 42, MAX_AGE).isValid()).isTrue();
    }

    @Test
    void verify_whenMaxAgeReached_isExpired() {
        String token = at(T0).issue(42);

        assertThat(at(T0 + 5_000).verify(token, 42, MAX_AGE)).isEqualTo(Verification.EXPIRED);
        assertThat(at(T0 + 86_400_000).verify(token, 42, MAX_AGE)).isEqualTo(Verification.EXPIRED);
        assertThat(at(T0).verify(token, 42, Duration.ZERO)).isEqualTo(Verification.EXPIRED);
    }

    @Test
    void verify_whenOtherActor_isOtherActor() {
        String token = at(T0).issue(42);

        assertThat(at(T0).verify(token, 43, MAX_AGE)).isEqualTo(Verification.OTHER_ACTOR);
    }

    @Test
    void verify_whenIssuedSlightlyAhead_toleratesClockSkew() {
        String token = at(T0 + 1_000).issue(42);

        assertThat(at(T0).verify(token, 42, MAX_AGE)).isEqualTo(Verification.VALID);
    }

    @Test
    void verify_whenIssuedBeyondSkew_isFromFuture() {
        String token = at(T0 + 1_001).issue(42);

        assertThat(at(T0).verify(token, 42, MAX_AGE)).isEqualTo(Verification.FROM_FUTURE);
    }

    @Test
    void verify_whenClocksAtExtremes_neverThrows() {
        String fromMax = at(Long.MAX_VALUE).issue(42);
        String fromMin = at(Long.MIN_VALUE).issue(42);

        assertThat(at(Long.MIN_VALUE).verify(fromMax, 42, MAX_AGE)).isEqualTo(Verification.FROM_FUTURE);
        assertThat(at(Long.MAX_VALUE).verify(fromMin, 42, MAX_AGE)).isEqualTo(Verification.EXPIRED);
        assertThat(at(Long.MAX_VALUE).verify(fromMin, 42, Duration.ofSeconds(Long.MAX_VALUE)))
                .isEqualTo(Verification.EXPIRED);
        assertThat(at(T0).verify(at(T0).issue(42), 42, Duration.ofSeconds(Long.MAX_VALUE)))
                .isEqualTo(Verification.VALID);
    }

    @Test
    void verify_whenSignedWithOtherSecret_isTampered() {
        byte[] other = SECRET.clone();
        other[31] ^= 1;
        String token = new FollowTokens(other, Clock.fixed(Instant.ofEpochMilli(T0), ZoneOffset.UTC)).issue(42);

        assertThat(at(T0).verify(token, 42, MAX_AGE)).isEqualTo(Verification.TAMPERED);
    }

    @Test
    void verify_whenAnySingleBitFlipped_isTamperedOrMalformed() {
        String token = at(T0).issue(42);
        byte[] bytes = Base64.getUrlDecoder().decode(token);

        for (int bit = 0; bit < bytes.length * 8; bit++) {
            byte[] flipped = bytes.clone();
            flipped[bit / 8] ^= (byte) (1 << (bit % 8));
            String tampered = Base64.getUrlEncoder().withoutPadding().encodeToString(flipped);
            assertThat(at(T0).verify(tampered, 42, MAX_AGE)).as("bit %d", bit).isEqualTo(Verification.TAMPERED);
        }
    }

    @Test
    void verify_whenAnyCharacterReplaced_isNotValid() {
        String token = at(T0).issue(42);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

        for (int i = 0; i < token.length(); i++) {
            for (char c : alphabet.toCharArray()) {
                if (c != token.charAt(i)) {
                    String changed = token.substring(0, i) + c + token.substring(i + 1);
                    assertThat(at(T0).verify(changed, 42, MAX_AGE)).isEqualTo(Verification.TAMPERED);
                }
            }
        }
    }

    @Test
    void verify_whenGarbage_isMalformed() {
        FollowTokens tokens = at(T0);
        String token = tokens.issue(42);

        assertThat(tokens.verify(null, 42, MAX_AGE)).isEqualTo(Verification.MALFORMED);
        assertThat(tokens.verify("", 42, MAX_AGE)).isEqualTo(Verification.MALFORMED);
        assertThat(tokens.verify("not a token", 42, MAX_AGE)).isEqualTo(Verification.MALFORMED);
        assertThat(tokens.verify(token.substring(1), 42, MAX_AGE)).isEqualTo(Verification.MALFORMED);
        assertThat(tokens.verify(token + "A", 42, MAX_AGE)).isEqualTo(Verification.MALFORMED);
        assertThat(tokens.verify(token.substring(0, 63) + "=", 42, MAX_AGE)).isEqualTo(Verification.MALFORMED);
        assertThat(tokens.verify("+" + token.substring(1), 42, MAX_AGE)).isEqualTo(Verification.MALFORMED);
        assertThat(tokens.verify("\u00e9".repeat(64), 42, MAX_AGE)).isEqualTo(Verification.MALFORMED);
        assertThat(tokens.verify("A".repeat(10_240), 42, MAX_AGE)).isEqualTo(Verification.MALFORMED);
        assertThat(tokens.verify("A".repeat(64), 42, MAX_AGE)).isEqualTo(Verification.TAMPERED);
    }

    /** The one verification of a request's token: the actor it proves, compared afterwards with any user. */
    @Test
    void actorOf_whenValid_isTheActor_andOtherwiseNoActor() {
        String token = at(T0).issue(42);

        assertThat(at(T0).actorOf(token, MAX_AGE)).isEqualTo(42);
        assertThat(at(T0 + 4_999).actorOf(token, MAX_AGE)).isEqualTo(42);
        assertThat(at(T0 + 5_000).actorOf(token, MAX_AGE)).as("expired").isEqualTo(FollowTokens.NO_ACTOR);
        assertThat(at(T0 - 1_001).actorOf(token, MAX_AGE)).as("from the future").isEqualTo(FollowTokens.NO_ACTOR);
        assertThat(new FollowTokens("another-secret-of-at-least-32-bytes".getBytes(StandardCharsets.US_ASCII),
                Clock.fixed(Instant.ofEpochMilli(T0), ZoneOffset.UTC)).actorOf(token, MAX_AGE))
                .as("tampered").isEqualTo(FollowTokens.NO_ACTOR);
        assertThat(at(T0).actorOf(null, MAX_AGE)).isEqualTo(FollowTokens.NO_ACTOR);
        assertThat(at(T0).actorOf("not-a-token", MAX_AGE)).isEqualTo(FollowTokens.NO_ACTOR);
        assertThat(at(T0).actorOf(token + "A", MAX_AGE)).isEqualTo(FollowTokens.NO_ACTOR);
        assertThatThrownBy(() -> at(T0).actorOf(token, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void constructor_whenSecretTooShort_throws() {
        assertThatThrownBy(() -> new FollowTokens(new byte[31], Clock.systemUTC()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("follow token secret must be at least 32 bytes, was 31 bytes");
        assertThatThrownBy(() -> new FollowTokens(null, Clock.systemUTC()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void constructor_copiesSecret() {
        byte[] secret = SECRET.clone();
        FollowTokens tokens = new FollowTokens(secret, Clock.fixed(Instant.ofEpochMilli(T0), ZoneOffset.UTC));
        String token = tokens.issue(42);
        secret[0] ^= 1;

        assertThat(tokens.verify(token, 42, MAX_AGE)).isEqualTo(Verification.VALID);
    }

    @Test
    void issue_whenActorNotPositive_throws() {
        assertThatThrownBy(() -> at(T0).issue(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("actorId must be a positive user id, was 0");
    }

    @Test
    void verify_whenMaxAgeNegative_throws() {
        assertThatThrownBy(() -> at(T0).verify("x", 42, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Provide
    Arbitrary<String> garbage() {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        return Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(200),
                Arbitraries.strings().all().ofMaxLength(100),
                Arbitraries.strings().withChars(alphabet.toCharArray()).ofLength(FollowTokens.ENCODED_LENGTH),
                Arbitraries.strings().withChars(alphabet + "=+/ ").ofMinLength(60).ofMaxLength(68));
    }

    @Property(tries = 500)
    void verify_whenRandomString_neverThrowsAndIsNeverValid(@ForAll("garbage") String token,
            @ForAll @LongRange(min = 1) long actorId) {
        assertThat(at(T0).verify(token, actorId, MAX_AGE)).isIn(Verification.MALFORMED, Verification.TAMPERED);
    }

    @Property(tries = 300)
    void actorOf_agreesWithVerify(@ForAll @LongRange(min = 1) long actorId,
            @ForAll @LongRange(min = -3_000, max = 10_000) long elapsedMillis) {
        String token = at(T0).issue(actorId);
        FollowTokens later = at(T0 + elapsedMillis);

        assertThat(later.actorOf(token, MAX_AGE))
                .isEqualTo(later.verify(token, actorId, MAX_AGE).isValid() ? actorId : FollowTokens.NO_ACTOR);
    }

    @Property(tries = 300)
    void verify_classifiesByActorAndAge(@ForAll @LongRange(min = 1) long actorId, @ForAll boolean sameActor,
            @ForAll @LongRange(min = -3_000, max = 10_000) long elapsedMillis) {
        long checkedActorId = sameActor ? actorId : (actorId == Long.MAX_VALUE ? 1 : actorId + 1);
        String token = at(T0).issue(actorId);

        Verification result = at(T0 + elapsedMillis).verify(token, checkedActorId, MAX_AGE);

        Verification expected = actorId != checkedActorId ? Verification.OTHER_ACTOR
                : elapsedMillis < -1_000 ? Verification.FROM_FUTURE
                : elapsedMillis >= 5_000 ? Verification.EXPIRED
                : Verification.VALID;
        assertThat(result).isEqualTo(expected);
    }

    @Property(tries = 300)
    void verify_whenBitFlippedAnywhere_isTampered(@ForAll @LongRange(min = 1) long actorId,
            @ForAll @IntRange(min = 0, max = 48 * 8 - 1) int bit) {
        byte[] bytes = Base64.getUrlDecoder().decode(at(T0).issue(actorId));
        bytes[bit / 8] ^= (byte) (1 << (bit % 8));
        String tampered = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);

        assertThat(at(T0).verify(tampered, actorId, MAX_AGE)).isEqualTo(Verification.TAMPERED);
    }
}
