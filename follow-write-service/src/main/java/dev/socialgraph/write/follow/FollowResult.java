package dev.socialgraph.write.follow;

/**
 * The state of one edge after a follow or unfollow, as committed on the follower's following shard.
 *
 * @param followerId the follower
 * @param followeeId the followee
 * @param following  whether the edge exists now
 * @param followedAt epoch ms when the edge was created; {@code null} when {@code following} is false
 * @param version    the following row's version now ({@code 0} when the follower has no row)
 * @param changed    whether this call changed the row (and wrote an outbox row); {@code false} for a repeat
 */
public record FollowResult(long followerId, long followeeId, boolean following, Long followedAt, long version,
                           boolean changed) {
}
