package dev.socialgraph.wire;

import java.util.List;

/**
 * Every operation of the public API the gateway serves ({@code /v1}, documented in {@code docs/openapi.yaml}, where
 * each {@link Endpoint#name} is the operation's {@code operationId}), described once: the gateway's routes are
 * registered from these templates, and a test holds the list against the document both ways (method, path, headers
 * and query parameters). Every {@code /v1} request needs a bearer token; {@code /v1/admin/**} the {@code graph:admin}
 * scope.
 */
public final class PublicApi {

    /** The public API's version prefix. */
    public static final String PREFIX = "/v1";

    /** Every user's reads: {@code /v1/users/{id}/...}. */
    public static final String USERS = PREFIX + "/users";

    /** The operator API, for tokens with the {@code graph:admin} scope. */
    public static final String ADMIN = PREFIX + "/admin";

    /** The change stream, for tokens with the {@code graph:changes} scope. */
    public static final String CHANGES = PREFIX + "/changes";

    private static final String ME = PREFIX + "/me";
    private static final String USER = USERS + "/{id}";

    // --- the caller's own writes and lists (the actor is the token's subject) -------------------------------------

    public static final Endpoint FOLLOW = write("follow", Method.PUT, ME + "/following/{targetId}");
    public static final Endpoint UNFOLLOW = write("unfollow", Method.DELETE, ME + "/following/{targetId}");
    /** The caller removes a follower: {@code id}'s follow of the caller ends, an unfollow in every other respect. */
    public static final Endpoint REMOVE_FOLLOWER = write("removeFollower", Method.DELETE, ME + "/followers/{id}");
    public static final Endpoint BLOCK = write("block", Method.PUT, ME + "/blocking/{targetId}");
    public static final Endpoint UNBLOCK = write("unblock", Method.DELETE, ME + "/blocking/{targetId}");
    public static final Endpoint MUTE = write("mute", Method.PUT, ME + "/muting/{targetId}");
    public static final Endpoint UNMUTE = write("unmute", Method.DELETE, ME + "/muting/{targetId}");
    public static final Endpoint ERASE_ME = write("eraseMe", Method.DELETE, ME);
    public static final Endpoint LIST_OWN_BLOCKS = page("listOwnBlocks", ME + "/blocking");
    public static final Endpoint LIST_OWN_MUTES = page("listOwnMutes", ME + "/muting");
    /** Protected accounts and their follow requests (docs/decisions/0064-follow-requests.md). */
    public static final Endpoint PROTECT_ME = write("protectMe", Method.PUT, ME + "/protection");
    public static final Endpoint UNPROTECT_ME = write("unprotectMe", Method.DELETE, ME + "/protection");
    public static final Endpoint LIST_OWN_FOLLOW_REQUESTS = Endpoint.of("listOwnFollowRequests", Method.GET,
            ME + "/follow-requests").withHeaders(Headers.REQUEST_ID).withQuery(InternalApi.DIRECTION,
            InternalApi.LIMIT, InternalApi.CURSOR, InternalApi.STRINGIFY_IDS);
    public static final Endpoint ACCEPT_FOLLOW_REQUEST = write("acceptFollowRequest", Method.PUT,
            ME + "/follow-requests/{requesterId}");
    public static final Endpoint DECLINE_FOLLOW_REQUEST = write("declineFollowRequest", Method.DELETE,
            ME + "/follow-requests/{requesterId}");
    public static final Endpoint FIND_OWN_HIDDEN_AUTHORS = Endpoint.of("findOwnHiddenAuthors", Method.POST,
            ME + "/hidden").withHeaders(Headers.FOLLOW_TOKEN, Headers.REQUEST_ID).withQuery(InternalApi.STRINGIFY_IDS);

    // --- reads of any user ------------------------------------------------------------------------------------------

    /** The single check, the most frequent request. */
    public static final Endpoint IS_FOLLOWING = Endpoint.of("isFollowing", Method.GET, USER + "/following/{targetId}")
            .withHeaders(Headers.FOLLOW_TOKEN, Headers.REQUEST_ID);
    public static final Endpoint ARE_FOLLOWING = Endpoint.of("areFollowing", Method.POST,
            USER + "/following/contains").withHeaders(Headers.FOLLOW_TOKEN, Headers.REQUEST_ID)
            .withQuery(InternalApi.STRINGIFY_IDS);
    public static final Endpoint LIST_FOLLOWING = followPage("listFollowing", USER + "/following");
    public static final Endpoint LIST_FOLLOWERS = followPage("listFollowers", USER + "/followers");
    public static final Endpoint COUNT_FOLLOWS = Endpoint.of("countFollows", Method.GET, USER + "/counts")
            .withHeaders(Headers.FOLLOW_TOKEN, Headers.REQUEST_ID);
    public static final Endpoint LIST_COMMON_FOLLOWING = followPage("listCommonFollowing",
            USER + "/common-following/{otherId}");
    public static final Endpoint LIST_KNOWN_FOLLOWERS = followPage("listKnownFollowers", USER + "/followers/known");
    public static final Endpoint GET_RELATIONSHIP = Endpoint.of("getRelationship", Method.GET,
            USER + "/relationship/{otherId}").withHeaders(Headers.FOLLOW_TOKEN, Headers.REQUEST_ID);
    public static final Endpoint SUGGEST_USERS = Endpoint.of("suggestUsers", Method.GET, USER + "/suggestions")
            .withHeaders(Headers.REQUEST_ID).withQuery(InternalApi.LIMIT, InternalApi.STRINGIFY_IDS);
    public static final Endpoint LIST_USER_BLOCKS = page("listUserBlocks", USER + "/blocking");
    public static final Endpoint LIST_USER_MUTES = page("listUserMutes", USER + "/muting");
    public static final Endpoint FIND_HIDDEN_AUTHORS = Endpoint.of("findHiddenAuthors", Method.POST, USER + "/hidden")
            .withHeaders(Headers.FOLLOW_TOKEN, Headers.REQUEST_ID).withQuery(InternalApi.STRINGIFY_IDS);

