package dev.socialgraph.check.lists;

import dev.socialgraph.check.cache.FollowerSideCache;
import dev.socialgraph.check.follow.FollowingRows;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.adjacency.Page;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.following.FollowingRow;
import java.util.Arrays;
import java.util.function.ToIntFunction;

/**
 * Lists and counts of DESIGN.md 5: following newest first from the following row, followers newest first from
 * the follower row or celebrity pages, counts, and common following (intersection of two sorted rows). Pages
 * continue strictly after a position {@code (followedAt, userId)}, so follows and unfollows between two pages
 * never repeat an item and never skip one that stayed, whether a page comes from memory or from a shard.
 *
 * <p><b>From memory</b> (docs/decisions/0059-lists-and-counts-from-memory.md). The following side comes from the exact
 * in-process following rows ({@link FollowingRows}: kept by the event feed, filled from the shard on a miss): following lists,
 * following counts and common following read no shard for a cached user. The follower side comes from the
 * {@link FollowerSideCache}: the newest {@link FollowerSideCache#windowSize} followers and the follower count of each
 * cached followee; a first page of at most that size, and the pages after it that the window holds, are cut from it
 * (a walk that reaches the window's end deepens it, once, to {@link FollowerSideCache#deepWindowSize}).
 * What memory does not hold is read from the shard, and then cached: a following count as the user's row, a follower
 * count in one statement.
 *
 * <p>Ids are positive 64-bit user ids; times epoch milliseconds. Every method that may read a shard throws
 * {@link ShardUnavailableException} when its database is down. Thread-safe.
 */
public class FollowLists {

    /** The shard reads of the lists: an adapter in {@code check.store} in production, a plain fake in tests. */
    public interface Shards {

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
         * How many users follow {@code followeeId}: its follower row's count column (eventually consistent), less
         * the inactive users taken out of it; one statement.
         *
         * @param followeeId positive user id
         * @return {@code >= 0}
         * @throws ShardUnavailableException when its database is down
         */
        long followerCount(long followeeId);

        /**
         * The follower count of {@code followeeId} ({@link #followerCount}) and whether the follower side holds
         * {@code followerId}'s follow of it, read in one snapshot: what a read-your-writes count corrects.
         *
         * @param followeeId positive user id
         * @param followerId positive user id
         * @return the count, and whether the follower side holds the follow
         * @throws ShardUnavailableException when its database is down
         */
        CountWithFollower followerCountWith(long followeeId, long followerId);
    }

    /**
     * A follower count and one follower's membership, from one snapshot of the follower side.
     *
     * @param count      the follower count, {@code >= 0}
     * @param holdsFollow whether the follower side holds the follow asked about
     */
    public record CountWithFollower(long count, boolean holdsFollow) {
    }

    /**
     * The first chunk of a viewer's following row asked "which of these follow the user?" by
     * {@link #knownFollowers}: a page of 20 to 50 from a row whose followees mostly follow the user is one round.
     */
    static final int FIRST_CHUNK = 64;

    private final Shards shards;
    private final FollowingRows rows;
    private final FollowerSideCache followerSide;
    private final ToIntFunction<long[]> inactiveAmong;

    /**
     * @param shards        where the rows are read when memory does not hold them
     * @param rows          the following rows through the read path's layers
     * @param followerSide  the follower side in memory, or {@code null} to read it from the shard every time
     * @param inactiveAmong how many of a sorted id array are inactive users (subtracted from a following count read
     *                      from memory, as the shard's count has them taken out)
     */
    public FollowLists(Shards shards, FollowingRows rows, FollowerSideCache followerSide,
                       ToIntFunction<long[]> inactiveAmong) {
        this.shards = shards;
        this.rows = rows;
        this.followerSide = followerSide;
        this.inactiveAmong = inactiveAmong;
    }

