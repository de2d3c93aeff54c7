package dev.socialgraph.common.sign;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 (RFC 2104, FIPS 180-4) with domain separation: the MAC covers a fixed domain string before the
 * payload, so a value signed for one purpose (a follow token) never verifies as another (a list cursor) even
 * under the same key. Shared by the signed formats of graph-common; thread-safe (a {@link Mac} per call).
 */
public final class DomainMac {

    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;
    private final byte[] domain;

    /**
     * @param key    secret key bytes (copied); callers enforce their own minimum length
     * @param domain the purpose, e.g. {@code "socialgraph/cursor/v1"}
     */
    public DomainMac(byte[] key, String domain) {
        this.key = new SecretKeySpec(key.clone(), ALGORITHM);
        this.domain = domain.getBytes(StandardCharsets.US_ASCII);
        mac(new byte[0], 0); // fail at start-up, not on the first request, if HmacSHA256 were missing
    }

    /**
     * The 32-byte MAC of {@code domain || bytes[0, length)}.
     *
     * @throws IndexOutOfBoundsException when {@code length} exceeds {@code bytes.length}
     */
    public byte[] mac(byte[] bytes, int length) {
        Mac mac;
        try {
            mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
        } catch (GeneralSecurityException e) {
            // Every Java SE implementation must provide HmacSHA256 (javax.crypto.Mac documentation).
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
        mac.update(domain);
        mac.update(bytes, 0, length);
        return mac.doFinal();
    }

    /** Whether every character of {@code s} is in the base64url alphabet (RFC 4648 section 5), no padding. */
    public static boolean isBase64Url(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'
                    || c == '_';
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