    // --- the operator API (graph:admin) ------------------------------------------------------------------------------

    public static final Endpoint DEACTIVATE_USER = write("deactivateUser", Method.PUT,
            ADMIN + "/users/{id}/deactivation");
    public static final Endpoint REACTIVATE_USER = write("reactivateUser", Method.DELETE,
            ADMIN + "/users/{id}/deactivation");
    public static final Endpoint GET_ACCOUNT_STATE = write("getAccountState", Method.GET, ADMIN + "/users/{id}");
    public static final Endpoint ERASE_USER = write("eraseUser", Method.DELETE, ADMIN + "/users/{id}");
    public static final Endpoint GET_ACCOUNT_JOB = write("getAccountJob", Method.GET, ADMIN + "/jobs/{jobId}");

    // --- the change stream (Changes) ------------------------------------------------------------------------------

    /** Every change after a cursor, for tokens with the {@code graph:changes} scope; long-poll or server-sent events. */
    public static final Endpoint LIST_CHANGES = Endpoint.of("listChanges", Method.GET, CHANGES)
            .withHeaders(Headers.REQUEST_ID, Headers.LAST_EVENT_ID)
            .withQuery(Changes.CURSOR, Changes.KINDS, Changes.USERS, Changes.LIMIT, Changes.WAIT);
    /** The change stream's position now, for tokens with the {@code graph:changes} scope. */
    public static final Endpoint GET_CHANGES_HEAD = Endpoint.of("getChangesHead", Method.GET, CHANGES + "/head")
            .withHeaders(Headers.REQUEST_ID);
    /** The caller's own changes, for any user token: the same parameters and cursors as {@link #LIST_CHANGES}. */
    public static final Endpoint LIST_OWN_CHANGES = Endpoint.of("listOwnChanges", Method.GET, ME + "/changes")
            .withHeaders(Headers.REQUEST_ID, Headers.LAST_EVENT_ID)
            .withQuery(Changes.CURSOR, Changes.KINDS, Changes.USERS, Changes.LIMIT, Changes.WAIT);

    /** The document itself, served without a token. */
    public static final Endpoint GET_OPENAPI_DOCUMENT = Endpoint.of("getOpenApiDocument", Method.GET, "/openapi.yaml");

    /** Every operation. */
    public static final List<Endpoint> ALL = List.of(FOLLOW, UNFOLLOW, REMOVE_FOLLOWER, BLOCK, UNBLOCK, MUTE, UNMUTE, ERASE_ME,
            LIST_OWN_BLOCKS, LIST_OWN_MUTES, PROTECT_ME, UNPROTECT_ME, LIST_OWN_FOLLOW_REQUESTS, ACCEPT_FOLLOW_REQUEST,
            DECLINE_FOLLOW_REQUEST, FIND_OWN_HIDDEN_AUTHORS, IS_FOLLOWING, ARE_FOLLOWING, LIST_FOLLOWING,
            LIST_FOLLOWERS, COUNT_FOLLOWS, LIST_COMMON_FOLLOWING, LIST_KNOWN_FOLLOWERS, GET_RELATIONSHIP, SUGGEST_USERS, LIST_USER_BLOCKS,
            LIST_USER_MUTES, FIND_HIDDEN_AUTHORS, DEACTIVATE_USER, REACTIVATE_USER, GET_ACCOUNT_STATE, ERASE_USER,
            GET_ACCOUNT_JOB, LIST_CHANGES, GET_CHANGES_HEAD, LIST_OWN_CHANGES, GET_OPENAPI_DOCUMENT);

    private PublicApi() {
    }

    /** An operation answering ids (so {@code stringify_ids}) that reads the request id. */
    private static Endpoint write(String name, Method method, String template) {
        return Endpoint.of(name, method, template).withHeaders(Headers.REQUEST_ID).withQuery(InternalApi.STRINGIFY_IDS);
    }

    /** A list of follows: a page of {@code limit} from {@code cursor}, read-your-writes with a follow token. */
    private static Endpoint followPage(String name, String template) {
        return Endpoint.of(name, Method.GET, template).withHeaders(Headers.FOLLOW_TOKEN, Headers.REQUEST_ID)
                .withQuery(InternalApi.LIMIT, InternalApi.CURSOR, InternalApi.STRINGIFY_IDS);
    }

    /** A list: a page of {@code limit} from {@code cursor}. */
    private static Endpoint page(String name, String template) {
        return Endpoint.of(name, Method.GET, template).withHeaders(Headers.REQUEST_ID)
                .withQuery(InternalApi.LIMIT, InternalApi.CURSOR, InternalApi.STRINGIFY_IDS);
    }
}
