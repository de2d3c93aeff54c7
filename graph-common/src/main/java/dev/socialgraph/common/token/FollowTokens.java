package dev.socialgraph.common.token;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.sign.DomainMac;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

/**
 * Issues and verifies follow tokens, the read-your-writes mechanism of DESIGN.md 3 step 4 and 5 step 2:
 * a write replies with a token, and a check that presents a valid, young token of the same actor skips
 * the bloom filter and the local cache, which may not have seen the write yet.
 *
 * <p><b>Format.</b> base64url without padding (RFC 4648 section 5) of 48 bytes, so always 64
 * characters: {@code actorId} (8 bytes, big-endian), {@code issuedAtMillis} (8 bytes, big-endian, epoch
 * ms), and HMAC-SHA256 (32 bytes, RFC 2104) over the domain string {@code "socialgraph/follow-token/v1"}
 * and those 16 bytes. 48 is a multiple of 3, so each token has exactly one encoding and changing any
 * character changes the signed bytes. The domain string keeps a token from verifying as any other value
 * signed with the same secret.
 *
 * <p>The token only lets a check skip caches; it grants nothing, so a short lifetime (5 s) and no
 * revocation are enough. Signatures are compared in constant time ({@link MessageDigest#isEqual}).
 * Immutable and thread-safe.
 */
public final class FollowTokens {

    /** Minimum secret length in bytes: the output size of SHA-256 (RFC 2104 section 3). */
    public static final int MIN_SECRET_BYTES = 32;

    private static final int PAYLOAD_BYTES = 16;
    private static final int MAC_BYTES = 32;
    private static final int TOTAL_BYTES = PAYLOAD_BYTES + MAC_BYTES;

    /**
     * Length of every token string: base64 writes each 3 bytes as 4 characters (RFC 4648 section 4), and 48 bytes
     * are 16 such groups, so {@code 48 / 3 * 4 = 64} characters and no padding.
     */
    public static final int ENCODED_LENGTH = TOTAL_BYTES / 3 * 4;

    /**
     * The longest {@code X-Follow-Token} that can verify, 64 characters: every token is {@link #ENCODED_LENGTH} long,
     * and {@link #verify} answers {@link Verification#MALFORMED} for any other length. Where a token is only carried
     * (the gateway's coalesced checks put it into a batch call beside other callers' checks), a longer value is
     * refused (400 naming it) rather than carried: it can never do anything but take room. A token of this length is
     * at most 6 bytes a character in a JSON string (a control character such as U+001F is escaped as six), so at
     * most 384 bytes in any body.
     */
    public static final int MAX_LENGTH = ENCODED_LENGTH;

    /**
     * How far a token's issue time may lie ahead of this clock before it is rejected as
     * {@link Verification#FROM_FUTURE}: the write and check instances run on different hosts whose
     * NTP-disciplined clocks differ by milliseconds, rarely more.
     */
    public static final Duration MAX_CLOCK_SKEW = Duration.ofSeconds(1);

    /** {@link #actorOf} of anything but a valid token: no user, as user ids are positive. */
    public static final long NO_ACTOR = 0;

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    /** The outcome of {@link #verify}; only {@link #VALID} lets a check skip its caches. */
    public enum Verification {
        /** Genuine, of this actor, and younger than the maximum age. */
        VALID,
        /** Not a token at all: {@code null}, wrong length or not base64url. */
        MALFORMED,
        /** Well formed but the signature does not match: changed, forged or signed with another secret. */
        TAMPERED,
        /** Genuine but at least the maximum age old. */
        EXPIRED,
        /** Genuine but issued to another actor. */
        OTHER_ACTOR,
        /** Genuine but issued more than {@link #MAX_CLOCK_SKEW} ahead of this clock. */
        FROM_FUTURE;

        /**
         * Whether the check may skip its caches.
         *
         * @return whether this is {@link #VALID}
         */
        public boolean isValid() {
            return this == VALID;
        }
    }

    private final DomainMac secret;
    private final Clock clock;

