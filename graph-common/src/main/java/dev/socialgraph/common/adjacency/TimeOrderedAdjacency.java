package dev.socialgraph.common.adjacency;

import java.util.Arrays;

/**
 * Operations on a <b>follower row</b> (who follows one user, DESIGN.md 2.2 {@code follower_adjacency})
 * and on a <b>celebrity page</b> ({@code celebrity_followers_page}), which has the same layout.
 *
 * <p><b>Layout.</b> {@code long[] ids}: follower ids, positive, each at most once, in arrival order.
 * {@code long[] followedAt}: the epoch-millisecond follow times, aligned with {@code ids} and ascending,
 * ties ordered by id ascending; that is, the pair {@code (followedAt[i], ids[i])} is strictly ascending.
 * Both arrays are exactly sized (PostgreSQL {@code BIGINT[]}); a row holds up to 1,000,000 entries
 * before the user moves to celebrity pages of up to 100,000.
 *
 * <p><b>Why time order.</b> A newest-first page is a binary search for the cursor and a backwards walk,
 * O(log n + k), with no per-request sort of a million entries; a follow is almost always an append;
 * and an unfollow event carries the removed edge's {@code followedAt}, which locates its entry by binary
 * search. The price is that membership by id alone is a linear scan (see {@link #insert}).
 *
 * <p><b>Redelivery.</b> Events arrive at least once, in order per followee (DESIGN.md 2.4). Both
 * operations are idempotent, and {@link #remove} matches the exact edge, so replaying any prefix of
 * the event stream leaves the row as applying each event once.
 *
 * <p><b>Contract.</b> No method modifies its input arrays. Inputs are trusted to be well formed; check
 * rows read from storage with {@link #requireWellFormed}. A {@code null} array throws
 * {@link NullPointerException}. All methods are static and thread-safe.
 */
public final class TimeOrderedAdjacency {

    private static final int[] NONE = {};

    private TimeOrderedAdjacency() {
    }

    /**
     * Adds a follow by {@code id} at {@code followedAtMillis}. Idempotent by id: if {@code id} is
     * already in the row, at any time, nothing changes. Otherwise the entry goes to the sorted position
     * of {@code (followedAtMillis, id)}: normally the end (an append), earlier for a late or redelivered
     * event.
     *
     * <p>Membership is a linear scan, O(n) over up to 1,000,000 ids: the row is ordered by time, not by
     * id, and an id index would cost a sort or O(n) extra memory per row. The scan adds no asymptotic
     * cost because building the new row copies O(n) anyway. Apply many events to one row with
     * {@link #apply}, which scans once per batch rather than once per event.
     *
     * @param ids              arrival order, {@code (followedAt, id)} strictly ascending
     * @param followedAt       aligned with {@code ids}
     * @param id               the follower, positive
     * @param followedAtMillis the follow time, epoch ms
     * @return the new row with {@code changed == true}, or the same arrays with {@code changed == false}
     * @throws IllegalArgumentException if {@code id <= 0} or the arrays differ in length
     */
    public static Adjacency insert(long[] ids, long[] followedAt, long id, long followedAtMillis) {
        AdjacencyArray.requireAligned(ids, followedAt);
        AdjacencyArray.requirePositiveId(id);
        if (indexOf(ids, id) >= 0) {
            return Adjacency.unchanged(ids, followedAt);
        }
        int[] at = {-Pairs.search(ids, followedAt, followedAtMillis, id) - 1};
        return Adjacency.changed(
                rewrite(ids, NONE, 0, at, new long[] {id}, 1),
                rewrite(followedAt, NONE, 0, at, new long[] {followedAtMillis}, 1));
    }

    /**
     * Removes the follow by {@code id} that was made at {@code followedAtMillis}, if exactly that entry
     * is present; otherwise nothing changes. Binary search on {@code (followedAt, id)}, O(log n), plus
     * O(n) to copy.
     *
     * <p>Both halves must match because events are redelivered: after follow(t1), unfollow(t1),
     * follow(t2), a replayed unfollow(t1) must not remove the newer follow made at t2.
     *
     * @param ids              arrival order, {@code (followedAt, id)} strictly ascending
     * @param followedAt       aligned with {@code ids}
     * @param id               the follower
     * @param followedAtMillis the removed follow's time, epoch ms, as carried by the unfollow event
     * @return the new row with {@code changed == true} and {@code removedFollowedAt == followedAtMillis},
     *         or the same arrays with {@code changed == false}
     * @throws IllegalArgumentException if the arrays differ in length
     */
    public static Adjacency remove(long[] ids, long[] followedAt, long id, long followedAtMillis) {
        AdjacencyArray.requireAligned(ids, followedAt);
        int at = Pairs.search(ids, followedAt, followedAtMillis, id);
        if (at < 0) {
            return Adjacency.unchanged(ids, followedAt);
        }
        int[] removed = {at};
        return new Adjacency(
                rewrite(ids, removed, 1, NONE, null, 0),
                rewrite(followedAt, removed, 1, NONE, null, 0),
                true, followedAtMillis);
    }

