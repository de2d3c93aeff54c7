package dev.socialgraph.store.follower;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.adjacency.TimeOrderedAdjacency;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class CelebrityPageLayoutTest {

    private static final long FOLLOWEE = 7;

    private static long[] a(long... v) {
        return v;
    }

    private static CelebrityPage page(int num, long[] ids, long[] times) {
        return new CelebrityPage(FOLLOWEE, num, ids, times);
    }

    private static CelebrityPageHeader header(int num, int size, long firstId, long firstFollowedAt) {
        return new CelebrityPageHeader(num, size, firstId, firstFollowedAt);
    }

    @Test
    void reachesThreshold_atTheThresholdAndAbove_notBelow() {
        assertThat(CelebrityPageLayout.reachesThreshold(4, 5)).isFalse();
        assertThat(CelebrityPageLayout.reachesThreshold(5, 5)).isTrue();
        assertThat(CelebrityPageLayout.reachesThreshold(6, 5)).isTrue();
        assertThat(CelebrityPageLayout.reachesThreshold(0, 1)).isFalse();
    }

    @Test
    void pageBounds_cutsIntoFullPagesAndARemainder() {
        assertThat(CelebrityPageLayout.pageBounds(7, 3)).containsExactly(0, 3, 6, 7);
        assertThat(CelebrityPageLayout.pageBounds(6, 3)).containsExactly(0, 3, 6);
        assertThat(CelebrityPageLayout.pageBounds(2, 3)).containsExactly(0, 2);
        assertThat(CelebrityPageLayout.pageBounds(0, 3)).containsExactly(0);
        assertThat(CelebrityPageLayout.pageBounds(Integer.MAX_VALUE, Integer.MAX_VALUE - 1))
                .containsExactly(0, Integer.MAX_VALUE - 1, Integer.MAX_VALUE);
    }

    @Test
    void pageBounds_refusesANonPositivePageSizeOrNegativeEntries() {
        assertThatThrownBy(() -> CelebrityPageLayout.pageBounds(5, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pageSize");
        assertThatThrownBy(() -> CelebrityPageLayout.pageBounds(-1, 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("entries");
    }

    @Test
    void cut_numbersPagesFromTheFirstNumberInArrivalOrder() {
        List<CelebrityPage> pages = CelebrityPageLayout.cut(FOLLOWEE, 4, a(11, 12, 13, 14, 15), a(1, 2, 3, 4, 5), 2);

        assertThat(pages).containsExactly(
                page(4, a(11, 12), a(1, 2)),
                page(5, a(13, 14), a(3, 4)),
                page(6, a(15), a(5)));
    }

    @Test
    void cut_ofNoFollowers_isNoPage() {
        assertThat(CelebrityPageLayout.cut(FOLLOWEE, 0, a(), a(), 3)).isEmpty();
    }

    @Test
    void cut_refusesMisalignedArrays() {
        assertThatThrownBy(() -> CelebrityPageLayout.cut(FOLLOWEE, 0, a(1, 2), a(1), 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("aligned");
    }

    @Test
    void targetPage_isThePageWhoseRangeTheEntryFallsInOrExtends() {
        List<CelebrityPageHeader> headers = List.of(header(0, 2, 1, 100), header(1, 2, 5, 300));

        assertThat(CelebrityPageLayout.targetPage(headers, 350, 9)).isEqualTo(1); // extends the newest page
        assertThat(CelebrityPageLayout.targetPage(headers, 200, 9)).isEqualTo(0); // a late follow in page 0's range
        assertThat(CelebrityPageLayout.targetPage(headers, 50, 9)).isEqualTo(0);  // older than every page
    }

    @Test
    void targetPage_ordersEqualTimesById() {
        List<CelebrityPageHeader> headers = List.of(header(0, 2, 1, 100), header(1, 2, 5, 300));

        assertThat(CelebrityPageLayout.targetPage(headers, 300, 4)).isEqualTo(0);
        assertThat(CelebrityPageLayout.targetPage(headers, 300, 5)).isEqualTo(1);
        assertThat(CelebrityPageLayout.targetPage(headers, 300, 6)).isEqualTo(1);
    }

    @Test
    void targetPage_skipsEmptyPages() {
        List<CelebrityPageHeader> headers = List.of(header(0, 0, 0, 0), header(3, 1, 5, 100), header(4, 0, 0, 0));

        assertThat(CelebrityPageLayout.targetPage(headers, 50, 9)).isEqualTo(1);
        assertThat(CelebrityPageLayout.targetPage(headers, 500, 9)).isEqualTo(1);
    }

    @Test
    void targetPage_whenNoPageHasEntries_isMinusOne_butTargetOrLastPageIsTheLastPage() {
        List<CelebrityPageHeader> empties = List.of(header(2, 0, 0, 0), header(5, 0, 0, 0));

        assertThat(CelebrityPageLayout.targetPage(empties, 50, 9)).isEqualTo(-1);
        assertThat(CelebrityPageLayout.targetOrLastPage(empties, 50, 9)).isEqualTo(1);
        assertThat(CelebrityPageLayout.targetPage(List.of(), 50, 9)).isEqualTo(-1);
        assertThat(CelebrityPageLayout.targetOrLastPage(List.of(), 50, 9)).isEqualTo(-1);
        assertThat(CelebrityPageLayout.targetOrLastPage(List.of(header(0, 1, 5, 100), header(1, 0, 0, 0)), 50, 9))
                .isEqualTo(0);
    }

    @Test
    void insert_placesTheEntryAtItsTimePosition_andMayPassThePageSize() {
        CelebrityPage before = page(2, a(11, 13), a(100, 300));

        CelebrityPage after = CelebrityPageLayout.insert(before, 12, 200);

        assertThat(after).isEqualTo(page(2, a(11, 12, 13), a(100, 200, 300)));
        assertThat(before.followerIds()).containsExactly(11, 13);
    }

    @Test
    void insert_ofAFollowerAlreadyOnThePage_returnsThePageItself() {
        CelebrityPage before = page(2, a(11, 13), a(100, 300));

        assertThat(CelebrityPageLayout.insert(before, 13, 999)).isSameAs(before);
    }

    @Test
    void remove_takesOnlyTheExactEntry() {
        CelebrityPage before = page(0, a(11, 12), a(100, 200));

        assertThat(CelebrityPageLayout.remove(before, 12, 200)).isEqualTo(page(0, a(11), a(100)));
        assertThat(CelebrityPageLayout.remove(before, 12, 201)).isSameAs(before);
        assertThat(CelebrityPageLayout.remove(before, 13, 200)).isSameAs(before);
        assertThat(CelebrityPageLayout.remove(page(0, a(11), a(100)), 11, 100)).isEqualTo(page(0, a(), a()));
    }

    @Test
    void change_removesFirstThenAdds_soAFollowerMovesWithinThePage() {
        CelebrityPage before = page(1, a(11, 12, 13), a(100, 200, 300));

        CelebrityPage after = CelebrityPageLayout.change(before, a(11, 13), a(100, 300), a(11, 14), a(400, 250));

        assertThat(after).isEqualTo(page(1, a(12, 14, 11), a(200, 250, 400)));
    }

    @Test
    void change_withoutNetEffect_returnsThePageItself() {
        CelebrityPage before = page(1, a(11, 12), a(100, 200));

        assertThat(CelebrityPageLayout.change(before, a(12), a(999), a(11), a(500))).isSameAs(before);
        assertThat(CelebrityPageLayout.change(before, a(), a(), a(), a())).isSameAs(before);
    }

    @Test
    void split_keepsTheNumberForTheFirstPartAndNumbersTheRestFromTheNextNumber() {
        CelebrityPage big = page(3, a(11, 12, 13, 14, 15), a(1, 2, 3, 4, 5));

        assertThat(CelebrityPageLayout.split(big, 8, 2)).containsExactly(
                page(3, a(11, 12), a(1, 2)),
                page(8, a(13, 14), a(3, 4)),
                page(9, a(15), a(5)));
    }

    @Test
    void split_ofAPageWithinThePageSize_isThePageItself() {
        CelebrityPage full = page(3, a(11, 12), a(1, 2));

        assertThat(CelebrityPageLayout.split(full, 4, 2)).singleElement().isSameAs(full);
    }

    @Test
    void split_refusesToNumberNewPagesBeforeThePage() {
        CelebrityPage big = page(3, a(11, 12, 13), a(1, 2, 3));

        assertThatThrownBy(() -> CelebrityPageLayout.split(big, 3, 2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void header_ofAPage_isItsNumberSizeAndFirstEntry() {
        assertThat(CelebrityPageHeader.of(page(4, a(11, 12), a(100, 200)))).isEqualTo(header(4, 2, 11, 100));
        assertThat(CelebrityPageHeader.of(CelebrityPageLayout.emptyPage(FOLLOWEE, 5))).isEqualTo(header(5, 0, 0, 0));
    }

    /** {@link CelebrityPageLayout#change} equals a {@code remove} per removal, then an {@code insert} per addition. */
    @Test
    void change_equalsRemovesThenInserts_onRandomPages() {
        Random random = new Random(20260512);
        for (int round = 0; round < 2_000; round++) {
            TreeMap<Long, Long> entries = new TreeMap<>(); // id -> time
            int n = random.nextInt(10);
            for (int i = 0; i < n; i++) {
                entries.put(1L + random.nextInt(20), (long) random.nextInt(30));
            }
            CelebrityPage before = sortedPage(0, entries);
            int removals = random.nextInt(4);
            long[] removeIds = new long[removals];
            long[] removeTimes = new long[removals];
            for (int i = 0; i < removals; i++) {
                long id = 1 + random.nextInt(20);
                Long time = entries.get(id);
                removeIds[i] = id;
                removeTimes[i] = time != null && random.nextBoolean() ? time : random.nextInt(30);
            }
            int additions = random.nextInt(4);
            long[] addIds = new long[additions];
            long[] addTimes = new long[additions];
            for (int i = 0; i < additions; i++) {
                addIds[i] = 1 + random.nextInt(20);
                addTimes[i] = random.nextInt(30);
            }
            distinct(removeIds);
            distinct(addIds);

            CelebrityPage expected = before;
            for (int i = 0; i < removals; i++) {
                expected = CelebrityPageLayout.remove(expected, removeIds[i], removeTimes[i]);
            }
            for (int i = 0; i < additions; i++) {
                expected = CelebrityPageLayout.insert(expected, addIds[i], addTimes[i]);
            }
            CelebrityPage got = CelebrityPageLayout.change(before, removeIds, removeTimes, addIds, addTimes);

            assertThat(got).as("round %d", round).isEqualTo(expected);
            assertThat(got == before).as("round %d: unchanged is the same page", round)
                    .isEqualTo(Arrays.equals(got.followerIds(), before.followerIds())
                            && Arrays.equals(got.followedAt(), before.followedAt()));
        }
    }

    /**
     * Random follows (in time, late, and of followers already present) and exact unfollows on one followee's pages,
     * under either writer's choices: the cdc-consumer's (start a new page when no page has entries, split the newest
     * page past the page size, delete emptied pages) or the reconciler's (fill the last page, never split, keep
     * emptied pages). Afterwards the pages in page order hold exactly the model's entries, in time order, each
     * follower once.
     */
    @Test
    void operations_keepPagesInTimeOrder_underEitherWritersChoices() {
        Random random = new Random(20260513);
        for (int round = 0; round < 300; round++) {
            boolean cdc = random.nextBoolean();
            int pageSize = 1 + random.nextInt(4);
            TreeMap<Integer, CelebrityPage> pages = new TreeMap<>();
            Map<Long, Long> model = new HashMap<>(); // id -> time
            long clock = 1_000;
            for (int step = 0; step < 60; step++) {
                long id = 1 + random.nextInt(12);
                Long current = model.get(id);
                if (current == null || random.nextInt(4) == 0) {
                    long time = random.nextInt(5) == 0 ? clock - random.nextInt(40) : (clock += random.nextInt(3));
                    follow(pages, id, time, cdc, pageSize);
                    model.putIfAbsent(id, time);
                } else {
                    long time = random.nextInt(5) == 0 ? current + 1 : current; // sometimes a stale unfollow
                    unfollow(pages, id, time, cdc);
                    if (time == current) {
                        model.remove(id);
                    }
                }
                assertLayout(round, pages, model, cdc);
            }
        }
    }

    private static void follow(TreeMap<Integer, CelebrityPage> pages, long id, long time, boolean cdc, int pageSize) {
        for (CelebrityPage p : pages.values()) {
            if (TimeOrderedAdjacency.indexOf(p.followerIds(), id) >= 0) {
                return; // a follow of a follower on any page is a no-op
            }
        }
        List<CelebrityPage> ordered = new ArrayList<>(pages.values());
        List<CelebrityPageHeader> headers = ordered.stream().map(CelebrityPageHeader::of).toList();
        int next = pages.isEmpty() ? 0 : pages.lastKey() + 1;
        int target = cdc ? CelebrityPageLayout.targetPage(headers, time, id)
                : CelebrityPageLayout.targetOrLastPage(headers, time, id);
        if (target < 0) {
            CelebrityPage fresh = CelebrityPageLayout.insert(CelebrityPageLayout.emptyPage(FOLLOWEE, next), id, time);
            pages.put(fresh.pageNum(), fresh);
            return;
        }
        CelebrityPage changed = CelebrityPageLayout.insert(ordered.get(target), id, time);
        if (cdc && changed.pageNum() == pages.lastKey()) {
            CelebrityPageLayout.split(changed, next, pageSize).forEach(p -> pages.put(p.pageNum(), p));
        } else {
            pages.put(changed.pageNum(), changed);
        }
    }

    private static void unfollow(TreeMap<Integer, CelebrityPage> pages, long id, long time, boolean cdc) {
        for (CelebrityPage p : new ArrayList<>(pages.values())) {
            CelebrityPage changed = CelebrityPageLayout.remove(p, id, time);
            if (changed.followerIds().length == 0 && cdc) {
                pages.remove(p.pageNum());
            } else {
                pages.put(p.pageNum(), changed);
            }
        }
    }

    private static void assertLayout(int round, TreeMap<Integer, CelebrityPage> pages, Map<Long, Long> model,
                                     boolean cdc) {
        List<long[]> all = new ArrayList<>();
        for (CelebrityPage p : pages.values()) {
            TimeOrderedAdjacency.requireWellFormed(p.followerIds(), p.followedAt());
            if (cdc) {
                assertThat(p.followerIds()).as("round %d: the cdc-consumer keeps no empty page", round).isNotEmpty();
            }
            for (int i = 0; i < p.followerIds().length; i++) {
                all.add(new long[] {p.followedAt()[i], p.followerIds()[i]});
            }
        }
        Comparator<long[]> byTimeThenId = Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]);
        TreeSet<long[]> expected = new TreeSet<>(byTimeThenId);
        model.forEach((id, time) -> expected.add(new long[] {time, id}));
        assertThat(all).as("round %d: pages in order hold the model in time order", round)
                .containsExactlyElementsOf(expected);
    }

    private static CelebrityPage sortedPage(int num, Map<Long, Long> entries) {
        List<long[]> sorted = new ArrayList<>();
        entries.forEach((id, time) -> sorted.add(new long[] {time, id}));
        sorted.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
        return page(num, sorted.stream().mapToLong(e -> e[1]).toArray(),
                sorted.stream().mapToLong(e -> e[0]).toArray());
    }

    /** Makes the ids distinct in place by bumping repeats past every id used (a net change holds each id once). */
    private static void distinct(long[] ids) {
        for (int i = 0; i < ids.length; i++) {
            for (int j = 0; j < i; j++) {
                if (ids[j] == ids[i]) {
                    ids[i] = 100 + i;
                }
            }
        }
    }
}
