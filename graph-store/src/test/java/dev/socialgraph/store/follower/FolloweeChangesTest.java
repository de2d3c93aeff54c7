package dev.socialgraph.store.follower;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class FolloweeChangesTest {

    private static final long FOLLOWEE = 7;
    private static final long[] NONE = {};

    @Test
    void apply_whenCountReachesThreshold_cutsRowIntoPagesInArrivalOrder() {
        FollowerRow row = new FollowerRow(FOLLOWEE, new long[] {11, 12, 13, 14}, new long[] {1, 2, 3, 4}, 4, 4, false);

        FolloweeChanges.Result result = FolloweeChanges.apply(row, List.of(), new long[] {15}, new long[] {5},
                new boolean[] {true}, 5, 3);

        assertThat(result.changed()).isTrue();
        assertThat(result.migrated()).isTrue();
        assertThat(result.celebrity()).isTrue();
        assertThat(result.followerIds()).isEmpty();
        assertThat(result.followerCount()).isEqualTo(5);
        assertThat(result.pageUpserts()).containsExactly(
                new CelebrityPage(FOLLOWEE, 0, new long[] {11, 12, 13}, new long[] {1, 2, 3}),
                new CelebrityPage(FOLLOWEE, 1, new long[] {14, 15}, new long[] {4, 5}));
    }

    @Test
    void apply_whenFollowerAlreadyOnAnOlderPage_changesNothing() {
        FollowerRow row = new FollowerRow(FOLLOWEE, NONE, NONE, 4, 9, true);
        List<CelebrityPage> pages = List.of(
                new CelebrityPage(FOLLOWEE, 0, new long[] {11, 12, 13}, new long[] {1, 2, 3}),
                new CelebrityPage(FOLLOWEE, 1, new long[] {14}, new long[] {4}));

        FolloweeChanges.Result result = FolloweeChanges.apply(row, pages, new long[] {12}, new long[] {50},
                new boolean[] {true}, 5, 3);

        assertThat(result.changed()).isFalse();
    }

    @Test
    void apply_whenLastPageIsFull_startsANewPage() {
        FollowerRow row = new FollowerRow(FOLLOWEE, NONE, NONE, 3, 9, true);
        List<CelebrityPage> pages = List.of(new CelebrityPage(FOLLOWEE, 0, new long[] {11, 12, 13}, new long[] {1, 2, 3}));

        FolloweeChanges.Result result = FolloweeChanges.apply(row, pages, new long[] {14}, new long[] {4},
                new boolean[] {true}, 2, 3);

        assertThat(result.followerCount()).isEqualTo(4);
        assertThat(result.pageUpserts()).containsExactly(
                new CelebrityPage(FOLLOWEE, 0, new long[] {11, 12, 13}, new long[] {1, 2, 3}),
                new CelebrityPage(FOLLOWEE, 1, new long[] {14}, new long[] {4}));
    }

    @Test
    void apply_whenUnfollowEmptiesAnOldPage_deletesItAndKeepsTheExactEdgeRule() {
        FollowerRow row = new FollowerRow(FOLLOWEE, NONE, NONE, 3, 9, true);
        List<CelebrityPage> pages = List.of(
                new CelebrityPage(FOLLOWEE, 0, new long[] {11}, new long[] {1}),
                new CelebrityPage(FOLLOWEE, 1, new long[] {12, 13}, new long[] {2, 3}));

        // unfollow 11 at its time (removes), unfollow 12 at another time (a stale event: no-op)
        FolloweeChanges.Result result = FolloweeChanges.apply(row, pages, new long[] {11, 12}, new long[] {1, 99},
                new boolean[] {false, false}, 2, 3);

        assertThat(result.followerCount()).isEqualTo(2);
        assertThat(result.pageDeletes()).containsExactly(0);
        assertThat(result.pageUpserts()).isEmpty();
    }

    /**
     * Random batches against a model, loading only the pages a batch can touch: every follower exactly once across
     * row and pages, in time order.
     */
    @Test
    void apply_randomBatches_matchModelAndKeepPagesInvariant() {
        Random random = new Random(20261122);
        for (int round = 0; round < 200; round++) {
            long threshold = 2 + random.nextInt(8);
            int pageSize = 1 + random.nextInt(4);
            FollowerRow row = FollowerRow.empty(FOLLOWEE);
            Map<Integer, CelebrityPage> stored = new TreeMap<>();
            Map<Long, Long> model = new HashMap<>();
            Map<Long, Long> lastTime = new HashMap<>();
            long clock = 1000;
            for (int batch = 0; batch < 12; batch++) {
                int n = 1 + random.nextInt(8);
                long[] ids = new long[n];
                long[] times = new long[n];
                boolean[] follows = new boolean[n];
                for (int i = 0; i < n; i++) {
                    long id = 1 + random.nextInt(15);
                    ids[i] = id;
                    Long current = model.get(id);
                    if (random.nextInt(10) == 0 && lastTime.containsKey(id)) {
                        // a redelivered old event of this id
                        follows[i] = random.nextBoolean();
                        times[i] = lastTime.get(id);
                    } else if (current == null) {
                        follows[i] = true;
                        times[i] = clock += random.nextInt(3); // equal times happen
                    } else {
                        follows[i] = false;
                        times[i] = current;
                    }
                    if (follows[i] && current == null) {
                        model.put(id, times[i]);
                    } else if (!follows[i] && current != null && current == times[i]) {
                        model.remove(id);
                    }
                    lastTime.put(id, times[i]);
                }
                // Load as the consumer does: headers of all pages, in full only those the batch can touch.
                List<CelebrityPageHeader> headers = stored.values().stream().map(CelebrityPageHeader::of).toList();
                Set<Integer> toLoad = new HashSet<>();
                for (int num : FolloweeChanges.pagesToLoad(headers, ids, times, follows)) {
                    toLoad.add(num);
                }
                Map<Integer, CelebrityPage> loaded = new HashMap<>();
                for (CelebrityPage page : stored.values()) {
                    boolean holdsTouchedId = Arrays.stream(page.followerIds())
                            .anyMatch(id -> Arrays.stream(ids).anyMatch(op -> op == id));
                    if (holdsTouchedId || toLoad.contains(page.pageNum())) {
                        loaded.put(page.pageNum(), page);
                    }
                }
                FolloweeChanges.Result result = FolloweeChanges.apply(row, headers, loaded, ids, times, follows,
                        threshold, pageSize);
                if (result.changed()) {
                    result.pageDeletes().forEach(stored::remove);
                    result.pageUpserts().forEach(p -> stored.put(p.pageNum(), p));
                    row = new FollowerRow(FOLLOWEE, result.followerIds(), result.followedAt(), result.followerCount(),
                            row.version() + 1, result.celebrity());
                }
                assertState(row, stored, model);
            }
        }
    }

    private static void assertState(FollowerRow row, Map<Integer, CelebrityPage> pages, Map<Long, Long> model) {
        List<long[]> all = new ArrayList<>();
        for (int i = 0; i < row.followerIds().length; i++) {
            all.add(new long[] {row.followedAt()[i], row.followerIds()[i]});
        }
        for (CelebrityPage page : pages.values()) {
            assertThat(page.followerIds()).isNotEmpty();
            for (int i = 0; i < page.followerIds().length; i++) {
                all.add(new long[] {page.followedAt()[i], page.followerIds()[i]});
            }
        }
        TreeSet<long[]> expected = new TreeSet<>((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        model.forEach((id, time) -> expected.add(new long[] {time, id}));
        assertThat(all).containsExactlyElementsOf(expected);
        assertThat(row.followerCount()).isEqualTo(model.size());
        if (row.celebrity()) {
            assertThat(row.followerIds()).isEmpty();
        }
    }
}