    /**
     * Applies a batch of follows and unfollows to one row in one pass; the result equals applying
     * {@link #insert} (for {@code opIsFollow[i]}) or {@link #remove} (otherwise) with
     * {@code (opIds[i], opTimes[i])} for {@code i = 0, 1, …} in order. This is the consumer's
     * "one row rewrite per followee per batch" (DESIGN.md 4).
     *
     * <p>How: the distinct op ids are sorted (k ops, O(k log k)); one scan of the row finds which of them
     * are present and when (O(n log k), with a range check that skips most ids); the ops are then replayed
     * on that small per-id state, which is exact because every op depends only on its own id's entry; the
     * net difference is a set of removed positions and of new pairs, written into the new row with bulk
     * array copies between them (O(n)). Compare k separate inserts: O(k n) scanning and copying.
     *
     * @param ids        arrival order, {@code (followedAt, id)} strictly ascending
     * @param followedAt aligned with {@code ids}
     * @param opIds      the other user of each event (the follower), positive
     * @param opTimes    each event's follow time, epoch ms (for an unfollow: the removed follow's time)
     * @param opIsFollow {@code true} for a follow, {@code false} for an unfollow
     * @return the new row with {@code changed == true} when its content differs from the input, or the
     *         same arrays with {@code changed == false}; {@code removedFollowedAt} is always
     *         {@link Adjacency#NO_TIME}
     * @throws IllegalArgumentException if an op id is {@code <= 0}, the arrays of the row or of the ops
     *                                  differ in length, or the batch re-adds an id the row holds twice
     *                                  (a malformed row)
     */
    public static Adjacency apply(long[] ids, long[] followedAt, long[] opIds, long[] opTimes,
            boolean[] opIsFollow) {
        AdjacencyArray.requireAligned(ids, followedAt);
        int ops = opIds.length;
        if (opTimes.length != ops || opIsFollow.length != ops) {
            throw new IllegalArgumentException("opIds, opTimes and opIsFollow differ in length: "
                    + ops + ", " + opTimes.length + ", " + opIsFollow.length);
        }
        for (long id : opIds) {
            AdjacencyArray.requirePositiveId(id);
        }
        if (ops == 0) {
            return Adjacency.unchanged(ids, followedAt);
        }

        // The distinct ids the batch touches, sorted: the index of the per-id state below.
        long[] keys = touchedIds(opIds);
        int k = keys.length;

        // One scan of the row: where each touched id is now (-1: absent).
        int[] rowIndex = new int[k];
        Arrays.fill(rowIndex, -1);
        long minKey = keys[0];
        long maxKey = keys[k - 1];
        for (int i = 0; i < ids.length; i++) {
            long id = ids[i];
            if (id >= minKey && id <= maxKey) {
                int key = Arrays.binarySearch(keys, id);
                if (key >= 0) {
                    rowIndex[key] = i;
                }
            }
        }

        // Replay the ops on each id's state; this is exactly what insert/remove decide one by one.
        boolean[] present = new boolean[k];
        long[] time = new long[k];
        for (int key = 0; key < k; key++) {
            present[key] = rowIndex[key] >= 0;
            time[key] = present[key] ? followedAt[rowIndex[key]] : 0L;
        }
        replay(keys, present, time, opIds, opTimes, opIsFollow);

        // Net difference: entries that go, pairs that come (a re-follow at another time is both).
        int[] removed = new int[k];
        int removedCount = 0;
        long[] addIds = new long[k];
        long[] addTimes = new long[k];
        int addCount = 0;
        for (int key = 0; key < k; key++) {
            int at = rowIndex[key];
            boolean kept = at >= 0 && present[key] && time[key] == followedAt[at];
            if (at >= 0 && !kept) {
                removed[removedCount++] = at;
            }
            if (present[key] && !kept) {
                addIds[addCount] = keys[key];
                addTimes[addCount++] = time[key];
            }
        }
        if (removedCount == 0 && addCount == 0) {
            return Adjacency.unchanged(ids, followedAt);
        }
        Arrays.sort(removed, 0, removedCount);
        Pairs.sort(addIds, addTimes, addCount);
        int[] addAt = new int[addCount];
        for (int a = 0; a < addCount; a++) {
            // In a well-formed row never found: a new pair's id is absent or present at another time.
            int found = Pairs.search(ids, followedAt, addTimes[a], addIds[a]);
            if (found >= 0) {
                throw new IllegalArgumentException("row is malformed: id " + addIds[a] + " appears more than once");
            }
            addAt[a] = -found - 1;
        }
        return Adjacency.changed(
                rewrite(ids, removed, removedCount, addAt, addIds, addCount),
                rewrite(followedAt, removed, removedCount, addAt, addTimes, addCount));
    }