    /**
     * Creates an issuer and verifier.
     *
     * @param secret the HMAC secret, at least {@value #MIN_SECRET_BYTES} bytes, shared by the write
     *               service (issuer) and the check service (verifier); copied
     * @param clock  the time source for issue and verification, e.g. {@link Clock#systemUTC()}
     * @throws IllegalArgumentException if {@code secret} is {@code null} or shorter than 32 bytes
     * @throws NullPointerException     if {@code clock} is {@code null}
     */
    public FollowTokens(byte[] secret, Clock clock) {
        if (secret == null || secret.length < MIN_SECRET_BYTES) {
            throw new IllegalArgumentException("follow token secret must be at least " + MIN_SECRET_BYTES
                    + " bytes, was " + (secret == null ? "null" : secret.length + " bytes"));
        }
        this.secret = new DomainMac(secret, "socialgraph/follow-token/v1");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Issues a token for {@code actorId} at the clock's current time.
     *
     * @param actorId the user who just wrote, positive
     * @return a 64-character base64url string
     * @throws IllegalArgumentException if {@code actorId <= 0}
     */
    public String issue(long actorId) {
        UserIds.requirePositive(actorId, "actorId");
        byte[] bytes = ByteBuffer.allocate(TOTAL_BYTES).putLong(actorId).putLong(clock.millis()).array();
        System.arraycopy(secret.mac(bytes, PAYLOAD_BYTES), 0, bytes, PAYLOAD_BYTES, MAC_BYTES);
        return ENCODER.encodeToString(bytes);
    }

    /**
     * Verifies a token presented with a check by {@code actorId}.
     *
     * <p>Checks, in this order: well formed ({@link Verification#MALFORMED}), signature
     * ({@link Verification#TAMPERED}), actor ({@link Verification#OTHER_ACTOR}), issued no more than
     * {@link #MAX_CLOCK_SKEW} in the future ({@link Verification#FROM_FUTURE}), and
     * {@code now - issuedAt < maxAge} ({@link Verification#EXPIRED} otherwise). O(1); a long string is
     * rejected by its length before it is read.
     *
     * @param token   the {@code X-Follow-Token} header value; any string, including {@code null}
     * @param actorId the user making the check request (from the JWT)
     * @param maxAge  how long a token is accepted, e.g. 5 s; not negative
     * @return the outcome; never throws for any {@code token}
     * @throws NullPointerException     if {@code maxAge} is {@code null}
     * @throws IllegalArgumentException if {@code maxAge} is negative
     */
    public Verification verify(String token, long actorId, Duration maxAge) {
        requireValid(maxAge);
        byte[] bytes = decode(token);
        if (bytes == null) {
            return Verification.MALFORMED;
        }
        if (!isSigned(bytes)) {
            return Verification.TAMPERED;
        }
        if (ByteBuffer.wrap(bytes).getLong(0) != actorId) {
            return Verification.OTHER_ACTOR;
        }
        return age(bytes, maxAge);
    }

    /**
     * The actor whose write {@code token} proves, for a reader that verifies a request's token once and then compares
     * the result with each user the request names, rather than calling {@link #verify} once per user. The same checks
     * as {@link #verify}, the actor taken from the token instead of compared with one.
     *
     * @param token  the {@code X-Follow-Token} header value; any string, including {@code null}
     * @param maxAge how long a token is accepted, e.g. 5 s; not negative
     * @return the token's actor id (positive) when {@link #verify} with it would answer {@link Verification#VALID};
     *         {@link #NO_ACTOR} for anything else; never throws for any {@code token}
     * @throws NullPointerException     if {@code maxAge} is {@code null}
     * @throws IllegalArgumentException if {@code maxAge} is negative
     */
    public long actorOf(String token, Duration maxAge) {
        requireValid(maxAge);
        byte[] bytes = decode(token);
        if (bytes == null || !isSigned(bytes) || !age(bytes, maxAge).isValid()) {
            return NO_ACTOR;
        }
        long actor = ByteBuffer.wrap(bytes).getLong(0);
        return actor > 0 ? actor : NO_ACTOR; // issue() signs positive ids only

    }

    private static void requireValid(Duration maxAge) {
        Objects.requireNonNull(maxAge, "maxAge");
        if (maxAge.isNegative()) {
            throw new IllegalArgumentException("maxAge must not be negative, was " + maxAge);
        }
    }

    /** The token's 48 bytes, or {@code null} when it is not a token at all ({@link Verification#MALFORMED}). */
    private static byte[] decode(String token) {
        if (token == null || token.length() != ENCODED_LENGTH || !DomainMac.isBase64Url(token)) {
            return null;
        }
        byte[] bytes;
        try {
            bytes = DECODER.decode(token);
        } catch (IllegalArgumentException e) {
            return null; // unreachable after the checks above
        }
        return bytes.length == TOTAL_BYTES ? bytes : null;
    }

    /** Whether the signature of a decoded token matches its payload (constant time). */
    private boolean isSigned(byte[] bytes) {
        byte[] actual = Arrays.copyOfRange(bytes, PAYLOAD_BYTES, TOTAL_BYTES);
        return MessageDigest.isEqual(secret.mac(bytes, PAYLOAD_BYTES), actual);
    }

    /** {@link Verification#VALID}, {@link Verification#EXPIRED} or {@link Verification#FROM_FUTURE} by the issue time. */
    private Verification age(byte[] bytes, Duration maxAge) {
        long issuedAt = ByteBuffer.wrap(bytes).getLong(8);
        long now = clock.millis();
        long maxAgeMillis = maxAge.compareTo(Duration.ofMillis(Long.MAX_VALUE)) >= 0
                ? Long.MAX_VALUE : maxAge.toMillis(); // a Duration can exceed a long of milliseconds
        // The true difference of two longs lies in (-2^64, 2^64); on the side where it is positive it is
        // exact as an unsigned long, so compare unsigned and no clock value can overflow or throw.
        long age;
        if (issuedAt > now) {
            if (Long.compareUnsigned(issuedAt - now, MAX_CLOCK_SKEW.toMillis()) > 0) {
                return Verification.FROM_FUTURE;
            }
            age = 0; // within the skew: as if issued now
        } else {
            age = now - issuedAt;
        }
        return Long.compareUnsigned(age, maxAgeMillis) >= 0 ? Verification.EXPIRED : Verification.VALID;
    }
}