    /**
     * Whom {@code followerId} follows, newest first.
     *
     * @param followerId       positive
     * @param cursorFollowedAt position to continue after (ignored for the first page)
     * @param cursorId         position to continue after, or {@link Page#START}
     * @param limit            page size, {@code >= 1}
     * @param writer           the request's follow token as verified: the follower's own write reads its shard
     * @param mayBlock         whether a shard may be read; {@code false} on an I/O thread
     * @return the page; {@code null} only when {@code !mayBlock} and memory does not hold the row
     */
    public Page following(long followerId, long cursorFollowedAt, long cursorId, int limit, long writer,
                          boolean mayBlock) {
        FollowingRow row = row(followerId, writer, mayBlock);
        return row == null ? null
                : AdjacencyArray.newestFirst(row.followingIds(), row.followedAt(), cursorFollowedAt, cursorId, limit);
    }

    /**
     * Who follows {@code followeeId}, newest first: from the followee's window in memory when it holds the page,
     * else from the shard (a first page then fills the window, and a page that continues a walk past the end of the
     * cached window deepens it to {@link FollowerSideCache#deepWindowSize}, in one read, and is cut from it).
     *
     * @param followeeId       positive
     * @param cursorFollowedAt position to continue after (ignored for the first page)
     * @param cursorId         position to continue after, or {@link Page#START}
     * @param limit            page size, {@code >= 1}
     * @param fresh            whether the event feed is fresh enough for memory to answer
     * @param mayBlock         whether a shard may be read; {@code false} on an I/O thread
     * @return the page; {@code null} only when {@code !mayBlock} and memory does not hold it
     */
    public Page followers(long followeeId, long cursorFollowedAt, long cursorId, int limit, boolean fresh,
                          boolean mayBlock) {
        if (followerSide == null || !fresh) {
            return mayBlock ? shards.followers(followeeId, cursorFollowedAt, cursorId, limit) : null;
        }
        FollowerSideCache.Window window = followerSide.window(followeeId);
        if (window != null) {
            Page page = window.page(cursorFollowedAt, cursorId, limit);
            if (page != null) {
                return page; // any limit: a deep window holds pages larger than a first page's window
            }
        }
        if (!mayBlock) {
            return null;
        }
        if (cursorId == Page.START) {
            return limit > followerSide.windowSize() ? shards.followers(followeeId, 0, Page.START, limit)
                    : fillWindow(followeeId, followerSide.windowSize()).page(0, Page.START, limit);
        }
        int deep = followerSide.deepWindowSize();
        if (window != null && window.walkReachesEnd(cursorFollowedAt, cursorId, deep)) {
            Page page = fillWindow(followeeId, deep).page(cursorFollowedAt, cursorId, limit);
            if (page != null) {
                return page;
            }
        }
        return shards.followers(followeeId, cursorFollowedAt, cursorId, limit); // past the window
    }

    /**
     * Follower and following counts: each from memory when it holds it (one lookup), else one statement on the
     * user's shard of each group: the following row, which memory then holds, and the follower count (two on the
     * follower shard for a followee with more followers than a window holds, the first time).
     *
     * @param userId positive
     * @param writer the request's follow token as verified: the user's own write reads its following count from the
     *               shard; another user's write corrects the follower count by that user's row
     *               ({@link #followerCountAfterWrite})
     * @param fresh    whether the event feed is fresh enough for memory to answer
     * @param mayBlock whether a shard may be read; {@code false} on an I/O thread
     * @return the counts less the inactive users taken out of them (docs/account-lifecycle.md): followers from the
     *         follower side (eventually consistent), following from the following row; {@code null} only when
     *         {@code !mayBlock} and memory does not hold both
     */
    public Counts counts(long userId, long writer, boolean fresh, boolean mayBlock) {
        boolean otherWriter = writer > 0 && writer != userId;
        long followers = !otherWriter ? followerCount(userId, fresh, mayBlock)
                : mayBlock ? followerCountAfterWrite(userId, writer) : -1;
        long following = followers < 0 ? -1 : followingCount(userId, writer, mayBlock);
        return following < 0 ? null : new Counts(followers, following);
    }

