package dev.socialgraph.client;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.InternalApi;
import tools.jackson.databind.JsonNode;

/**
 * The write service's follows, blocks and mutes ({@link InternalApi#FOLLOW} ... {@link InternalApi#UNMUTE}): an
 * idempotent {@code PUT} to add, {@code DELETE} to remove, on a write instance. Each reply carries the actor's
 * follow token, which is kept for the actor's next reads when read-your-writes was asked for. Ids are checked before
 * any request. Thread-safe.
 */
final class Relations {

    private final Transport transport;
    /** {@code null} unless read-your-writes was asked for. */
    private final FollowTokenMemory tokens;

    Relations(Transport transport, FollowTokenMemory tokens) {
        this.transport = transport;
        this.tokens = tokens;
    }

    /**
     * {@code actor} adds ({@code add}) or removes its {@code relation} to {@code target}.
     *
     * @return the relation's state after the write, with the actor's follow token
     */
    WriteResult write(Relation relation, boolean add, long actor, long target) {
        boolean follow = relation == Relation.FOLLOW;
        UserIds.requirePositive(actor, follow ? "follower" : "user");
        UserIds.requirePositive(target, follow ? "followee" : "target");
        JsonNode body = Answers.parse(transport.write(Request.to(endpoint(relation, add), actor, target)));
        WriteResult result = follow ? followReply(body) : relationReply(relation, body);
        if (tokens != null) {
            tokens.remember(actor, result.followToken());
        }
        return result;
    }

    /** The endpoint that adds or removes {@code relation}. */
    static Endpoint endpoint(Relation relation, boolean add) {
        return switch (relation) {
            case FOLLOW -> add ? InternalApi.FOLLOW : InternalApi.UNFOLLOW;
            case BLOCK -> add ? InternalApi.BLOCK : InternalApi.UNBLOCK;
            case MUTE -> add ? InternalApi.MUTE : InternalApi.UNMUTE;
            case REQUEST -> throw new IllegalArgumentException(
                    "a follow request is made by following a protected account, not written as a relation");
        };
    }

    /**
     * {@code user}, a protected account, accepts ({@code accept}) or declines {@code requester}'s pending follow request
     * ({@link InternalApi#ACCEPT_REQUEST}, {@link InternalApi#DECLINE_REQUEST}). The requester's row was written: its
     * token is kept for the requester's reads.
     *
     * @return the follow's state after the call, the requester as {@link WriteResult#actor()}
     */
    WriteResult answerRequest(boolean accept, long user, long requester) {
        UserIds.requirePositive(user, "user");
        UserIds.requirePositive(requester, "requester");
        Endpoint endpoint = accept ? InternalApi.ACCEPT_REQUEST : InternalApi.DECLINE_REQUEST;
        WriteResult result = followReply(Answers.parse(transport.write(Request.to(endpoint, user, requester))));
        if (tokens != null) {
            tokens.remember(requester, result.followToken());
        }
        return result;
    }

    /**
     * A follow's reply: {@code followerId, followeeId, following, followedAt, version, requested, requestedAt,
     * followToken}.
     */
    private static WriteResult followReply(JsonNode body) {
        return new WriteResult(Relation.FOLLOW, Answers.required(body, "followerId").asLong(),
                Answers.required(body, "followeeId").asLong(), Answers.required(body, "following").asBoolean(),
                Answers.instant(body, "followedAt"), Answers.required(body, "version").asLong(),
                Answers.text(body, "followToken"), Answers.instant(body, "requestedAt"));
    }

    /** A block's or mute's reply: {@code userId, targetId, active, createdAt, version, followToken}. */
    private static WriteResult relationReply(Relation relation, JsonNode body) {
        return new WriteResult(relation, Answers.required(body, "userId").asLong(),
                Answers.required(body, "targetId").asLong(), Answers.required(body, "active").asBoolean(),
                Answers.instant(body, "createdAt"), Answers.required(body, "version").asLong(),
                Answers.text(body, "followToken"));
    }
}
