package dev.socialgraph.common.api;

/**
 * The paths of the services' internal API (served on each service's API port behind the service credential), one
 * home for their prefixes: the services map them, the gateway rewrites public paths onto them, {@code graph-client},
 * the launcher and the benchmark call them. Compile-time constants, so that {@code @RequestMapping} can name them.
 * None ends in {@code /}: a caller appends {@code "/" + id} or a template such as {@code "/{id}"}.
 */
public final class ApiPaths {

    /** The internal API's version prefix: {@code /internal/v1}. */
    public static final String INTERNAL = "/internal/v1";

    /**
     * The per-user resources, {@code /internal/v1/users}: {@code /{id}/following/{targetId}}, lists, counts,
     * relationship, hidden authors and suggestions on the check service; follows, blocks and mutes on the write
     * service.
     */
    public static final String USERS = INTERNAL + "/users";

    /** The operator API of the account lifecycle on the write service, {@code /internal/v1/admin}: users and jobs. */
    public static final String ADMIN = INTERNAL + "/admin";

    /**
     * The check service's many single checks in one request, {@code /internal/v1/following/pairs} (POST): what a
     * gateway that coalesces concurrent single checks sends.
     */
    public static final String FOLLOWING_PAIRS = INTERNAL + "/following/pairs";

    /** The check service's bloom filter state, {@code /internal/v1/bloom}. */
    public static final String BLOOM = INTERNAL + "/bloom";

    /** The check service's load of the newest bloom snapshot, {@code /internal/v1/bloom/swap} (POST). */
    public static final String BLOOM_SWAP = BLOOM + "/swap";

    private ApiPaths() {
    }
}
