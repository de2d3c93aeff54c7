package dev.socialgraph.write.follow;

/**
 * The state of one edge after a follow, unfollow or answer to a follow request, as committed on the follower's
 * following shard.
 *
 * @param followerId  the follower (or the requester)
 * @param followeeId  the followee (or the protected account asked)
 * @param following   whether the edge exists now
 * @param followedAt  epoch ms when the edge was created; {@code null} when {@code following} is false
 * @param version     the following row's version now ({@code 0} when the follower has no row)
 * @param changed     whether this call changed a row (and wrote an outbox row); {@code false} for a repeat
 * @param requested   whether a follow request of the followee is pending now (then {@code following} is false)
 * @param requestedAt epoch ms when the pending request was made; {@code null} when {@code requested} is false
 */
public record FollowResult(long followerId, long followeeId, boolean following, Long followedAt, long version,
                           boolean changed, boolean requested, Long requestedAt) {

    /**
     * The result of a call that leaves no request pending.
     *
     * @return the result, {@code requested} false
     */
    public static FollowResult edge(long followerId, long followeeId, boolean following, Long followedAt,
                                    long version, boolean changed) {
        return new FollowResult(followerId, followeeId, following, followedAt, version, changed, false, null);
    }
}
