package dev.socialgraph.store.follower;

import dev.socialgraph.store.sql.SqlArrays;
import java.util.Arrays;

/**
 * A row of {@code follower_adjacency}: who follows {@code followeeId}.
 *
 * @param followeeId    positive user id, the row's key
 * @param followerIds   follower ids in arrival order; empty when {@code celebrity} (the ids are in pages)
 * @param followedAt    epoch-ms follow times aligned with {@code followerIds}, ascending, ties by id ascending
 * @param followerCount total number of followers, in the row or in its celebrity pages
 * @param version       incremented on every rewrite of the row (and of its pages)
 * @param celebrity     whether the followers live in {@code celebrity_followers_page} rows
 */
public record FollowerRow(long followeeId, long[] followerIds, long[] followedAt, long followerCount, long version,
                          boolean celebrity) {

    public FollowerRow {
        if (followerIds.length != followedAt.length) {
            throw new IllegalArgumentException("followerIds and followedAt must be aligned: "
                    + followerIds.length + " != " + followedAt.length);
        }
        if (followerCount < 0) {
            throw new IllegalArgumentException("followerCount must be >= 0, was " + followerCount);
        }
    }

    /** A row that does not exist yet: no followers, version 0. */
    public static FollowerRow empty(long followeeId) {
        return new FollowerRow(followeeId, SqlArrays.EMPTY, SqlArrays.EMPTY, 0, 0, false);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FollowerRow r && r.followeeId == followeeId && r.version == version
                && r.followerCount == followerCount && r.celebrity == celebrity
                && Arrays.equals(r.followerIds, followerIds) && Arrays.equals(r.followedAt, followedAt);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(followeeId) * 31 + Long.hashCode(version);
    }

    @Override
    public String toString() {
        return "FollowerRow{followee=" + followeeId + ", count=" + followerCount + ", inRow=" + followerIds.length
                + ", version=" + version + ", celebrity=" + celebrity + "}";
    }
}
