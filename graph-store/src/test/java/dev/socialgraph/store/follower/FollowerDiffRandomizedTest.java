package dev.socialgraph.store.follower;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.adjacency.TimeOrderedAdjacency;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@link FollowerDiff} against a model on random rows and pages (seeded, so a failure names its seed): afterwards
 * every scope id has exactly its following edge (or nothing), every other entry is as it was, rows and pages stay
 * well formed and in time order across pages, and the count equals the entries.
 */
class FollowerDiffRandomizedTest {

    private static final long FOLLOWEE = 1;

    @Test
    void plan_agreesWithTheModel_onRandomRowsAndPages() {
        for (long seed = 0; seed < 2_000; seed++) {
            check(seed);
        }
    }

    private static void check(long seed) {
        Random random = new Random(seed);
        boolean celebrity = random.nextBoolean();
        int ids = 1 + random.nextInt(12);
        // Actual entries: random (id, time) pairs, ids may repeat (duplicates) at different times.
        TreeSet<long[]> entries = new TreeSet<>((x, y) -> x[1] != y[1] ? Long.compare(x[1], y[1])
                : Long.compare(x[0], y[0]));
        int n = random.nextInt(15);
        for (int i = 0; i < n; i++) {
            entries.add(new long[] {1 + random.nextInt(ids), random.nextInt(40)});
        }
        Map<Long, Long> expected = new HashMap<>();
        Set<Long> scope = new HashSet<>();
        for (long id = 1; id <= ids; id++) {
            if (random.nextInt(3) > 0) {
                scope.add(id);
            }
            if (random.nextBoolean()) {
                expected.put(id, (long) random.nextInt(40));
            }
        }
        List<long[]> all = new ArrayList<>(entries);
        long[] rowIds = new long[0];
        long[] rowTimes = new long[0];
        List<CelebrityPage> pages = new ArrayList<>();
        if (celebrity) {
            int pageSize = 1 + random.nextInt(4);
            List<long[]> stored = new ArrayList<>();
            for (int from = 0, num = 0; from < all.size(); from += pageSize, num++) {
                List<long[]> chunk = new ArrayList<>(all.subList(from, Math.min(all.size(), from + pageSize)));
                if (num > 0 && random.nextInt(4) == 0) {
                    // The same (id, time) at the end of one page and the start of the next: an exact duplicate.
                    chunk.addFirst(all.get(from - 1));
                }
                stored.addAll(chunk);
                pages.add(new CelebrityPage(FOLLOWEE, num, chunk.stream().mapToLong(e -> e[0]).toArray(),
                        chunk.stream().mapToLong(e -> e[1]).toArray()));
            }
            all = stored;
        } else {
            rowIds = all.stream().mapToLong(e -> e[0]).toArray();
            rowTimes = all.stream().mapToLong(e -> e[1]).toArray();
        }
        long storedCount = random.nextInt(3) == 0 ? all.size() + 1 : all.size();

        FollowerDiff.Plan plan = FollowerDiff.plan(FOLLOWEE, rowIds, rowTimes, pages, celebrity, storedCount,
                scope, expected);

        // Resulting entries, in storage order (row, then pages by number).
        List<CelebrityPage> after = new ArrayList<>(pages);
        for (CelebrityPage changed : plan.changedPages()) {
            int at = -1;
            for (int i = 0; i < after.size(); i++) {
                if (after.get(i).pageNum() == changed.pageNum()) {
                    at = i;
                }
            }
            if (at >= 0) {
                after.set(at, changed);
            } else {
                after.add(changed);
            }
        }
        TimeOrderedAdjacency.requireWellFormed(plan.rowIds(), plan.rowTimes());
        List<long[]> result = new ArrayList<>();
        for (int i = 0; i < plan.rowIds().length; i++) {
            result.add(new long[] {plan.rowIds()[i], plan.rowTimes()[i]});
        }
        long[] previous = null;
        for (CelebrityPage p : after) {
            TimeOrderedAdjacency.requireWellFormed(p.followerIds(), p.followedAt());
            for (int i = 0; i < p.followerIds().length; i++) {
                long[] e = {p.followerIds()[i], p.followedAt()[i]};
                if (previous != null) {
                    assertThat(e[1] > previous[1] || (e[1] == previous[1] && e[0] >= previous[0]))
                            .as("seed %d: pages in time order", seed).isTrue();
                }
                previous = e;
                result.add(e);
            }
        }
        if (celebrity) {
            assertThat(plan.rowIds()).as("seed %d", seed).isEmpty();
        }

        // Model: out-of-scope entries unchanged; each scope id exactly at its edge, or absent.
        List<String> want = new ArrayList<>();
        for (long[] e : all) {
            if (!scope.contains(e[0])) {
                want.add(e[0] + "@" + e[1]);
            }
        }
        for (long id : scope) {
            if (expected.containsKey(id)) {
                want.add(id + "@" + expected.get(id));
            }
        }
        List<String> got = result.stream().map(e -> e[0] + "@" + e[1]).toList();
        assertThat(got).as("seed %d", seed).containsExactlyInAnyOrderElementsOf(want);
        assertThat(plan.count()).as("seed %d", seed).isEqualTo(result.size());
        assertThat(plan.wrongCount()).as("seed %d", seed).isEqualTo(storedCount != all.size() ? 1 : 0);
        boolean changedEntries = !new HashSet<>(got).equals(new HashSet<>(all.stream()
                .map(e -> e[0] + "@" + e[1]).toList())) || got.size() != all.size();
        assertThat(plan.missing() + plan.stale() + plan.duplicate() > 0).as("seed %d", seed)
                .isEqualTo(changedEntries);
        if (!plan.changed()) {
            assertThat(plan.changedPages()).as("seed %d", seed).isEmpty();
        }
    }
}
