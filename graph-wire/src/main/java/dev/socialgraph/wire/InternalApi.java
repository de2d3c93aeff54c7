package dev.socialgraph.wire;

import java.util.List;

/**
 * Every endpoint of the services' internal API (served on each service's API port behind the service credential),
 * described once. The path templates are also compile-time constants, so that Spring MVC's {@code @RequestMapping}
 * can name them; everything else uses the {@link Endpoint}s: the check service registers its routes from them, the
 * gateway rewrites public paths onto them, {@code graph-client} builds its requests with {@link Endpoint#path}.
 * {@link #CHECK_SERVICE}, {@link #WRITE_SERVICE} and {@link #RECONCILER} list what each service serves; a test of each
 * service holds its routes against its list, both ways.
 */
public final class InternalApi {

    /** The internal API's version prefix. */
    public static final String PREFIX = "/internal/v1";

    /**
     * What turns a public read's path into its internal one: the reads of {@code /v1/users/**} mirror
     * {@code /internal/v1/users/**} segment for segment ({@code /v1/users/5/counts} is
     * {@code /internal/v1/users/5/counts}), so the gateway prepends this ({@code /internal}) after choosing the instance.
     */
    public static final String MIRROR_PREFIX = "/internal";

    /** The per-user resources. */
    public static final String USERS = PREFIX + "/users";

    /** The operator API of the account lifecycle on the write service. */
    public static final String ADMIN = PREFIX + "/admin";

    /** The query parameter that asks for ids as JSON strings (accepted by every endpoint that answers ids). */
    public static final String STRINGIFY_IDS = "stringify_ids";

    /** The page size of a list. */
    public static final String LIMIT = "limit";

    /** The opaque position of a list's next page. */
    public static final String CURSOR = "cursor";

    /** Which pending follow requests a list holds: {@code incoming} (to the user, the default) or {@code outgoing}. */
    public static final String DIRECTION = "direction";

    // --- path templates, as constants for annotations -------------------------------------------------------------

    public static final String FOLLOW_PATH = USERS + "/{followerId}/following/{followeeId}";
    public static final String BLOCK_PATH = USERS + "/{userId}/blocking/{targetId}";
    public static final String MUTE_PATH = USERS + "/{userId}/muting/{targetId}";
    public static final String PROTECTION_PATH = USERS + "/{userId}/protection";
    public static final String FOLLOW_REQUEST_PATH = USERS + "/{userId}/follow-requests/{requesterId}";
    public static final String ACCOUNT_PATH = ADMIN + "/users/{id}";
    public static final String DEACTIVATION_PATH = ACCOUNT_PATH + "/deactivation";
    public static final String JOB_PATH = ADMIN + "/jobs/{jobId}";
    public static final String SCANS_PATH = "/admin/scans";
    public static final String SCAN_PATH = SCANS_PATH + "/{id}";
    public static final String SNAPSHOTS_PATH = "/admin/snapshots";

    // --- the check service -----------------------------------------------------------------------------------------

    /**
     * Does {@code id} follow {@code targetId}: {@code {"following":bool}} ({@link FollowingAnswer}). With
     * {@code X-Viewer-Id}, a protected {@code id}'s follows only to {@code id} and its followers (else 403
     * {@code protected-account}), as every read of a user's follows below.
     */
    public static final Endpoint CHECK = Endpoint.of("check", Method.GET, USERS + "/{id}/following/{targetId}")
            .withHeaders(Headers.FOLLOW_TOKEN, Headers.VIEWER_ID).withQuery(STRINGIFY_IDS);

    /** Which of up to 1,000 ids {@code id} follows. */
    public static final Endpoint CONTAINS = Endpoint.of("contains", Method.POST, USERS + "/{id}/following/contains")
            .withHeaders(Headers.FOLLOW_TOKEN, Headers.VIEWER_ID).withQuery(STRINGIFY_IDS);

    /** Many single checks in one call, for a caller that coalesces them ({@link FollowingPairs}). */
    public static final Endpoint PAIRS = Endpoint.of("pairs", Method.POST, PREFIX + "/following/pairs")
            .withQuery(STRINGIFY_IDS);

    /** Many GET reads in one call, for a caller that coalesces them ({@link ReadBatch}). */
    public static final Endpoint READS = Endpoint.of("reads", Method.POST, PREFIX + "/reads");

    /** {@code id}'s followees, newest first. */
    public static final Endpoint FOLLOWING = Endpoint.of("following", Method.GET, USERS + "/{id}/following")
            .withHeaders(Headers.FOLLOW_TOKEN, Headers.VIEWER_ID).withQuery(LIMIT, CURSOR, STRINGIFY_IDS);

