package dev.socialgraph.faults;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Date;

/** Tokens the launcher's {@code DevTokens} will not mint, for the malformed corpus. */
final class Tokens {

    private Tokens() {
    }

    /**
     * A token signed with the fleet's secret that has no {@code exp}: the gateway must refuse it.
     *
     * @param fleet  the fleet whose secret signs it
     * @param userId its subject
     * @return {@code Bearer <jwt>}
     * @throws IOException when the secret cannot be read
     */
    static String withoutExpiry(Fleet fleet, long userId) throws IOException {
        return sign(fleet, new JWTClaimsSet.Builder().subject(Long.toString(userId)).issueTime(new Date()).build());
    }

    /**
     * A token signed with the fleet's secret whose {@code sub} is a JSON number, not a string (RFC 7519 4.1.2:
     * a StringOrURI): the gateway must refuse it.
     *
     * @param fleet  the fleet whose secret signs it
     * @param userId its subject, written as a number
     * @return {@code Bearer <jwt>}, valid for an hour
     * @throws IOException when the secret cannot be read
     */
    static String numericSubject(Fleet fleet, long userId) throws IOException {
        Date now = new Date();
        return sign(fleet, new JWTClaimsSet.Builder().claim("sub", userId).issueTime(now)
                .expirationTime(new Date(now.getTime() + 3_600_000L)).build());
    }

    private static String sign(Fleet fleet, JWTClaimsSet claims) throws IOException {
        String secret = Files.readString(fleet.dataDir().resolve("jwt-secret")).strip();
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
            jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
            return "Bearer " + jwt.serialize();
        } catch (JOSEException e) {
            throw new IOException("cannot sign with the fleet's secret", e);
        }
    }
}
