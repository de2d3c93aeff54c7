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
        String secret = Files.readString(fleet.dataDir().resolve("jwt-secret")).strip();
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), new JWTClaimsSet.Builder()
                    .subject(Long.toString(userId)).issueTime(new Date()).build());
            jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
            return "Bearer " + jwt.serialize();
        } catch (JOSEException e) {
            throw new IOException("cannot sign with the fleet's secret", e);
        }
    }
}