    /** {@code id}'s followers, newest first. */
    public static final Endpoint FOLLOWERS = Endpoint.of("followers", Method.GET, USERS + "/{id}/followers")
            .withHeaders(Headers.FOLLOW_TOKEN, Headers.VIEWER_ID).withQuery(LIMIT, CURSOR, STRINGIFY_IDS);

    /** {@code id}'s follower and following counts. */
    public static final Endpoint COUNTS = Endpoint.of("counts", Method.GET, USERS + "/{id}/counts")
            .withHeaders(Headers.FOLLOW_TOKEN).withQuery(STRINGIFY_IDS);

    /** The users both {@code id} and {@code otherId} follow. */
    public static final Endpoint COMMON_FOLLOWING = Endpoint.of("common-following", Method.GET,
            USERS + "/{id}/common-following/{otherId}").withHeaders(Headers.FOLLOW_TOKEN, Headers.VIEWER_ID)
            .withQuery(LIMIT, CURSOR, STRINGIFY_IDS);

    /**
     * The followers of {@code id} whom the viewer ({@code X-Viewer-Id}, required) follows ("followers you know"), newest
     * first by the viewer's follow.
     */
    public static final Endpoint KNOWN_FOLLOWERS = Endpoint.of("known-followers", Method.GET,
            USERS + "/{id}/followers/known").withHeaders(Headers.FOLLOW_TOKEN, Headers.VIEWER_ID)
            .withQuery(LIMIT, CURSOR, STRINGIFY_IDS);

    /** The relationship of two users, what the viewer may see of it. */
    public static final Endpoint RELATIONSHIP = Endpoint.of("relationship", Method.GET,
            USERS + "/{id}/relationship/{otherId}").withHeaders(Headers.FOLLOW_TOKEN, Headers.VIEWER_ID)
            .withQuery(STRINGIFY_IDS);

    /**
     * {@code id}'s pending follow requests, newest first: {@code direction=incoming} (the default), who asked to follow
     * {@code id}; {@code outgoing}, whom {@code id} asked. A user's own, as its blocks and mutes.
     */
    public static final Endpoint FOLLOW_REQUESTS = Endpoint.of("follow-requests", Method.GET,
            USERS + "/{id}/follow-requests").withQuery(DIRECTION, LIMIT, CURSOR, STRINGIFY_IDS);

    /** People {@code id} may know. */
    public static final Endpoint SUGGESTIONS = Endpoint.of("suggestions", Method.GET, USERS + "/{id}/suggestions")
            .withQuery(LIMIT, STRINGIFY_IDS);

    /** Whom {@code id} blocks, newest first. */
    public static final Endpoint BLOCKING = Endpoint.of("blocking", Method.GET, USERS + "/{id}/blocking")
            .withQuery(LIMIT, CURSOR, STRINGIFY_IDS);

    /** Whom {@code id} mutes, newest first. */
    public static final Endpoint MUTING = Endpoint.of("muting", Method.GET, USERS + "/{id}/muting")
            .withQuery(LIMIT, CURSOR, STRINGIFY_IDS);

    /** Which of up to 1,000 authors are hidden from {@code id}. */
    public static final Endpoint HIDDEN = Endpoint.of("hidden", Method.POST, USERS + "/{id}/hidden")
            .withHeaders(Headers.FOLLOW_TOKEN).withQuery(STRINGIFY_IDS);

    /** The live bloom filter's state. */
    public static final Endpoint BLOOM = Endpoint.of("bloom", Method.GET, PREFIX + "/bloom");

    /** Load the newest bloom snapshot, replay, swap. */
    public static final Endpoint BLOOM_SWAP = Endpoint.of("bloom-swap", Method.POST, PREFIX + "/bloom/swap");

    // --- the write service -----------------------------------------------------------------------------------------

