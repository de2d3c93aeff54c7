package dev.socialgraph.client;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * The cursor-paged lists of the check service, one page per call on the owner's check instance: following and
 * followers ({@link InternalApi#FOLLOWING}, {@link InternalApi#FOLLOWERS}), blocking and muting, and the users two
 * users both follow ({@link InternalApi#COMMON_FOLLOWING}, on the first user's instance), and the followers a viewer
 * knows ({@link InternalApi#KNOWN_FOLLOWERS}, on the user's instance). A page is
 * {@code {"items":[..],"nextCursor":".."|null}}; the cursor is opaque and goes back percent-encoded. Ids and limits
 * are checked before any request.
 *
 * <p>Read-your-writes, when the client remembers follow tokens: a following list, common following and known
 * followers carry the remembered token of the user whose following row they read ({@code user}, {@code a},
 * {@code viewer}), so that user's own follows
 * and unfollows through this client are in them at once. A followers list carries none: a user's own token changes
 * nothing there (only another user's write to it does) and would only send the read to the shard. Thread-safe.
 */
final class Lists {

    private final Transport transport;
    /** {@code null} unless read-your-writes was asked for. */
    private final FollowTokenMemory tokens;

    Lists(Transport transport, FollowTokenMemory tokens) {
        this.transport = transport;
        this.tokens = tokens;
    }

    /** A page of {@link InternalApi#FOLLOWING} or {@link InternalApi#FOLLOWERS}, newest first. */
    Page<FollowLists.Followed> follows(Endpoint list, long user, int limit, String cursor) {
        UserIds.requirePositive(user, "user");
        Request request = Request.to(list, user);
        if (list == InternalApi.FOLLOWING) {
            request = request.header(Headers.FOLLOW_TOKEN, remembered(user));
        }
        return page(user, request, limit, cursor, Lists::followed);
    }

    /** An item of a following, followers or known-followers page: {@code {userId, followedAt}}. */
    private static FollowLists.Followed followed(JsonNode item) {
        return new FollowLists.Followed(Answers.required(item, "userId").asLong(), Answers.instant(item, "followedAt"));
    }

    /** The remembered token of {@code actor}, or {@code null}. */
    private String remembered(long actor) {
        return tokens == null ? null : tokens.tokenFor(actor, null);
    }

    /** A page of {@link InternalApi#BLOCKING} or {@link InternalApi#MUTING}, newest first. */
    Page<FollowLists.Related> relations(Endpoint list, long user, int limit, String cursor) {
        UserIds.requirePositive(user, "user");
        return page(user, Request.to(list, user), limit, cursor, item -> new FollowLists.Related(
                Answers.required(item, "userId").asLong(), Answers.instant(item, "createdAt")));
    }

    /** A page of {@link InternalApi#FOLLOW_REQUESTS}, newest first, to {@code user} or by it. */
    Page<FollowLists.Related> followRequests(long user, boolean incoming, int limit, String cursor) {
        UserIds.requirePositive(user, "user");
        return page(user, Request.to(InternalApi.FOLLOW_REQUESTS, user),
                InternalApi.DIRECTION + "=" + (incoming ? "incoming" : "outgoing") + "&", limit, cursor,
                item -> new FollowLists.Related(Answers.required(item, "userId").asLong(),
                        Answers.instant(item, "requestedAt")));
    }

    /** A page of the users both {@code a} and {@code b} follow, ascending, asked of {@code a}'s instance. */
    Page<Long> commonFollowing(long a, long b, int limit, String cursor) {
        UserIds.requirePositive(a, "a");
        UserIds.requirePositive(b, "b");
        return page(a, Request.to(InternalApi.COMMON_FOLLOWING, a, b).header(Headers.FOLLOW_TOKEN, remembered(a)),
                limit, cursor, item -> Answers.required(item, "userId").asLong());
    }

    /**
     * A page of the followers of {@code user} whom {@code viewer} follows, newest first by the viewer's follow, asked
     * of {@code user}'s instance as the viewer, with the viewer's remembered token.
     */
    Page<FollowLists.Followed> knownFollowers(long viewer, long user, int limit, String cursor) {
        UserIds.requirePositive(viewer, "viewer");
        UserIds.requirePositive(user, "user");
        return page(user, Request.to(InternalApi.KNOWN_FOLLOWERS, user).header(Headers.VIEWER_ID, Long.toString(viewer))
                .header(Headers.FOLLOW_TOKEN, remembered(viewer)), limit, cursor, Lists::followed);
    }

    /**
     * One page of a list: {@code request} with {@code ?limit&cursor} on the owner's instance, each item read by
     * {@code item}.
     *
     * @param owner the user whose shard's instance is asked (ids already checked by the caller)
     */
    private <T> Page<T> page(long owner, Request request, int limit, String cursor, Function<JsonNode, T> item) {
        return page(owner, request, "", limit, cursor, item);
    }

    /** As {@link #page(long, Request, int, String, Function)}, with {@code parameters} before {@code ?limit&cursor}. */
    private <T> Page<T> page(long owner, Request request, String parameters, int limit, String cursor,
                             Function<JsonNode, T> item) {
        requireLimit(limit);
        JsonNode body = Answers.parse(transport.read(owner, request.query(parameters + query(limit, cursor))));
        List<T> items = new ArrayList<>();
        for (JsonNode node : Answers.items(body)) {
            items.add(item.apply(node));
        }
        return new Page<>(items, Answers.nextCursor(body));
    }

    /** {@code limit=..&cursor=..}; the cursor is opaque to the client, so it is percent-encoded whatever it holds. */
    static String query(int limit, String cursor) {
        return InternalApi.LIMIT + "=" + limit + (cursor == null ? ""
                : "&" + InternalApi.CURSOR + "=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
    }

    /** Checks a walk's arguments before its stream is built (its pages are fetched later). */
    static void requireWalk(long user, int pageSize) {
        UserIds.requirePositive(user, "user");
        requireLimit(pageSize);
    }

    /** @throws IllegalArgumentException for a limit (or page size) below 1 */
    static void requireLimit(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1, was " + limit);
        }
    }
}
