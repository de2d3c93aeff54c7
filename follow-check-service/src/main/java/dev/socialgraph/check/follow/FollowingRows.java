package dev.socialgraph.check.follow;

import dev.socialgraph.store.following.FollowingRow;

/**
 * Following rows through the read path's layers, for the lists, counts and common following: {@link FollowChecker} in
 * production, a plain fake in tests.
 */
public interface FollowingRows {

    /**
     * The following row of {@code followerId} if memory holds it and may answer for this request; no I/O.
     *
     * @param followerId positive user id
     * @param writer     the request's follow token ({@link FollowChecker#writer}); the follower's own write is not
     *                   answered from memory
     * @return the row (its arrays not to be modified), or {@code null}
     */
    FollowingRow cachedRow(long followerId, long writer);

    /**
     * The following row of {@code followerId}: from memory when it may answer, else from the shard (which then
     * fills memory).
     *
     * @param followerId positive user id
     * @param writer     as for {@link #cachedRow}
     * @return the row; an empty row of version 0 for a user who never followed
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when the shard must be read and is down
     */
    FollowingRow followingRow(long followerId, long writer);

    /**
     * Which of {@code followerIds} follow {@code followeeId}: memory where it may answer, the shards for the rest.
     *
     * @param followerIds positive user ids, ascending
     * @param followeeId  positive user id
     * @param writer      as for {@link #cachedRow}
     * @param mayBlock    whether the shards may be read; {@code false} on an I/O thread
     * @return the subset that follows, ascending; {@code null} only when {@code !mayBlock} and memory cannot answer
     *         for every one of them
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when a shard must be read and is down
     */
    long[] whichFollow(long[] followerIds, long followeeId, long writer, boolean mayBlock);
}
