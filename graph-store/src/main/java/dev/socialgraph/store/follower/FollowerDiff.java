package dev.socialgraph.store.follower;

import dev.socialgraph.common.adjacency.TimeOrderedAdjacency;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pure decision of a repair: given one followee's follower entries (row and celebrity pages) and, for a
 * <em>scope</em> of follower ids, the edges that exist on the following side, computes the entries the follower
 * side should hold. Only scope ids are judged; every other entry is kept as it is, so a repair of some followers
 * never touches the rest (in-flight edges are simply left out of the scope by the caller).
 *
 * <p>For each scope id {@code f} with following edge time {@code e} (or none):
 * <ul>
 *   <li>an entry {@code (f, e)} is kept once; further entries of {@code f} are duplicates;</li>
 *   <li>without an entry at {@code e}, the first entry of {@code f} is stale (the edge
 *       it records does not exist), further ones are duplicates;</li>
 *   <li>an edge without an entry at {@code e} is missing and is added at its time
 *       position: into the row, or for a celebrity into the page whose time range it extends (pages stay in
 *       arrival order; a page may grow past its nominal size by the few repaired entries).</li>
 * </ul>
 * The count becomes the number of entries afterwards; a stored count that did not match the entries before the
 * repair is a wrong count.
 *
 * <p>Pages follow graph-store's {@link CelebrityPageLayout}, with the repair's choices (the reconciler plans with it): a repair never numbers
 * or splits pages, so an entry with no non-empty page to go on fills the last page
 * ({@link CelebrityPageLayout#targetOrLastPage}; page 0 for a celebrity without pages), and emptied pages are kept
 * (empty) rather than deleted and renumbered.
 */
public final class FollowerDiff {

    /**
     * The repaired follower side of one followee.
     *
     * @param rowIds       the row's new ids (unchanged arrays when the row does not change)
     * @param rowTimes     aligned times
     * @param changedPages pages whose content changes (to upsert), possibly a new one
     * @param count        the new {@code follower_count}
     * @param missing      edges without an entry, added
     * @param stale        entries without an edge, removed
     * @param wrongCount   1 when the stored count was wrong, else 0
     * @param duplicate    repeated entries of one follower, removed
     */
    public record Plan(long[] rowIds, long[] rowTimes, List<CelebrityPage> changedPages, long count, int missing,
                int stale, int wrongCount, int duplicate) {

        /** Whether anything differs from the expected follower side. */
        public boolean changed() {
            return missing + stale + wrongCount + duplicate > 0;
        }
    }

    private FollowerDiff() {
    }

    /**
     * Plans the repair of followee {@code followeeId}.
     *
     * @param rowIds      the follower row's ids (empty when the row is absent or the followee is a celebrity)
     * @param rowTimes    aligned epoch-ms times
     * @param pages       the celebrity pages, by page number (empty when none)
     * @param celebrity   whether followers live in pages (where missing entries go)
     * @param storedCount the row's {@code follower_count}
     * @param scope       follower ids to judge
     * @param expected    for scope ids that follow the followee on the following side: epoch-ms follow time
     */
    public static Plan plan(long followeeId, long[] rowIds, long[] rowTimes, List<CelebrityPage> pages, boolean celebrity,
                     long storedCount, Set<Long> scope, Map<Long, Long> expected) {
        Set<Long> exact = new HashSet<>();
        long originalSize = rowIds.length;
        collectExact(rowIds, rowTimes, scope, expected, exact);
        for (CelebrityPage p : pages) {
            collectExact(p.followerIds(), p.followedAt(), scope, expected, exact);
            originalSize += p.followerIds().length;
        }

        Counter counter = new Counter();
        Set<Long> accounted = new HashSet<>();
        long[][] row = filter(rowIds, rowTimes, scope, expected, exact, accounted, counter);
        List<CelebrityPage> newPages = new ArrayList<>(pages.size());
        for (CelebrityPage p : pages) {
            long[][] kept = filter(p.followerIds(), p.followedAt(), scope, expected, exact, accounted, counter);
            newPages.add(new CelebrityPage(followeeId, p.pageNum(), kept[0], kept[1]));
        }

        int missing = 0;
        for (Long id : scope) {
            Long e = expected.get(id);
            if (e == null || exact.contains(id)) {
                continue;
            }
            missing++;
            if (!celebrity) {
                row = insert(row, id, e);
            } else {
                if (newPages.isEmpty()) {
                    newPages.add(CelebrityPageLayout.emptyPage(followeeId, 0));
                }
                // Pages are never numbered or split here: an entry with no non-empty page fills the last page.
                int target = CelebrityPageLayout.targetOrLastPage(headers(newPages), e, id);
                newPages.set(target, CelebrityPageLayout.insert(newPages.get(target), id, e));
            }
        }

        long size = row[0].length;
        List<CelebrityPage> changed = new ArrayList<>();
        for (int i = 0; i < newPages.size(); i++) {
            CelebrityPage page = newPages.get(i);
            size += page.followerIds().length;
            // The same arrays as read when nothing was dropped or added (filter and insert keep them then).
            if (i >= pages.size() || page.followerIds() != pages.get(i).followerIds()) {
                changed.add(page);
            }
        }
        int wrongCount = storedCount != originalSize ? 1 : 0;
        return new Plan(row[0], row[1], changed, size, missing, counter.stale, wrongCount, counter.duplicate);
    }

    private static void collectExact(long[] ids, long[] times, Set<Long> scope, Map<Long, Long> expected,
                                     Set<Long> exact) {
        for (int i = 0; i < ids.length; i++) {
            Long e = expected.get(ids[i]);
            if (e != null && e == times[i] && scope.contains(ids[i])) {
                exact.add(ids[i]);
            }
        }
    }

    /** Entries kept from one row or page; the same arrays when nothing is dropped. */
    private static long[][] filter(long[] ids, long[] times, Set<Long> scope, Map<Long, Long> expected,
                                   Set<Long> exact, Set<Long> accounted, Counter counter) {
        long[] keptIds = new long[ids.length];
        long[] keptTimes = new long[ids.length];
        int n = 0;
        for (int i = 0; i < ids.length; i++) {
            long id = ids[i];
            boolean keep;
            if (!scope.contains(id)) {
                keep = true;
            } else {
                Long e = expected.get(id);
                keep = e != null && e == times[i] && accounted.add(id);
                if (!keep) {
                    if (exact.contains(id) || !accounted.add(id)) {
                        counter.duplicate++;
                    } else {
                        counter.stale++;
                    }
                }
            }
            if (keep) {
                keptIds[n] = id;
                keptTimes[n++] = times[i];
            }
        }
        if (n == ids.length) {
            return new long[][] {ids, times};
        }
        return new long[][] {Arrays.copyOf(keptIds, n), Arrays.copyOf(keptTimes, n)};
    }

    private static long[][] insert(long[][] rowOrPage, long id, long followedAt) {
        var next = TimeOrderedAdjacency.insert(rowOrPage[0], rowOrPage[1], id, followedAt);
        return new long[][] {next.ids(), next.followedAt()};
    }

    private static List<CelebrityPageHeader> headers(List<CelebrityPage> pages) {
        List<CelebrityPageHeader> headers = new ArrayList<>(pages.size());
        for (CelebrityPage page : pages) {
            headers.add(CelebrityPageHeader.of(page));
        }
        return headers;
    }

    private static final class Counter {
        int stale;
        int duplicate;
    }
}
