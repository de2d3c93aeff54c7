package dev.socialgraph.launcher;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.common.id.UserIds;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

/**
 * Development bearer tokens for the gateway: compact HS256 JWTs (RFC 7519) signed with the gateway's shared
 * secret, {@code sub} = the user id, {@code iat} now and {@code exp} after the given lifetime, and optionally an OAuth
 * 2.0 {@code scope} claim (space-separated; {@code graph:admin} opens the operator API). Made with
 * Nimbus JOSE+JWT, the library Spring Security validates them with.
 */
public final class DevTokens {

    private DevTokens() {
    }

    /**
     * Mints a token.
     *
     * @param secret   the gateway's HS256 secret, its UTF-8 bytes are the key (at least 32 bytes)
     * @param userId   the subject, a positive 64-bit user id
     * @param lifetime time until {@code exp}, positive
     * @param now      the issue time
     * @return the compact serialization {@code header.claims.signature}
     * @throws IllegalArgumentException for a non-positive user id or lifetime, or a key shorter than 32 bytes
     */
    public static String mint(String secret, long userId, Duration lifetime, Instant now) {
        return mint(secret, userId, lifetime, now, null);
    }

    /**
     * Mints a token with a {@code scope} claim.
     *
     * @param scope space-separated scopes, e.g. {@code graph:admin}; {@code null} or blank for none
     * @return the compact serialization
     * @throws IllegalArgumentException as {@link #mint(String, long, Duration, Instant)}
     */
    public static String mint(String secret, long userId, Duration lifetime, Instant now, String scope) {
        UserIds.requirePositive(userId, "userId");
        if (lifetime.isZero() || lifetime.isNegative()) {
            throw new IllegalArgumentException("token lifetime must be positive, was " + lifetime);
        }
        try {
            JWTClaimsSet claims = new JWTClaimsSet.Builder()
                    .subject(Long.toString(userId))
                    .issueTime(Date.from(now))
                    .expirationTime(Date.from(now.plus(lifetime)))
                    .claim("scope", scope == null || scope.isBlank() ? null : scope.strip())
                    .build();
            SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
            jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalArgumentException("cannot sign with this secret: " + e.getMessage(), e);
        }
    }
}