    public static final Endpoint FOLLOW = Endpoint.of("follow", Method.PUT, FOLLOW_PATH).withQuery(STRINGIFY_IDS);
    public static final Endpoint UNFOLLOW = Endpoint.of("unfollow", Method.DELETE, FOLLOW_PATH).withQuery(STRINGIFY_IDS);
    public static final Endpoint BLOCK = Endpoint.of("block", Method.PUT, BLOCK_PATH).withQuery(STRINGIFY_IDS);
    public static final Endpoint UNBLOCK = Endpoint.of("unblock", Method.DELETE, BLOCK_PATH).withQuery(STRINGIFY_IDS);
    public static final Endpoint MUTE = Endpoint.of("mute", Method.PUT, MUTE_PATH).withQuery(STRINGIFY_IDS);
    public static final Endpoint UNMUTE = Endpoint.of("unmute", Method.DELETE, MUTE_PATH).withQuery(STRINGIFY_IDS);
    /** {@code userId} becomes a protected account: new follows of it are follow requests. */
    public static final Endpoint PROTECT = Endpoint.of("protect", Method.PUT, PROTECTION_PATH)
            .withQuery(STRINGIFY_IDS);
    /** {@code userId} is a public account again. */
    public static final Endpoint UNPROTECT = Endpoint.of("unprotect", Method.DELETE, PROTECTION_PATH)
            .withQuery(STRINGIFY_IDS);
    /** {@code userId} accepts {@code requesterId}'s pending follow request: the follow begins. */
    public static final Endpoint ACCEPT_REQUEST = Endpoint.of("accept-request", Method.PUT, FOLLOW_REQUEST_PATH)
            .withQuery(STRINGIFY_IDS);
    /** {@code userId} declines {@code requesterId}'s pending follow request. */
    public static final Endpoint DECLINE_REQUEST = Endpoint.of("decline-request", Method.DELETE, FOLLOW_REQUEST_PATH)
            .withQuery(STRINGIFY_IDS);
    public static final Endpoint DEACTIVATE = Endpoint.of("deactivate", Method.PUT, DEACTIVATION_PATH)
            .withQuery(STRINGIFY_IDS);
    public static final Endpoint REACTIVATE = Endpoint.of("reactivate", Method.DELETE, DEACTIVATION_PATH)
            .withQuery(STRINGIFY_IDS);
    public static final Endpoint ACCOUNT = Endpoint.of("account", Method.GET, ACCOUNT_PATH).withQuery(STRINGIFY_IDS);
    public static final Endpoint ERASE = Endpoint.of("erase", Method.DELETE, ACCOUNT_PATH).withQuery(STRINGIFY_IDS);
    public static final Endpoint JOB = Endpoint.of("job", Method.GET, JOB_PATH).withQuery(STRINGIFY_IDS);

    // --- the reconciler ---------------------------------------------------------------------------------------------

    public static final Endpoint START_SCAN = Endpoint.of("start-scan", Method.POST, SCANS_PATH);
    public static final Endpoint SCAN = Endpoint.of("scan", Method.GET, SCAN_PATH);
    public static final Endpoint CANCEL_SCAN = Endpoint.of("cancel-scan", Method.DELETE, SCAN_PATH);
    public static final Endpoint BUILD_SNAPSHOTS = Endpoint.of("build-snapshots", Method.POST, SNAPSHOTS_PATH);

    /**
     * The change stream ({@link Changes}): events after {@code cursor}, as a page (long-polled up to {@code wait}
     * seconds) or, with {@code Accept: text/event-stream}, as server-sent events, resumed from {@code Last-Event-ID}.
     */
    public static final Endpoint CHANGES = Endpoint.of("changes", Method.GET, PREFIX + "/changes")
            .withHeaders(Headers.LAST_EVENT_ID)
            .withQuery(Changes.CURSOR, Changes.KINDS, Changes.USERS, Changes.LIMIT, Changes.WAIT);

    /** The change stream's position now: {@code {"cursor":"…"}}. */
    public static final Endpoint CHANGES_HEAD = Endpoint.of("changes-head", Method.GET, PREFIX + "/changes/head");

    /**
     * {@code id}'s own change stream, with the same parameters and cursors as {@link #CHANGES}: the follows, unfollows
     * and follow requests where {@code id} is the actor or the target, and {@code id}'s own blocks and mutes, with the privacy
     * rules of {@link Changes}.
     */
    public static final Endpoint USER_CHANGES = Endpoint.of("user-changes", Method.GET, USERS + "/{id}/changes")
            .withHeaders(Headers.LAST_EVENT_ID)
            .withQuery(Changes.CURSOR, Changes.KINDS, Changes.USERS, Changes.LIMIT, Changes.WAIT);

    /** What the check service serves. */
    public static final List<Endpoint> CHECK_SERVICE = List.of(CHECK, CONTAINS, PAIRS, READS, FOLLOWING, FOLLOWERS,
            COUNTS, COMMON_FOLLOWING, KNOWN_FOLLOWERS, RELATIONSHIP, FOLLOW_REQUESTS, SUGGESTIONS, BLOCKING, MUTING,
            HIDDEN, BLOOM,
            BLOOM_SWAP, CHANGES, CHANGES_HEAD, USER_CHANGES);

    /** What the write service serves. */
    public static final List<Endpoint> WRITE_SERVICE = List.of(FOLLOW, UNFOLLOW, BLOCK, UNBLOCK, MUTE, UNMUTE,
            PROTECT, UNPROTECT, ACCEPT_REQUEST, DECLINE_REQUEST, DEACTIVATE, REACTIVATE, ACCOUNT, ERASE, JOB);

    /** What the reconciler serves. */
    public static final List<Endpoint> RECONCILER = List.of(START_SCAN, SCAN, CANCEL_SCAN, BUILD_SNAPSHOTS);

    private InternalApi() {
    }
}
