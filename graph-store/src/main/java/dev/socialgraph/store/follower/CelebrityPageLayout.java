package dev.socialgraph.store.follower;

import dev.socialgraph.common.adjacency.Adjacency;
import dev.socialgraph.common.adjacency.TimeOrderedAdjacency;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The layout rules of a celebrity's followers in celebrity pages (DESIGN.md 2.2), as pure functions shared by every
 * writer of pages: the cdc-consumer (follow events), the reconciler (repairs) and the bulk importer. No I/O, and no
 * method modifies its arguments.
 *
 * <p><b>Layout.</b> A followee at or above the celebrity threshold keeps its followers in pages numbered from 0
 * (oldest). Each page has the follower row's layout: follower ids (positive user ids) in arrival order with
 * aligned epoch-ms follow times, {@code (followedAt, id)} strictly ascending. The pages continue that order in
 * page-number order: they never interleave in time, so the page an entry belongs on is found from each page's
 * first entry alone ({@link CelebrityPageHeader}). A page holds {@code pageSize} entries nominally (100,000 by
 * default); page numbers may have gaps where a page was deleted.
 *
 * <p><b>Where the writers differ</b>, deliberately, this class offers each behaviour as its own operation and the
 * caller picks:
 * <ul>
 *   <li>A followee whose followers pass the threshold ({@link #reachesThreshold}): the cdc-consumer cuts its row
 *       ({@link #cut}) when a batch brings it there and keeps the pages if it drops below again; the bulk importer
 *       cuts every followee at or above it and writes no page for one below.</li>
 *   <li>An entry with no non-empty page to go on: {@link #targetPage} answers {@code -1} and the cdc-consumer starts
 *       a new page after the highest number; {@link #targetOrLastPage} answers the last (empty) page, which the
 *       reconciler fills, so that a repair never numbers pages.</li>
 *   <li>A page that becomes empty: the cdc-consumer deletes it; the reconciler keeps it, empty, rather than
 *       renumbering. Nothing here deletes a page.</li>
 *   <li>A page above {@code pageSize}: the cdc-consumer splits its newest page ({@link #split}); a late follow that
 *       falls inside an older page's range, and any repair, may leave a page above {@code pageSize}
 *       ({@link #insert}, {@link #remove} and {@link #change} never split).</li>
 * </ul>
 *
 * <p>Thread-safe: static methods only.
 */
public final class CelebrityPageLayout {

    private static final long[] EMPTY = {};

    private CelebrityPageLayout() {
    }

    /**
     * Whether a followee with {@code followerCount} followers keeps them in celebrity pages: the count has reached the
     * threshold. The cdc-consumer moves a plain row into pages when a batch brings it there (and never moves it back);
     * the bulk importer writes pages for every followee of the file at or above it.
     *
     * @param followerCount followers of the followee, {@code >= 0}
     * @param threshold     the celebrity threshold, {@code >= 1}
     * @return {@code followerCount >= threshold}
     */
    public static boolean reachesThreshold(long followerCount, long threshold) {
        return followerCount >= threshold;
    }

    /**
     * Where {@code entries} time-ordered followers are cut into pages of {@code pageSize}: page {@code p} of the cut
     * holds entries {@code [bounds[p], bounds[p + 1])}, every page but the last exactly {@code pageSize} entries.
     *
     * @param entries  followers to cut, {@code >= 0}
     * @param pageSize entries per page, {@code >= 1}
     * @return {@code ceil(entries / pageSize) + 1} ascending offsets from 0 to {@code entries}; {@code {0}} (no page)
     *         when {@code entries == 0}
     * @throws IllegalArgumentException if {@code entries < 0} or {@code pageSize < 1}
     */
    static int[] pageBounds(int entries, int pageSize) {
        requirePageSize(pageSize);
        if (entries < 0) {
            throw new IllegalArgumentException("entries must be >= 0, was " + entries);
        }
        int pages = (int) ((entries + (long) pageSize - 1) / pageSize);
        int[] bounds = new int[pages + 1];
        for (int p = 1; p <= pages; p++) {
            bounds[p] = (int) Math.min(entries, (long) p * pageSize);
        }
        return bounds;
    }

    /**
     * Cuts a time-ordered follower list into pages of {@code pageSize} in arrival order, numbered consecutively from
     * {@code firstPageNum}: how a follower row that reaches the celebrity threshold moves into pages, and how new
     * pages are started after the newest one. The arrays are copied.
     *
     * @param followeeId   the celebrity, positive user id
     * @param firstPageNum number of the first page, {@code >= 0}
     * @param followerIds  follower ids in arrival order
     * @param followedAt   aligned epoch-ms times, {@code (followedAt, id)} strictly ascending
     * @param pageSize     entries per page, {@code >= 1}
     * @return the pages, every one but the last holding exactly {@code pageSize} entries; empty when there are no
     *         followers
     * @throws IllegalArgumentException if the arrays differ in length, {@code pageSize < 1} or
     *                                  {@code firstPageNum < 0}
     */
    public static List<CelebrityPage> cut(long followeeId, int firstPageNum, long[] followerIds, long[] followedAt,
                                          int pageSize) {
        requireAligned(followerIds, followedAt);
        int[] bounds = pageBounds(followerIds.length, pageSize);
        List<CelebrityPage> pages = new ArrayList<>(bounds.length - 1);
        for (int p = 0; p + 1 < bounds.length; p++) {
            pages.add(new CelebrityPage(followeeId, firstPageNum + p,
                    Arrays.copyOfRange(followerIds, bounds[p], bounds[p + 1]),
                    Arrays.copyOfRange(followedAt, bounds[p], bounds[p + 1])));
        }
        return pages;
    }

    /**
     * The page a new entry {@code (followedAt, followerId)} belongs on: the last non-empty page whose first entry is
     * not after it, that is the page whose time range it falls in or extends (normally the last page); an entry
     * older than every page goes on the first non-empty page. Empty pages are skipped.
     *
     * @param headers    the followee's pages in page order
     * @param followedAt the entry's follow time, epoch ms
     * @param followerId the entry's follower, positive user id (orders entries of equal times)
     * @return an index into {@code headers}, or {@code -1} when no page is non-empty (the cdc-consumer then starts a
     *         new page)
     */
    static int targetPage(List<CelebrityPageHeader> headers, long followedAt, long followerId) {
        int first = -1;
        int target = -1;
        for (int p = 0; p < headers.size(); p++) {
            CelebrityPageHeader page = headers.get(p);
            if (page.size() == 0) {
                continue;
            }
            if (first < 0) {
                first = p;
            }
            if (page.firstFollowedAt() < followedAt
                    || (page.firstFollowedAt() == followedAt && page.firstId() <= followerId)) {
                target = p;
            }
        }
        return target >= 0 ? target : first;
    }

    /**
     * As {@link #targetPage}, except that when no page is non-empty the entry goes on the last page: the reconciler
     * fills a page it emptied earlier rather than numbering a new one.
     *
     * @param headers    the followee's pages in page order
     * @param followedAt the entry's follow time, epoch ms
     * @param followerId the entry's follower, positive user id
     * @return an index into {@code headers}; {@code -1} only when {@code headers} is empty
     */
    static int targetOrLastPage(List<CelebrityPageHeader> headers, long followedAt, long followerId) {
        int target = targetPage(headers, followedAt, followerId);
        return target >= 0 ? target : headers.size() - 1;
    }

    /**
     * Inserts the entry {@code (followedAt, followerId)} at its time position on {@code page}. Idempotent by id: a
     * page that already holds {@code followerId}, at any time, is returned as it is. Never splits, so the page may
     * end above the page size.
     *
     * @param page       the page, well formed
     * @param followerId positive user id
     * @param followedAt the follow time, epoch ms
     * @return a new page of the same number, or {@code page} itself when nothing changed
     * @throws IllegalArgumentException if {@code followerId <= 0}
     */
    public static CelebrityPage insert(CelebrityPage page, long followerId, long followedAt) {
        return withContent(page, TimeOrderedAdjacency.insert(page.followerIds(), page.followedAt(), followerId,
                followedAt));
    }

    /**
     * Removes the exact entry {@code (followedAt, followerId)} from {@code page}, if present. An entry of the same
     * follower at another time stays: it records another follow, which a redelivered unfollow must not remove.
     * Never deletes the page, which may end empty.
     *
     * @param page       the page, well formed
     * @param followerId the follower
     * @param followedAt the removed follow's time, epoch ms
     * @return a new page of the same number, or {@code page} itself when the entry was not there
     */
    public static CelebrityPage remove(CelebrityPage page, long followerId, long followedAt) {
        return withContent(page, TimeOrderedAdjacency.remove(page.followerIds(), page.followedAt(), followerId,
                followedAt));
    }

    /**
     * Applies a net change to one page in one pass: the removals of exact entries first, then the additions at
     * their time positions, so that a follower moving to another time on this page is never held twice. The result
     * equals {@link #remove} of each removal followed by {@link #insert} of each addition, in O(n + k log k) for a
     * page of n entries and k changes rather than O(k n). Never splits and never deletes: the page may end empty or
     * above the page size, which the caller settles.
     *
     * @param page        the page, well formed
     * @param removeIds   followers of the entries to remove
     * @param removeTimes aligned epoch-ms times of the entries to remove
     * @param addIds      followers to add, positive user ids
     * @param addTimes    aligned epoch-ms times of the entries to add
     * @return a new page of the same number, or {@code page} itself when nothing changed
     * @throws IllegalArgumentException if paired arrays differ in length, an id is not positive, or the page holds
     *                                  an added id twice (a malformed page)
     */
    public static CelebrityPage change(CelebrityPage page, long[] removeIds, long[] removeTimes, long[] addIds,
                                       long[] addTimes) {
        requireAligned(removeIds, removeTimes);
        requireAligned(addIds, addTimes);
        int removals = removeIds.length;
        int ops = removals + addIds.length;
        long[] opIds = Arrays.copyOf(removeIds, ops);
        long[] opTimes = Arrays.copyOf(removeTimes, ops);
        System.arraycopy(addIds, 0, opIds, removals, addIds.length);
        System.arraycopy(addTimes, 0, opTimes, removals, addTimes.length);
        boolean[] opIsFollow = new boolean[ops];
        Arrays.fill(opIsFollow, removals, ops, true);
        return withContent(page, TimeOrderedAdjacency.apply(page.followerIds(), page.followedAt(), opIds, opTimes,
                opIsFollow));
    }

    /**
     * Splits a page that passed {@code pageSize} into pages of {@code pageSize} in arrival order: the first keeps
     * the page's number, the others are numbered {@code nextPageNum, nextPageNum + 1, ...}, which must be above
     * every existing page's number so that pages stay in time order. The cdc-consumer splits its newest page this
     * way; older pages are never split.
     *
     * @param page        the page, well formed
     * @param nextPageNum number of the first new page, above {@code page.pageNum()}
     * @param pageSize    entries per page, {@code >= 1}
     * @return the pages in arrival order; {@code page} alone, as it is, when it holds at most {@code pageSize}
     * @throws IllegalArgumentException if {@code pageSize < 1}, or the page must split and
     *                                  {@code nextPageNum <= page.pageNum()}
     */
    public static List<CelebrityPage> split(CelebrityPage page, int nextPageNum, int pageSize) {
        requirePageSize(pageSize);
        if (page.followerIds().length <= pageSize) {
            return List.of(page);
        }
        if (nextPageNum <= page.pageNum()) {
            throw new IllegalArgumentException("new pages must come after page " + page.pageNum() + ", got "
                    + nextPageNum);
        }
        List<CelebrityPage> cut = cut(page.followeeId(), page.pageNum(), page.followerIds(), page.followedAt(),
                pageSize);
        List<CelebrityPage> pages = new ArrayList<>(cut.size());
        pages.add(cut.getFirst());
        for (int c = 1; c < cut.size(); c++) {
            CelebrityPage chunk = cut.get(c);
            pages.add(new CelebrityPage(page.followeeId(), nextPageNum + c - 1, chunk.followerIds(),
                    chunk.followedAt()));
        }
        return pages;
    }

    /**
     * An empty page, for a followee that has no page to add to.
     *
     * @param followeeId the celebrity, positive user id
     * @param pageNum    page number, {@code >= 0}
     * @return a page without entries
     * @throws IllegalArgumentException if {@code pageNum < 0}
     */
    static CelebrityPage emptyPage(long followeeId, int pageNum) {
        return new CelebrityPage(followeeId, pageNum, EMPTY, EMPTY);
    }

    private static CelebrityPage withContent(CelebrityPage page, Adjacency next) {
        return next.changed()
                ? new CelebrityPage(page.followeeId(), page.pageNum(), next.ids(), next.followedAt())
                : page;
    }

    private static void requirePageSize(int pageSize) {
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be >= 1, was " + pageSize);
        }
    }

    private static void requireAligned(long[] ids, long[] followedAt) {
        if (ids.length != followedAt.length) {
            throw new IllegalArgumentException("ids and followedAt must be aligned: " + ids.length + " != "
                    + followedAt.length);
        }
    }
}
