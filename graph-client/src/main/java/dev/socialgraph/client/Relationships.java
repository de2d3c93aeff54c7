package dev.socialgraph.client;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * How a user stands to others, each read on the check instance of the user it is about: the relationship of two users
 * ({@link InternalApi#RELATIONSHIP}, with the first user's follow token and, when the gateway would, the viewer it is
 * shown to), a user's counts ({@link InternalApi#COUNTS}) and the users it may know
 * ({@link InternalApi#SUGGESTIONS}). Ids and limits are checked before any request. Thread-safe.
 */
final class Relationships {

    private final Transport transport;
    /** {@code null} unless read-your-writes was asked for. */
    private final FollowTokenMemory tokens;

    Relationships(Transport transport, FollowTokenMemory tokens) {
        this.transport = transport;
        this.tokens = tokens;
    }

    /**
     * The relationship of {@code a} and {@code b}.
     *
     * @param viewer      the user it is shown to ({@link Headers#VIEWER_ID}), or {@code 0} for every field
     * @param followToken {@code a}'s token, or {@code null} for the remembered one
     */
    FollowChecks.Relationship relationship(long a, long b, long viewer, String followToken) {
        UserIds.requirePositive(a, "a");
        UserIds.requirePositive(b, "b");
        Request request = Request.to(InternalApi.RELATIONSHIP, a, b)
                .header(Headers.FOLLOW_TOKEN, tokens == null ? followToken : tokens.tokenFor(a, followToken))
                .header(Headers.VIEWER_ID, viewer > 0 ? Long.toString(viewer) : null);
        JsonNode body = Answers.parse(transport.read(a, request));
        Optional<Boolean> following = Answers.optionalBoolean(body, "following");
        Optional<Boolean> followedBy = Answers.optionalBoolean(body, "followedBy");
        return new FollowChecks.Relationship(following.orElse(false), followedBy.orElse(false),
                Answers.optionalBoolean(body, "blocking"), Answers.optionalBoolean(body, "blockedBy"),
                Answers.optionalBoolean(body, "muting"), Answers.optionalBoolean(body, "protected").orElse(false),
                Answers.optionalBoolean(body, "requested"), Answers.optionalBoolean(body, "requestedBy"),
                following.isEmpty(), followedBy.isEmpty());
    }

    /**
     * {@code user}'s follower and following counts; with the remembered token of {@code user} (read-your-writes), its
     * following count as its own writes through this client left it.
     */
    FollowLists.Counts counts(long user) {
        UserIds.requirePositive(user, "user");
        Request request = Request.to(InternalApi.COUNTS, user)
                .header(Headers.FOLLOW_TOKEN, tokens == null ? null : tokens.tokenFor(user, null));
        JsonNode body = Answers.parse(transport.read(user, request));
        return new FollowLists.Counts(Answers.required(body, "followers").asLong(),
                Answers.required(body, "following").asLong());
    }

    /** At most {@code limit} users {@code user} may want to follow, best first. */
    List<FollowLists.Suggestion> suggestions(long user, int limit) {
        UserIds.requirePositive(user, "user");
        Lists.requireLimit(limit);
        Request request = Request.to(InternalApi.SUGGESTIONS, user).query(InternalApi.LIMIT + "=" + limit);
        JsonNode body = Answers.parse(transport.read(user, request));
        List<FollowLists.Suggestion> out = new ArrayList<>();
        for (JsonNode item : Answers.items(body)) {
            out.add(new FollowLists.Suggestion(Answers.required(item, "userId").asLong(),
                    Answers.required(item, "mutualCount").asInt()));
        }
        return List.copyOf(out);
    }
}