    /**
     * The distinct ids of a batch's ops, sorted ascending: the index of the per-id state {@link #replay} works on.
     * O(k log k) for k ops.
     *
     * @param opIds the other user of each event, any order, repeats allowed
     * @return a new array, exactly sized; empty for no ops
     */
    public static long[] touchedIds(long[] opIds) {
        long[] keys = opIds.clone();
        Arrays.sort(keys);
        int k = keys.length == 0 ? 0 : 1;
        for (int i = 1; i < keys.length; i++) {
            if (keys[i] != keys[k - 1]) {
                keys[k++] = keys[i];
            }
        }
        return k == keys.length ? keys : Arrays.copyOf(keys, k);
    }

    /**
     * The follower side's rule for a batch of events, on the state of each id the batch touches: a follow of an
     * absent id adds it at the follow's time, a follow of a present id (at any time) changes nothing, and an unfollow
     * removes the id only when it is present at exactly the unfollow's time, the removed follow's {@code followedAt}
     * (after follow(t1), unfollow(t1), follow(t2), a redelivered unfollow(t1) leaves the follow made at t2). The
     * events are applied in order; each depends only on its own id's state. {@link #apply} runs it for one row; a
     * writer that keeps a followee's followers in several arrays (celebrity pages) runs it on the state it found
     * across them, so both decide alike.
     *
     * @param touched    {@link #touchedIds} of {@code opIds}
     * @param present    per touched id: whether it is present before the batch; on return, whether after it
     * @param followedAt per touched id: its follow time, epoch ms, where present (ignored where absent); on return,
     *                   where present after the batch, the time it is present at
     * @param opIds      the other user of each event, each one of {@code touched}
     * @param opTimes    each event's follow time, epoch ms (for an unfollow: the removed follow's time)
     * @param opIsFollow {@code true} for a follow, {@code false} for an unfollow
     * @throws ArrayIndexOutOfBoundsException if an op id is not one of {@code touched}
     */
    public static void replay(long[] touched, boolean[] present, long[] followedAt, long[] opIds, long[] opTimes,
            boolean[] opIsFollow) {
        for (int op = 0; op < opIds.length; op++) {
            int key = Arrays.binarySearch(touched, opIds[op]);
            if (opIsFollow[op]) {
                if (!present[key]) {
                    present[key] = true;
                    followedAt[key] = opTimes[op];
                }
            } else if (present[key] && followedAt[key] == opTimes[op]) {
                present[key] = false;
            }
        }
    }

    /**
     * One newest-first page: the {@code limit} entries strictly after the cursor position
     * {@code (cursorFollowedAt, cursorId)} in the order {@code (followedAt desc, id desc)}. A binary
     * search finds the cursor (which need not still be in the row), then a backwards walk copies the page:
     * O(log n + limit), no sort per request.
     *
     * <p>For celebrity pages, call it on each page from the newest down until {@code limit} items are
     * collected; a cursor that lies before a page's first entry returns an empty page with
     * {@code hasMore == false}, meaning continue with the previous page.
     *
     * @param ids              arrival order, {@code (followedAt, id)} strictly ascending
     * @param followedAt       aligned with {@code ids}
     * @param cursorFollowedAt the last returned item's follow time, epoch ms; ignored for the first page
     * @param cursorId         the last returned item's id, or {@link Page#START} for the first page
     * @param limit            page size, {@code >= 0}
     * @return the page; {@code hasMore} says whether entries remain after its last item
     * @throws IllegalArgumentException if {@code limit < 0}, {@code cursorId < 0} or the arrays differ in length
     */
    public static Page newestFirst(long[] ids, long[] followedAt, long cursorFollowedAt, long cursorId,
            int limit) {
        AdjacencyArray.requireAligned(ids, followedAt);
        AdjacencyArray.requirePageArguments(cursorId, limit);
        int end; // entries [0, end) come after the cursor in newest-first order
        if (cursorId == Page.START) {
            end = ids.length;
        } else {
            int found = Pairs.search(ids, followedAt, cursorFollowedAt, cursorId);
            end = found >= 0 ? found : -found - 1;
        }
        int size = Math.min(limit, end);
        long[] pageIds = new long[size];
        long[] pageTimes = new long[size];
        for (int i = 0; i < size; i++) {
            pageIds[i] = ids[end - 1 - i];
            pageTimes[i] = followedAt[end - 1 - i];
        }
        return new Page(pageIds, pageTimes, end > size);
    }

