package dev.socialgraph.store.follower;

import java.util.Arrays;

/**
 * A row of {@code celebrity_followers_page}: a chunk of a celebrity's followers in arrival order.
 * Pages of one followee are numbered from 0 (oldest) and their time ranges do not interleave, so the page
 * holding a given {@code followedAt} is found by its {@code [minFollowedAt, maxFollowedAt]} bounds.
 *
 * @param followeeId  the celebrity, positive user id
 * @param pageNum     page number, 0 = oldest followers
 * @param followerIds follower ids in arrival order (at most the configured page size, 100,000 by default)
 * @param followedAt  aligned epoch-ms times, ascending, ties by id ascending
 */
public record CelebrityPage(long followeeId, int pageNum, long[] followerIds, long[] followedAt) {

    public CelebrityPage {
        if (followerIds.length != followedAt.length) {
            throw new IllegalArgumentException("followerIds and followedAt must be aligned: "
                    + followerIds.length + " != " + followedAt.length);
        }
        if (pageNum < 0) {
            throw new IllegalArgumentException("pageNum must be >= 0, was " + pageNum);
        }
    }

    /** Earliest follow time on the page, or {@link Long#MAX_VALUE} when empty. */
    public long minFollowedAt() {
        return followedAt.length == 0 ? Long.MAX_VALUE : followedAt[0];
    }

    /** Latest follow time on the page, or {@link Long#MIN_VALUE} when empty. */
    public long maxFollowedAt() {
        return followedAt.length == 0 ? Long.MIN_VALUE : followedAt[followedAt.length - 1];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CelebrityPage p && p.followeeId == followeeId && p.pageNum == pageNum
                && Arrays.equals(p.followerIds, followerIds) && Arrays.equals(p.followedAt, followedAt);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(followeeId) * 31 + pageNum;
    }

    @Override
    public String toString() {
        return "CelebrityPage{followee=" + followeeId + ", page=" + pageNum + ", size=" + followerIds.length + "}";
    }
}