    /**
     * The following count, from the following row less the inactive users by the view; {@code -1} when
     * {@code !mayBlock} and memory does not hold the row. A miss reads the whole row, not a count statement: the same
     * one round trip, and the row then stays in memory (until an event or eviction drops it), so the next count, page
     * or check of the user reads no shard. A count statement cached nothing, and the users whose rows no check had
     * loaded (those who follow nobody among them) sent every count to the shard.
     */
    private long followingCount(long followerId, long writer, boolean mayBlock) {
        FollowingRow row = row(followerId, writer, mayBlock);
        return row == null ? -1 : row.followingCount() - inactiveAmong.applyAsInt(row.followingIds());
    }

    /**
     * The follower count; {@code -1} when {@code !mayBlock} and memory does not hold it. A followee whose window holds
     * all its followers (most users: fewer than a window's size) is counted from the window, less the inactive users
     * by the view, which is what the count column less the account offsets says once the jobs are done, and lives as
     * long as the window; the others' counts are cached apart, for {@code count-max-age}. On a miss the window is
     * read first (one statement on the follower shard); the count statement follows only for a followee the window
     * cannot hold, and once its window is cached a count miss is that statement alone.
     */
    private long followerCount(long followeeId, boolean fresh, boolean mayBlock) {
        if (followerSide == null || !fresh) {
            return mayBlock ? shards.followerCount(followeeId) : -1;
        }
        long cached = followerSide.count(followeeId);
        if (cached >= 0) {
            return cached;
        }
        FollowerSideCache.Window window = followerSide.window(followeeId);
        if (window == null && mayBlock) {
            window = fillWindow(followeeId, followerSide.windowSize());
        }
        if (window != null && window.complete()) {
            return window.ids().length - inactiveAmong.applyAsInt(window.ids());
        }
        if (!mayBlock) {
            return -1;
        }
        long ticket = followerSide.ticket(followeeId);
        long count = shards.followerCount(followeeId);
        followerSide.putCount(followeeId, count, ticket);
        return count;
    }

    /** Reads the followee's first {@code size} followers and caches them as its window (one shard read). */
    private FollowerSideCache.Window fillWindow(long followeeId, int size) {
        long ticket = followerSide.ticket(followeeId);
        Page first = shards.followers(followeeId, 0, Page.START, size);
        FollowerSideCache.Window filled = FollowerSideCache.Window.of(first);
        followerSide.putWindow(followeeId, filled, ticket);
        return filled;
    }

    /**
     * The follower count of {@code followeeId} as {@code followerId}'s own write left it (read-your-writes on the
     * follower side): the follower side's count, corrected by one when {@code followerId}'s following row (the source
     * of truth, written synchronously) and the follower side disagree about the follow.
     *
     * @param followeeId positive
     * @param followerId positive, the user whose follow token the request carries, not {@code followeeId}
     * @return {@code >= 0}
     */
    public long followerCountAfterWrite(long followeeId, long followerId) {
        boolean follows = followedAt(followerId, followeeId) != NOT_FOLLOWING;
        CountWithFollower side = shards.followerCountWith(followeeId, followerId);
        if (follows == side.holdsFollow()) {
            return side.count();
        }
        return Math.max(0, side.count() + (follows ? 1 : -1));
    }

    /** {@link #followedAt} of a pair without a follow. */
    public static final long NOT_FOLLOWING = -1;

    /**
     * When {@code followerId} followed {@code followeeId}, by the follower's following row read from its shard (the
     * source of truth, so a write the follower just made is seen).
     *
     * @param followerId positive
     * @param followeeId positive
     * @return epoch ms, or {@link #NOT_FOLLOWING}
     */
    public long followedAt(long followerId, long followeeId) {
        FollowingRow row = rows.followingRow(followerId, followerId);
        int at = Arrays.binarySearch(row.followingIds(), followeeId);
        return at < 0 ? NOT_FOLLOWING : row.followedAt()[at];
    }

