package dev.socialgraph.store.follower;

import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.adjacency.Page;
import dev.socialgraph.common.adjacency.TimeOrderedAdjacency;
import dev.socialgraph.store.sql.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;

/**
 * Newest-first pages of a user's followers (or, built with the block repositories, blockers): from the follower row,
 * or for a celebrity by walking its pages from the newest down (DESIGN.md 2.2). The one reader of the paged layout
 * that {@link CelebrityPageLayout} writes and {@link FolloweeChanges} and {@link FollowerDiff} change. Stateless and
 * thread-safe.
 */
public final class FollowerPages {

    /** Pages read per query of a celebrity walk at first; doubled while the page is not full. */
    private static final int FIRST_PAGE_BATCH = 4;

    private final FollowerRepository rows;
    private final CelebrityPageRepository celebrityPages;

    /**
     * @param rows  the relation's follower rows
     * @param pages the same relation's celebrity pages
     */
    public FollowerPages(FollowerRepository rows, CelebrityPageRepository pages) {
        this.rows = rows;
        this.celebrityPages = pages;
    }

    /**
     * One newest-first page of who follows {@code followeeId}, row and pages read in one snapshot (a
     * {@code REPEATABLE READ} transaction on {@code c}, ended before returning; {@code c} is left in auto-commit).
     *
     * @param c                a connection to the followee's follower database, in auto-commit
     * @param followeeId       positive user id
     * @param cursorFollowedAt position to continue after (ignored when {@code cursorId == Page.START})
     * @param cursorId         position to continue after, or {@link Page#START}
     * @param limit            page size, {@code >= 1}
     * @return the page
     * @throws SQLException as the database reported it
     */
    public Page newestFirst(Connection c, long followeeId, long cursorFollowedAt, long cursorId, int limit)
            throws SQLException {
        return Transactions.inSnapshot(c, snapshot -> { // row and pages from one snapshot
            FollowerRow row = rows.find(snapshot, followeeId).orElseGet(() -> FollowerRow.empty(followeeId));
            return row.celebrity()
                    ? celebrityPage(snapshot, followeeId, cursorFollowedAt, cursorId, limit)
                    : TimeOrderedAdjacency.newestFirst(row.followerIds(), row.followedAt(), cursorFollowedAt,
                    cursorId, limit);
        });
    }

    /**
     * Which of {@code ids} follow {@code followeeId} on the follower side (for blocks: which of them block it): the
     * follower row's ids, or for a celebrity the pages holding one of them. Read in auto-commit.
     *
     * @param c          a connection to the followee's follower database
     * @param followeeId positive user id
     * @param ids        positive user ids, ascending
     * @return the subset of {@code ids} found, ascending; {@code ids} itself when empty
     * @throws SQLException as the database reported it
     */
    public long[] among(Connection c, long followeeId, long[] ids) throws SQLException {
        if (ids.length == 0) {
            return ids;
        }
        FollowerRow row = rows.find(c, followeeId).orElse(null);
        if (row == null || row.followerCount() == 0) {
            return new long[0];
        }
        if (!row.celebrity()) {
            return found(row.followerIds(), ids);
        }
        long[] found = new long[0];
        for (CelebrityPage page : celebrityPages.byNumberOrFollower(c, followeeId, new int[0], ids).values()) {
            long[] more = found(page.followerIds(), ids);
            long[] merged = Arrays.copyOf(found, found.length + more.length);
            System.arraycopy(more, 0, merged, found.length, more.length);
            found = merged;
        }
        Arrays.sort(found);
        return found;
    }

    /** The ids of {@code ascending} that {@code arrivalOrder} (a row or page, in arrival order) holds. */
    private static long[] found(long[] arrivalOrder, long[] ascending) {
        long[] sorted = arrivalOrder.clone();
        Arrays.sort(sorted);
        return AdjacencyArray.intersect(sorted, ascending, ascending.length);
    }

    /**
     * Walks celebrity pages newest first. Pages hold arrival order with {@code (followedAt, id)} ascending
     * across pages, so every entry of an older page comes after every entry of a newer one in newest-first
     * order and the cursor can be applied to each page alone. {@code limit + 1} entries are collected to learn
     * whether more remain.
     */
    private Page celebrityPage(Connection c, long followeeId, long cursorFollowedAt, long cursorId, int limit)
            throws SQLException {
        boolean fromStart = cursorId == Page.START;
        long atOrBefore = fromStart ? Long.MAX_VALUE : cursorFollowedAt;
        int want = limit + 1;
        long[] ids = new long[Math.min(want, 1024)];
        long[] times = new long[ids.length];
        int size = 0;
        int lastPageNum = Integer.MAX_VALUE;
        int batch = FIRST_PAGE_BATCH;
        while (size < want) {
            List<CelebrityPage> pages = celebrityPages.newestFirst(c, followeeId, atOrBefore, batch);
            boolean progressed = false;
            for (CelebrityPage p : pages) {
                if (p.pageNum() >= lastPageNum) {
                    continue; // seen in an earlier query (several pages can share a minimum time)
                }
                progressed = true;
                lastPageNum = p.pageNum();
                Page part = TimeOrderedAdjacency.newestFirst(p.followerIds(), p.followedAt(), cursorFollowedAt,
                        cursorId, want - size);
                if (size + part.size() > ids.length) {
                    int capacity = Math.max(size + part.size(), ids.length * 2);
                    ids = Arrays.copyOf(ids, capacity);
                    times = Arrays.copyOf(times, capacity);
                }
                System.arraycopy(part.ids(), 0, ids, size, part.size());
                System.arraycopy(part.followedAt(), 0, times, size, part.size());
                size += part.size();
                atOrBefore = Math.min(atOrBefore, p.minFollowedAt());
                if (size >= want) {
                    break;
                }
            }
            if (size >= want || pages.size() < batch) {
                break; // full, or the query returned every remaining page
            }
            if (!progressed) {
                batch *= 2; // every returned page shares the minimum time of one already read: widen
            }
        }
        boolean hasMore = size > limit;
        int n = Math.min(size, limit);
        return new Page(Arrays.copyOf(ids, n), Arrays.copyOf(times, n), hasMore);
    }
}