    /**
     * The first newest-first page: {@code newestFirst(ids, followedAt, 0, Page.START, limit)}.
     *
     * @param ids        arrival order, {@code (followedAt, id)} strictly ascending
     * @param followedAt aligned with {@code ids}
     * @param limit      page size, {@code >= 0}
     * @return the newest {@code limit} entries; {@code hasMore} says whether others remain
     * @throws IllegalArgumentException if {@code limit < 0} or the arrays differ in length
     */
    public static Page newestFirst(long[] ids, long[] followedAt, int limit) {
        return newestFirst(ids, followedAt, 0L, Page.START, limit);
    }

    /**
     * Whether the row or page holds exactly the edge {@code (followedAtMillis, id)}: binary search on the time
     * order, O(log n). The reconciler's question: is this follow, with this time, on the follower side?
     *
     * @param ids              time-ordered ids
     * @param followedAt       aligned times, {@code (followedAt, id)} strictly ascending
     * @param id               the follower
     * @param followedAtMillis the follow time, epoch ms
     * @return whether that exact pair is present
     */
    public static boolean contains(long[] ids, long[] followedAt, long id, long followedAtMillis) {
        return Pairs.search(ids, followedAt, followedAtMillis, id) >= 0;
    }

    /**
     * Index of {@code id} in the row, or {@code -1}: a linear scan, O(n), because the row is ordered by
     * time. For many lookups in one row, prefer {@link #apply} or an index built once.
     *
     * @param ids any order
     * @param id  any value
     * @return the first index holding {@code id}, or {@code -1}
     */
    public static int indexOf(long[] ids, long id) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == id) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Checks the layout invariants of a row or page read from storage, in O(n): equal lengths, ids
     * positive, {@code (followedAt, id)} strictly ascending. That ids are unique is not checked (it would
     * need a sort of a copy); the write path guarantees it through {@link #insert} and {@link #apply}.
     *
     * @param ids        the row's ids
     * @param followedAt the row's follow times
     * @throws IllegalArgumentException naming the first offending index
     */
    public static void requireWellFormed(long[] ids, long[] followedAt) {
        AdjacencyArray.requireAligned(ids, followedAt);
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] <= 0) {
                throw new IllegalArgumentException("ids[" + i + "] = " + ids[i] + " is not a positive user id");
            }
            if (i > 0 && Pairs.compare(followedAt[i - 1], ids[i - 1], followedAt[i], ids[i]) >= 0) {
                throw new IllegalArgumentException("(followedAt, id) not strictly ascending at index " + i
                        + ": (" + followedAt[i - 1] + ", " + ids[i - 1] + ") then (" + followedAt[i] + ", "
                        + ids[i] + ")");
            }
        }
    }

    /**
     * Builds {@code source} minus the entries at {@code removed[0, removedCount)} (ascending) plus
     * {@code added[a]} inserted before source index {@code addAt[a]} (ascending, in {@code added} order),
     * copying the unchanged runs in bulk with {@link System#arraycopy}. Called once for each of a row's
     * two arrays with the same positions, so they stay aligned.
     */
    private static long[] rewrite(long[] source, int[] removed, int removedCount, int[] addAt, long[] added,
            int addCount) {
        long[] out = new long[source.length - removedCount + addCount];
        int src = 0;
        int dst = 0;
        int r = 0;
        int a = 0;
        while (r < removedCount || a < addCount) {
            int nextRemoved = r < removedCount ? removed[r] : Integer.MAX_VALUE;
            int nextAdded = a < addCount ? addAt[a] : Integer.MAX_VALUE;
            if (nextAdded <= nextRemoved) {
                // Insert before source[nextAdded]; on a tie the removed entry follows and is then skipped.
                int run = nextAdded - src;
                System.arraycopy(source, src, out, dst, run);
                dst += run;
                src = nextAdded;
                out[dst++] = added[a++];
            } else {
                int run = nextRemoved - src;
                System.arraycopy(source, src, out, dst, run);
                dst += run;
                src = nextRemoved + 1;
                r++;
            }
        }
        System.arraycopy(source, src, out, dst, source.length - src);
        return out;
    }
}
