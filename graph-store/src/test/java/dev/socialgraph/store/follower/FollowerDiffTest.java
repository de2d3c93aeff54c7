package dev.socialgraph.store.follower;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FollowerDiffTest {

    private static final long FOLLOWEE = 7;

    private static long[] a(long... v) {
        return v;
    }

    @Test
    void plan_whenRowAgrees_changesNothing() {
        var plan = FollowerDiff.plan(FOLLOWEE, a(1, 2), a(100, 200), List.of(), false, 2, Set.of(1L, 2L),
                Map.of(1L, 100L, 2L, 200L));

        assertThat(plan.changed()).isFalse();
        assertThat(plan.count()).isEqualTo(2);
        assertThat(plan.changedPages()).isEmpty();
    }

    @Test
    void plan_whenEntryMissing_insertsAtTimePosition() {
        var plan = FollowerDiff.plan(FOLLOWEE, a(1, 3), a(100, 300), List.of(), false, 2, Set.of(2L),
                Map.of(2L, 200L));

        assertThat(plan.missing()).isEqualTo(1);
        assertThat(plan.wrongCount()).isZero();
        assertThat(plan.rowIds()).containsExactly(1, 2, 3);
        assertThat(plan.rowTimes()).containsExactly(100, 200, 300);
        assertThat(plan.count()).isEqualTo(3);
    }

    @Test
    void plan_whenEntryHasNoEdge_removesItAsStale() {
        var plan = FollowerDiff.plan(FOLLOWEE, a(1, 2, 3), a(100, 200, 300), List.of(), false, 3, Set.of(2L),
                Map.of());

        assertThat(plan.stale()).isEqualTo(1);
        assertThat(plan.rowIds()).containsExactly(1, 3);
        assertThat(plan.rowTimes()).containsExactly(100, 300);
        assertThat(plan.count()).isEqualTo(2);
    }

    @Test
    void plan_whenEntryAtWrongTime_replacesIt() {
        var plan = FollowerDiff.plan(FOLLOWEE, a(2, 1), a(50, 100), List.of(), false, 2, Set.of(2L),
                Map.of(2L, 200L));

        assertThat(plan.stale()).isEqualTo(1);
        assertThat(plan.missing()).isEqualTo(1);
        assertThat(plan.rowIds()).containsExactly(1, 2);
        assertThat(plan.rowTimes()).containsExactly(100, 200);
    }

    @Test
    void plan_whenCountWrong_fixesOnlyTheCount() {
        var plan = FollowerDiff.plan(FOLLOWEE, a(1, 2), a(100, 200), List.of(), false, 5, Set.of(), Map.of());

        assertThat(plan.wrongCount()).isEqualTo(1);
        assertThat(plan.missing() + plan.stale() + plan.duplicate()).isZero();
        assertThat(plan.rowIds()).containsExactly(1, 2);
        assertThat(plan.count()).isEqualTo(2);
    }

    @Test
    void plan_leavesIdsOutsideTheScopeAlone() {
        // 9 has no edge, but is not in scope (e.g. in flight): kept; 2 is missing but not in scope: not added.
        var plan = FollowerDiff.plan(FOLLOWEE, a(1, 9), a(100, 900), List.of(), false, 2, Set.of(1L),
                Map.of(1L, 100L, 2L, 200L));

        assertThat(plan.changed()).isFalse();
        assertThat(plan.rowIds()).containsExactly(1, 9);
    }

    @Test
    void plan_whenIdDuplicatedAcrossPages_keepsTheOneAtTheEdgeTime() {
        List<CelebrityPage> pages = List.of(
                new CelebrityPage(FOLLOWEE, 0, a(1, 2), a(100, 200)),
                new CelebrityPage(FOLLOWEE, 1, a(3, 1), a(300, 400)));

        var plan = FollowerDiff.plan(FOLLOWEE, a(), a(), pages, true, 4, Set.of(1L), Map.of(1L, 100L));

        assertThat(plan.duplicate()).isEqualTo(1);
        assertThat(plan.stale()).isZero();
        assertThat(plan.count()).isEqualTo(3);
        assertThat(plan.changedPages()).containsExactly(new CelebrityPage(FOLLOWEE, 1, a(3), a(300)));
    }

    @Test
    void plan_whenCelebrityEntryMissing_insertsIntoThePageCoveringItsTime() {
        List<CelebrityPage> pages = List.of(
                new CelebrityPage(FOLLOWEE, 0, a(1, 3), a(100, 300)),
                new CelebrityPage(FOLLOWEE, 1, a(5, 6), a(500, 600)));

        var plan = FollowerDiff.plan(FOLLOWEE, a(), a(), pages, true, 4, Set.of(2L, 7L),
                Map.of(2L, 200L, 7L, 550L));

        assertThat(plan.missing()).isEqualTo(2);
        assertThat(plan.rowIds()).isEmpty();
        assertThat(plan.count()).isEqualTo(6);
        assertThat(plan.changedPages()).containsExactly(
                new CelebrityPage(FOLLOWEE, 0, a(1, 2, 3), a(100, 200, 300)),
                new CelebrityPage(FOLLOWEE, 1, a(5, 7, 6), a(500, 550, 600)));
    }

    @Test
    void plan_whenCelebrityHasNoPages_createsPageZero() {
        var plan = FollowerDiff.plan(FOLLOWEE, a(), a(), List.of(), true, 0, Set.of(4L), Map.of(4L, 40L));

        assertThat(plan.changedPages()).containsExactly(new CelebrityPage(FOLLOWEE, 0, a(4), a(40)));
        assertThat(plan.count()).isEqualTo(1);
    }

    @Test
    void plan_whenEntryStaleAndDuplicated_countsOneStaleAndTheRestDuplicates() {
        var plan = FollowerDiff.plan(FOLLOWEE, a(4, 4, 5), a(10, 20, 30), List.of(), false, 3, Set.of(4L), Map.of());

        assertThat(plan.stale()).isEqualTo(1);
        assertThat(plan.duplicate()).isEqualTo(1);
        assertThat(plan.rowIds()).containsExactly(5);
    }
}