    /**
     * Ids both users follow, ascending, after {@code afterId}.
     *
     * @param a       positive
     * @param b       positive
     * @param afterId exclusive lower bound, {@code 0} for the first page
     * @param limit   page size, {@code >= 1}
     * @param writer   the request's follow token as verified: the writer's own row is read from its shard
     * @param mayBlock whether a shard may be read; {@code false} on an I/O thread
     * @return up to {@code limit} ids plus whether more remain; {@code null} only when {@code !mayBlock} and memory
     *         does not hold both rows
     */
    public CommonPage commonFollowing(long a, long b, long afterId, int limit, long writer, boolean mayBlock) {
        FollowingRow rowA = row(a, writer, mayBlock);
        FollowingRow rowB = a == b ? rowA : row(b, writer, mayBlock);
        if (rowA == null || rowB == null) {
            return null;
        }
        long[] first = rowA.followingIds();
        long[] second = rowB.followingIds();
        long[] found = AdjacencyArray.intersect(first, second, afterId, limit + 1);
        boolean hasMore = found.length > limit;
        return new CommonPage(hasMore ? Arrays.copyOf(found, limit) : found, hasMore);
    }

    /**
     * The users {@code viewerId} follows who follow {@code userId} ("followers you know"), newest first by the viewer's
     * follow. The work is bounded by the viewer's following row (at most the following cap), whatever
     * {@code userId}'s follower count: the row is walked newest first in chunks (the first {@value #FIRST_CHUNK} or
     * {@code limit + 1} candidates, then four times as many each time), and each chunk is asked "which of these follow
     * {@code userId}?" on the following side ({@link FollowingRows#whichFollow}: memory, then one statement per
     * following database), until the page is full. A celebrity's follower pages are never read.
     *
     * @param viewerId         positive user id, whose following row is read (from memory, or its shard)
     * @param userId           positive user id, whom the viewer's followees may follow
     * @param cursorFollowedAt position to continue after (ignored for the first page)
     * @param cursorId         position to continue after, or {@link Page#START}
     * @param limit            page size, {@code >= 1}
     * @param writer           the request's follow token as verified: the writer's own row is read from its shard
     * @param mayBlock         whether a shard may be read; {@code false} on an I/O thread
     * @return the page, positions in the viewer's following list; {@code null} only when {@code !mayBlock} and
     *         memory cannot answer (the viewer's row, or one of the candidates asked, is not held)
     * @throws ShardUnavailableException when a database it needs is down
     */
    public Page knownFollowers(long viewerId, long userId, long cursorFollowedAt, long cursorId, int limit,
                               long writer, boolean mayBlock) {
        FollowingRow row = row(viewerId, writer, mayBlock);
        if (row == null) {
            return null;
        }
        int want = limit + 1; // one more than the page, to learn whether more remain
        long[] ids = new long[want];
        long[] times = new long[want];
        int n = 0;
        long afterAt = cursorFollowedAt;
        long afterId = cursorId;
        int chunk = Math.max(want, FIRST_CHUNK);
        while (n < want) {
            Page candidates = AdjacencyArray.newestFirst(row.followingIds(), row.followedAt(), afterAt, afterId, chunk);
            if (candidates.isEmpty()) {
                break;
            }
            long[] ascending = candidates.ids().clone();
            Arrays.sort(ascending);
            long[] follow = rows.whichFollow(ascending, userId, writer, mayBlock);
            if (follow == null) {
                return null;
            }
            for (int i = 0; i < candidates.size() && n < want; i++) {
                if (Arrays.binarySearch(follow, candidates.ids()[i]) >= 0) {
                    ids[n] = candidates.ids()[i];
                    times[n++] = candidates.followedAt()[i];
                }
            }
            if (!candidates.hasMore()) {
                break;
            }
            afterAt = candidates.lastFollowedAt();
            afterId = candidates.lastId();
            chunk = (int) Math.min(4L * chunk, Integer.MAX_VALUE);
        }
        int size = Math.min(n, limit);
        return new Page(Arrays.copyOf(ids, size), Arrays.copyOf(times, size), n > limit);
    }

    /** The following row through the layers, or only from memory ({@code null} when absent) unless {@code mayBlock}. */
    private FollowingRow row(long followerId, long writer, boolean mayBlock) {
        return mayBlock ? rows.followingRow(followerId, writer) : rows.cachedRow(followerId, writer);
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
