package dev.socialgraph.write.api;

import dev.socialgraph.web.UserIdJson;
import dev.socialgraph.write.follow.FollowResult;
import tools.jackson.databind.annotation.JsonSerialize;

/**
 * The reply to a follow or unfollow (DESIGN.md 6), or to an answer to a follow request: the edge's state after the
 * call and a follow token for read-your-writes checks. {@code followedAt} is {@code null} when the edge does not exist
 * (after an unfollow), {@code requestedAt} when no request is pending; every field is always present so that clients
 * see one shape.
 *
 * @param followerId  the follower (the requester)
 * @param followeeId  the followee (the protected account)
 * @param following   whether the edge exists now
 * @param followedAt  epoch ms when the edge was created, or {@code null}
 * @param version     the follower's following-row version after the call
 * @param requested   whether a follow request of the followee is pending now: a follow of a protected account the
 *                    follower does not follow yet (docs/decisions/0064-follow-requests.md)
 * @param requestedAt epoch ms when the pending request was made, or {@code null}
 * @param followToken {@code base64url(actorId, issuedAtMillis, HMAC-SHA256)}, to send as {@code X-Follow-Token}
 */
record FollowResponse(@JsonSerialize(using = UserIdJson.Id.class) long followerId,
                      @JsonSerialize(using = UserIdJson.Id.class) long followeeId, boolean following, Long followedAt,
                      long version, boolean requested, Long requestedAt, String followToken) {

    static FollowResponse of(FollowResult result, String followToken) {
        return new FollowResponse(result.followerId(), result.followeeId(), result.following(), result.followedAt(),
                result.version(), result.requested(), result.requestedAt(), followToken);
    }
}
