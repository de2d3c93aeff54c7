package dev.socialgraph.common.token;

/**
 * The service credential: one shared secret per deployment that callers of the services' internal endpoints (the
 * gateway, backends through graph-client, the launcher, tools) send and every service checks (graph-web's guard), in
 * the header graph-wire's {@code Headers.SERVICE_TOKEN} names.
 */
public final class ServiceCredential {

    /**
     * Its shortest accepted length in characters: 32 random characters of a URL-safe alphabet carry about 190 bits,
     * beyond guessing; the launcher generates 64 (48 random bytes, base64url).
     */
    public static final int MIN_LENGTH = 32;

    /** The validation message for a shorter one. */
    public static final String TOO_SHORT = "must be at least 32 characters";

    private ServiceCredential() {
    }
}
