package dev.socialgraph.store.following;

import dev.socialgraph.store.sql.SqlArrays;
import java.util.Arrays;

/**
 * A row of {@code following_adjacency}: whom {@code followerId} follows.
 *
 * @param followerId   positive user id, the row's key
 * @param followingIds followee ids sorted ascending, unique
 * @param followedAt   epoch-ms follow times aligned with {@code followingIds}
 * @param version      the row's version: 0 for a new row, +1 on every change (orders cache writes and events)
 */
public record FollowingRow(long followerId, long[] followingIds, long[] followedAt, long version) {

    public FollowingRow {
        if (followingIds.length != followedAt.length) {
            throw new IllegalArgumentException("followingIds and followedAt must be aligned: "
                    + followingIds.length + " != " + followedAt.length);
        }
    }

    /** A row that does not exist yet: no followings, version 0. */
    public static FollowingRow empty(long followerId) {
        return new FollowingRow(followerId, SqlArrays.EMPTY, SqlArrays.EMPTY, 0);
    }

    /** Number of followees. */
    public int followingCount() {
        return followingIds.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FollowingRow r && r.followerId == followerId && r.version == version
                && Arrays.equals(r.followingIds, followingIds) && Arrays.equals(r.followedAt, followedAt);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(followerId) * 31 + Long.hashCode(version);
    }

    @Override
    public String toString() {
        return "FollowingRow{follower=" + followerId + ", count=" + followingIds.length + ", version=" + version + "}";
    }
}
