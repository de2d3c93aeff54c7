package dev.socialgraph.store;

import java.time.Instant;

/**
 * A row of {@code follow_outbox}: one follow or unfollow committed on a following shard, to be published to
 * {@code follow-events} (DESIGN.md 3 step 5).
 *
 * @param id          outbox id, increasing in commit order per pair (both writes lock the same following row)
 * @param followerId  the follower, positive user id
 * @param followeeId  the followee, positive user id
 * @param follow      {@code true} for a follow, {@code false} for an unfollow
 * @param followedAt  epoch-ms time of the follow; for an unfollow, the time of the follow that was removed
 * @param version     the following row's version after the change
 * @param createdAt   when the row was committed
 * @param publishedAt when the relay marked it published; {@code null} while unpublished
 */
public record OutboxEntry(long id, long followerId, long followeeId, boolean follow, long followedAt, long version,
                          Instant createdAt, Instant publishedAt) {
}
