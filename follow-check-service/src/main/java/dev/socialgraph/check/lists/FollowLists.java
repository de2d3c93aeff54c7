package dev.socialgraph.check.lists;

import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.adjacency.Page;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.following.FollowingRow;
import java.util.Arrays;
import org.springframework.stereotype.Service;

/**
 * Lists and counts of DESIGN.md 5: following newest first from the following row, followers newest first from
 * the follower row or celebrity pages, counts, and common following (intersection of two sorted rows). Pages
 * continue strictly after a position {@code (followedAt, userId)}, so follows and unfollows between two pages
 * never repeat an item and never skip one that stayed.
 */
@Service
public class FollowLists {

    /** The shard reads of the lists: an adapter in {@code check.store} in production, a plain fake in tests. */
    public interface Shards {

        /**
         * The following row of {@code followerId} (source of truth), read where its shard lives.
         *
         * @param followerId positive user id
         * @return the row; an empty row of version 0 when the user never followed anyone
         * @throws ShardUnavailableException when its database is down
         */
        FollowingRow following(long followerId);

        /**
         * One newest-first page of who follows {@code followeeId}, from the follower row or, for a celebrity, by
         * walking its pages from the newest down (DESIGN.md 2.2); row and pages read in one transaction.
         *
         * @param followeeId       positive user id
         * @param cursorFollowedAt position to continue after (ignored when {@code cursorId == Page.START})
         * @param cursorId         position to continue after, or {@link Page#START}
         * @param limit            page size, {@code >= 1}
         * @return the page
         * @throws ShardUnavailableException when its database is down
         */
        Page followers(long followeeId, long cursorFollowedAt, long cursorId, int limit);

        /**
         * How many users {@code followerId} follows: its following row's count column, less the inactive users
         * taken out of it ({@code count_offsets}).
         *
         * @param followerId positive user id
         * @return {@code 0..10000}
         * @throws ShardUnavailableException when its database is down
         */
        int followingCount(long followerId);

        /**
         * How many users follow {@code followeeId}: its follower row's count column (eventually consistent), less
         * the inactive users taken out of it.
         *
         * @param followeeId positive user id
         * @return {@code >= 0}
         * @throws ShardUnavailableException when its database is down
         */
        long followerCount(long followeeId);
    }

    private final Shards shards;

    /**
     * @param shards where the rows are read
     */
    public FollowLists(Shards shards) {
        this.shards = shards;
    }

    /**
     * Whom {@code followerId} follows, newest first.
     *
     * @param followerId       positive
     * @param cursorFollowedAt position to continue after (ignored for the first page)
     * @param cursorId         position to continue after, or {@link Page#START}
     * @param limit            page size, {@code >= 1}
     * @return the page
     */
    public Page following(long followerId, long cursorFollowedAt, long cursorId, int limit) {
        FollowingRow row = shards.following(followerId);
        return AdjacencyArray.newestFirst(row.followingIds(), row.followedAt(), cursorFollowedAt, cursorId, limit);
    }

    /**
     * Who follows {@code followeeId}, newest first.
     *
     * @param followeeId       positive
     * @param cursorFollowedAt position to continue after (ignored for the first page)
     * @param cursorId         position to continue after, or {@link Page#START}
     * @param limit            page size, {@code >= 1}
     * @return the page
     */
    public Page followers(long followeeId, long cursorFollowedAt, long cursorId, int limit) {
        return shards.followers(followeeId, cursorFollowedAt, cursorId, limit);
    }

    /**
     * Follower and following counts.
     *
     * @param userId positive
     * @return the counts from the rows' count columns less the inactive users taken out of them
     *         ({@code count_offsets}, docs/account-lifecycle.md): followers from the follower side (eventually
     *         consistent), following from the following row
     */
    public Counts counts(long userId) {
        return new Counts(shards.followerCount(userId), shards.followingCount(userId));
    }

    /**
     * Ids both users follow, ascending, after {@code afterId}.
     *
     * @param a       positive
     * @param b       positive
     * @param afterId exclusive lower bound, {@code 0} for the first page
     * @param limit   page size, {@code >= 1}
     * @return up to {@code limit} ids plus whether more remain
     */
    public CommonPage commonFollowing(long a, long b, long afterId, int limit) {
        long[] first = shards.following(a).followingIds();
        long[] second = a == b ? first : shards.following(b).followingIds();
        long[] found = AdjacencyArray.intersect(first, second, afterId, limit + 1);
        boolean hasMore = found.length > limit;
        return new CommonPage(hasMore ? Arrays.copyOf(found, limit) : found, hasMore);
    }

    /**
     * Counts of a user.
     *
     * @param followers how many follow the user
     * @param following how many the user follows
     */
    public record Counts(long followers, long following) {

        /** The counts of a user with no edges (an inactive user's). */
        public static final Counts NONE = new Counts(0, 0);
    }

    /**
     * One page of common following.
     *
     * @param ids     ascending
     * @param hasMore whether ids remain after the last
     */
    public record CommonPage(long[] ids, boolean hasMore) {
    }
}
