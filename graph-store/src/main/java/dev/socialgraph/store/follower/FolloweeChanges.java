package dev.socialgraph.store.follower;

import dev.socialgraph.common.adjacency.Adjacency;
import dev.socialgraph.common.adjacency.TimeOrderedAdjacency;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The new state of one followee's follower side after a batch of its events, computed in memory: the row's
 * arrays, count and celebrity flag, and the celebrity pages to write or delete. No I/O; the caller holds the
 * follower row's lock, which guards the pages too.
 *
 * <p><b>Plain row.</b> {@link TimeOrderedAdjacency#apply} does the whole batch in one pass. When the count reaches
 * the threshold the row is cut into pages of {@code pageSize} in arrival order (page 0 oldest) and the row keeps
 * only its count and version (the schema's CHECK requires its arrays empty then).
 *
 * <p><b>Celebrity.</b> The headers of every page are given (number, size, first entry), and in full only the pages
 * the batch can touch: those holding one of its ids, and those its follows may be added to ({@link #pagesToLoad}).
 * One scan over those pages finds where each id the batch touches is now, so "a follow of an id present anywhere
 * is a no-op" holds across all pages; the events are
 * replayed on that per-id state by the rule {@code apply} follows for a row, {@link TimeOrderedAdjacency#replay}
 * (remove only the exact {@code (id, followedAt)}). The net change is then applied page by page with graph-store's
 * {@link CelebrityPageLayout}: removals on the page holding the entry, additions on the page whose time range they
 * fall in ({@link CelebrityPageLayout#targetPage}), normally the last one, which splits into new pages when it
 * passes {@code pageSize}. A late follow that falls inside an older page's range is inserted there, which may
 * leave that page above {@code pageSize}; pages never interleave in time. Of the layout's choices the consumer
 * takes these: an addition with no non-empty page to go on starts a new page after the highest number, and a page
 * that becomes empty is deleted. Dropping below the threshold keeps the pages.
 */
public final class FolloweeChanges {

    private static final long[] EMPTY = {};

    private FolloweeChanges() {
    }

    /**
     * The outcome.
     *
     * @param changed        whether anything must be written (else the rest repeats the input)
     * @param followerIds    the row's ids after the batch; empty for a celebrity
     * @param followedAt     aligned follow times, epoch ms
     * @param followerCount  followers in the row or in pages
     * @param celebrity      whether the followers live in pages
     * @param migrated       whether this batch moved the row into pages
     * @param pageUpserts    pages to insert or replace
     * @param pageDeletes    page numbers to delete
     */
    public record Result(boolean changed, long[] followerIds, long[] followedAt, long followerCount, boolean celebrity,
                  boolean migrated, List<CelebrityPage> pageUpserts, List<Integer> pageDeletes) {
    }

    /**
     * Applies {@code ops} in order, with every page of a celebrity at hand.
     *
     * @param row        the locked row
     * @param pages      every page of the followee in page order (empty unless {@code row.celebrity()})
     * @param opIds      follower of each event
     * @param opTimes    followedAt of each event (for an unfollow: of the removed follow), epoch ms
     * @param opIsFollow follow or unfollow
     * @param threshold  follower count at which a plain row moves to pages
     * @param pageSize   entries per page
     */
    public static Result apply(FollowerRow row, List<CelebrityPage> pages, long[] opIds, long[] opTimes,
                        boolean[] opIsFollow, long threshold, int pageSize) {
        List<CelebrityPageHeader> headers = new ArrayList<>(pages.size());
        Map<Integer, CelebrityPage> loaded = new HashMap<>();
        for (CelebrityPage page : pages) {
            headers.add(CelebrityPageHeader.of(page));
            loaded.put(page.pageNum(), page);
        }
        return apply(row, headers, loaded, opIds, opTimes, opIsFollow, threshold, pageSize);
    }

    /**
     * Applies {@code ops} in order, with only the pages the batch can touch at hand: {@code loaded} must hold
     * every page that contains one of {@code opIds} and every page in {@link #pagesToLoad}.
     *
     * @param headers    every page of the followee, in page order (empty unless {@code row.celebrity()})
     * @param loaded     full pages by page number, a subset as above
     * @throws IllegalStateException if a page the batch changes was not loaded
     */
    public static Result apply(FollowerRow row, List<CelebrityPageHeader> headers, Map<Integer, CelebrityPage> loaded,
                        long[] opIds, long[] opTimes, boolean[] opIsFollow, long threshold, int pageSize) {
        if (!row.celebrity()) {
            Adjacency next = TimeOrderedAdjacency.apply(row.followerIds(), row.followedAt(), opIds, opTimes, opIsFollow);
            long count = next.size();
            if (CelebrityPageLayout.reachesThreshold(count, threshold)) {
                return new Result(true, EMPTY, EMPTY, count, true, true,
                        CelebrityPageLayout.cut(row.followeeId(), 0, next.ids(), next.followedAt(), pageSize),
                        List.of());
            }
            boolean changed = next.changed() || count != row.followerCount();
            return new Result(changed, next.ids(), next.followedAt(), count, false, false, List.of(), List.of());
        }
        return applyToPages(row, headers, loaded, opIds, opTimes, opIsFollow, pageSize);
    }

    /**
     * The numbers of the pages a follow of this batch may be added to (found from the headers alone), which the
     * caller must load besides the pages holding one of the batch's ids.
     */
    static int[] pagesToLoad(List<CelebrityPageHeader> headers, long[] opIds, long[] opTimes, boolean[] opIsFollow) {
        Set<Integer> nums = new TreeSet<>();
        for (int op = 0; op < opIds.length; op++) {
            if (opIsFollow[op]) {
                int target = CelebrityPageLayout.targetPage(headers, opTimes[op], opIds[op]);
                if (target >= 0) {
                    nums.add(headers.get(target).pageNum());
                }
            }
        }
        return nums.stream().mapToInt(Integer::intValue).toArray();
    }

    private static Result applyToPages(FollowerRow row, List<CelebrityPageHeader> headers,
                                       Map<Integer, CelebrityPage> loaded, long[] opIds, long[] opTimes,
                                       boolean[] opIsFollow, int pageSize) {
        int ops = opIds.length;
        if (ops == 0) {
            return new Result(false, EMPTY, EMPTY, row.followerCount(), true, false, List.of(), List.of());
        }
        long[] keys = TimeOrderedAdjacency.touchedIds(opIds);
        int k = keys.length;

        // One scan of the loaded pages (every page holding a touched id): where each touched id is now.
        int[] pageOf = new int[k]; // index into headers
        long[] timeOf = new long[k];
        Arrays.fill(pageOf, -1);
        for (int p = 0; p < headers.size(); p++) {
            CelebrityPage page = loaded.get(headers.get(p).pageNum());
            if (page == null) {
                continue;
            }
            long[] ids = page.followerIds();
            long[] times = page.followedAt();
            for (int i = 0; i < ids.length; i++) {
                if (ids[i] >= keys[0] && ids[i] <= keys[k - 1]) {
                    int key = Arrays.binarySearch(keys, ids[i]);
                    if (key >= 0) {
                        if (pageOf[key] >= 0) {
                            throw new IllegalStateException("follower " + ids[i] + " of " + row.followeeId()
                                    + " is on two celebrity pages");
                        }
                        pageOf[key] = p;
                        timeOf[key] = times[i];
                    }
                }
            }
        }

        // Replay the events on each id's state by the rule TimeOrderedAdjacency.apply follows for one row.
        boolean[] present = new boolean[k];
        long[] time = new long[k];
        for (int key = 0; key < k; key++) {
            present[key] = pageOf[key] >= 0;
            time[key] = timeOf[key];
        }
        TimeOrderedAdjacency.replay(keys, present, time, opIds, opTimes, opIsFollow);

        // Net change per page: removals where the entry is, additions where their time falls.
        List<List<long[]>> pageRemovals = new ArrayList<>(); // per page: {id, time}
        List<List<long[]>> pageAdditions = new ArrayList<>();
        for (int p = 0; p < headers.size(); p++) {
            pageRemovals.add(new ArrayList<>());
            pageAdditions.add(new ArrayList<>());
        }
        List<long[]> removals = new ArrayList<>();
        List<long[]> additions = new ArrayList<>();
        for (int key = 0; key < k; key++) {
            boolean was = pageOf[key] >= 0;
            boolean kept = was && present[key] && time[key] == timeOf[key];
            if (was && !kept) {
                removals.add(new long[] {keys[key], timeOf[key], pageOf[key]});
            }
            if (present[key] && !kept) {
                additions.add(new long[] {keys[key], time[key]});
            }
        }
        if (removals.isEmpty() && additions.isEmpty()) {
            long count = total(headers);
            boolean changed = count != row.followerCount();
            return new Result(changed, EMPTY, EMPTY, count, true, false, List.of(), List.of());
        }
        for (long[] removal : removals) {
            pageRemovals.get((int) removal[2]).add(removal);
        }
        int maxPageNum = headers.isEmpty() ? -1 : headers.getLast().pageNum();
        List<CelebrityPage> upserts = new ArrayList<>();
        List<Integer> deletes = new ArrayList<>();
        List<long[]> toNewPage = new ArrayList<>();
        for (long[] addition : additions) {
            int target = CelebrityPageLayout.targetPage(headers, addition[1], addition[0]);
            if (target < 0) {
                toNewPage.add(addition); // no page has entries: start a new one after the highest number
            } else {
                pageAdditions.get(target).add(addition);
            }
        }

        long count = 0;
        int nextPageNum = maxPageNum + 1;
        for (int p = 0; p < headers.size(); p++) {
            List<long[]> out = pageRemovals.get(p);
            List<long[]> in = pageAdditions.get(p);
            if (out.isEmpty() && in.isEmpty()) {
                count += headers.get(p).size();
                continue;
            }
            CelebrityPage page = loaded.get(headers.get(p).pageNum());
            if (page == null) {
                throw new IllegalStateException("celebrity page " + headers.get(p).pageNum() + " of "
                        + row.followeeId() + " is changed by the batch but was not loaded");
            }
            CelebrityPage next = CelebrityPageLayout.change(page, column(out, 0), column(out, 1), column(in, 0),
                    column(in, 1));
            int size = next.followerIds().length;
            count += size;
            if (size == 0) {
                deletes.add(page.pageNum());
            } else if (page.pageNum() == maxPageNum && size > pageSize) {
                // Only the newest page splits: its first part keeps its number, the rest take the next numbers.
                List<CelebrityPage> parts = CelebrityPageLayout.split(next, nextPageNum, pageSize);
                upserts.addAll(parts);
                nextPageNum += parts.size() - 1;
            } else if (next != page) {
                upserts.add(next);
            }
        }
        if (!toNewPage.isEmpty()) {
            boolean[] follows = new boolean[toNewPage.size()];
            Arrays.fill(follows, true);
            Adjacency fresh = TimeOrderedAdjacency.apply(EMPTY, EMPTY, column(toNewPage, 0), column(toNewPage, 1),
                    follows);
            count += fresh.size();
            upserts.addAll(CelebrityPageLayout.cut(row.followeeId(), nextPageNum, fresh.ids(), fresh.followedAt(),
                    pageSize));
        }
        return new Result(true, EMPTY, EMPTY, count, true, false, upserts, deletes);
    }

    private static long total(List<CelebrityPageHeader> headers) {
        long count = 0;
        for (CelebrityPageHeader page : headers) {
            count += page.size();
        }
        return count;
    }

    private static long[] column(List<long[]> ops, int column) {
        long[] values = new long[ops.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = ops.get(i)[column];
        }
        return values;
    }
}
