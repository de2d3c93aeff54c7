package dev.socialgraph.common.adjacency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TimeOrderedAdjacencyTest {

    // (1000, 8), (2000, 3), (2000, 5), (3000, 1)
    private static final long[] IDS = {8, 3, 5, 1};
    private static final long[] TIMES = {1_000, 2_000, 2_000, 3_000};

    @Test
    void insert_whenNewest_appends() {
        Adjacency result = TimeOrderedAdjacency.insert(IDS, TIMES, 2, 4_000);

        assertThat(result.changed()).isTrue();
        assertThat(result.ids()).containsExactly(8, 3, 5, 1, 2);
        assertThat(result.followedAt()).containsExactly(1_000, 2_000, 2_000, 3_000, 4_000);
    }

    @Test
    void insert_whenLateEvent_landsAtTimeThenIdPosition() {
        Adjacency result = TimeOrderedAdjacency.insert(IDS, TIMES, 4, 2_000);

        assertThat(result.ids()).containsExactly(8, 3, 4, 5, 1);
        assertThat(result.followedAt()).containsExactly(1_000, 2_000, 2_000, 2_000, 3_000);
    }

    @Test
    void insert_whenAlreadyPresentAtOtherTime_returnsSameArray() {
        Adjacency result = TimeOrderedAdjacency.insert(IDS, TIMES, 5, 9_000);

        assertThat(result.changed()).isFalse();
        assertThat(result.ids()).isSameAs(IDS);
        assertThat(result.followedAt()).isSameAs(TIMES);
    }

    @Test
    void remove_whenIdAndTimeMatch_removes() {
        Adjacency result = TimeOrderedAdjacency.remove(IDS, TIMES, 3, 2_000);

        assertThat(result.changed()).isTrue();
        assertThat(result.ids()).containsExactly(8, 5, 1);
        assertThat(result.followedAt()).containsExactly(1_000, 2_000, 3_000);
        assertThat(result.removedFollowedAt()).isEqualTo(2_000);
    }

    @Test
    void remove_whenTimeDiffers_returnsSameArray() {
        // A replayed unfollow of an older follow must not remove the newer re-follow.
        Adjacency result = TimeOrderedAdjacency.remove(IDS, TIMES, 3, 1_500);

        assertThat(result.changed()).isFalse();
        assertThat(result.ids()).isSameAs(IDS);
    }

    @Test
    void apply_followUnfollowRefollow_keepsLatestFollow() {
        Adjacency result = TimeOrderedAdjacency.apply(IDS, TIMES,
                new long[] {9, 9, 9, 3, 3, 8},
                new long[] {3_500, 3_500, 5_000, 2_000, 6_000, 7_777},
                new boolean[] {true, false, true, false, true, false});

        // 9: follow@3500, unfollow@3500, follow@5000 → (5000, 9)
        // 3: unfollow@2000 removes (2000, 3), follow@6000 → (6000, 3)
        // 8: unfollow@7777 does not match (1000, 8) → kept
        assertThat(result.changed()).isTrue();
        assertThat(result.ids()).containsExactly(8, 5, 1, 9, 3);
        assertThat(result.followedAt()).containsExactly(1_000, 2_000, 3_000, 5_000, 6_000);
    }

    @Test
    void apply_whenNetEffectIsNone_returnsSameArray() {
        Adjacency result = TimeOrderedAdjacency.apply(IDS, TIMES,
                new long[] {9, 9, 5},
                new long[] {3_500, 3_500, 2_000},
                new boolean[] {true, false, true});

        assertThat(result.changed()).isFalse();
        assertThat(result.ids()).isSameAs(IDS);
    }

    @Test
    void apply_whenNoOps_returnsSameArray() {
        Adjacency result = TimeOrderedAdjacency.apply(IDS, TIMES, new long[0], new long[0], new boolean[0]);

        assertThat(result.changed()).isFalse();
        assertThat(result.ids()).isSameAs(IDS);
    }

    @Test
    void touchedIds_areDistinctAndSorted_exactlySized() {
        assertThat(TimeOrderedAdjacency.touchedIds(new long[] {9, 3, 9, 1, 3})).containsExactly(1, 3, 9);
        assertThat(TimeOrderedAdjacency.touchedIds(new long[] {4})).containsExactly(4);
        assertThat(TimeOrderedAdjacency.touchedIds(new long[0])).isEmpty();
    }

    @Test
    void replay_followOfAPresentId_keepsItsTime() {
        long[] touched = {5};
        boolean[] present = {true};
        long[] followedAt = {2_000};

        TimeOrderedAdjacency.replay(touched, present, followedAt, new long[] {5}, new long[] {9_000}, new boolean[] {true});

        assertThat(present).containsExactly(true);
        assertThat(followedAt).containsExactly(2_000);
    }

    @Test
    void replay_unfollowAtAnotherTime_isAStaleEventAndRemovesNothing() {
        long[] touched = {3, 5};
        boolean[] present = {true, true};
        long[] followedAt = {2_000, 2_000};

        TimeOrderedAdjacency.replay(touched, present, followedAt, new long[] {3, 5}, new long[] {2_000, 1_500},
                new boolean[] {false, false});

        assertThat(present).containsExactly(false, true);
        assertThat(followedAt[1]).isEqualTo(2_000);
    }

    @Test
    void replay_redeliveredUnfollowAfterARefollow_keepsTheNewerFollow() {
        long[] touched = {9};
        boolean[] present = {false};
        long[] followedAt = {0};

        // follow(t1), unfollow(t1), follow(t2), then unfollow(t1) again
        TimeOrderedAdjacency.replay(touched, present, followedAt, new long[] {9, 9, 9, 9},
                new long[] {3_500, 3_500, 5_000, 3_500}, new boolean[] {true, false, true, false});

        assertThat(present).containsExactly(true);
        assertThat(followedAt).containsExactly(5_000);
    }

    @Test
    void replay_decidesAsApplyDoesOnARow() {
        long[] opIds = {9, 9, 9, 3, 3, 8};
        long[] opTimes = {3_500, 3_500, 5_000, 2_000, 6_000, 7_777};
        boolean[] opIsFollow = {true, false, true, false, true, false};
        long[] touched = TimeOrderedAdjacency.touchedIds(opIds); // 3, 8, 9
        boolean[] present = {true, true, false};
        long[] followedAt = {2_000, 1_000, 0};

        TimeOrderedAdjacency.replay(touched, present, followedAt, opIds, opTimes, opIsFollow);
        Adjacency row = TimeOrderedAdjacency.apply(IDS, TIMES, opIds, opTimes, opIsFollow);

        assertThat(present).containsExactly(true, true, true);
        assertThat(followedAt).containsExactly(6_000, 1_000, 5_000);
        for (int key = 0; key < touched.length; key++) {
            int at = TimeOrderedAdjacency.indexOf(row.ids(), touched[key]);
            assertThat(at >= 0).isEqualTo(present[key]);
            assertThat(row.followedAt()[at]).isEqualTo(followedAt[key]);
        }
    }

    @Test
    void apply_whenOpArraysMisaligned_throws() {
        assertThatThrownBy(() -> TimeOrderedAdjacency.apply(IDS, TIMES, new long[2], new long[2], new boolean[1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("opIds, opTimes and opIsFollow differ in length: 2, 2, 1");
    }

    @Test
    void apply_whenOpIdNotPositive_throws() {
        assertThatThrownBy(() -> TimeOrderedAdjacency.apply(IDS, TIMES, new long[] {0}, new long[1],
                new boolean[1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("id must be a positive user id, was 0");
    }

    @Test
    void apply_whenRowHoldsIdTwice_throwsInsteadOfCorrupting() {
        long[] malformedIds = {4, 4};
        long[] malformedTimes = {1_000, 2_000};

        assertThatThrownBy(() -> TimeOrderedAdjacency.apply(malformedIds, malformedTimes,
                new long[] {4, 4}, new long[] {2_000, 1_000}, new boolean[] {false, true}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("row is malformed: id 4 appears more than once");
    }

    @Test
    void newestFirst_walksBackwardsFromCursor() {
        Page first = TimeOrderedAdjacency.newestFirst(IDS, TIMES, 3);

        assertThat(first.ids()).containsExactly(1, 5, 3);
        assertThat(first.followedAt()).containsExactly(3_000, 2_000, 2_000);
        assertThat(first.hasMore()).isTrue();

        Page second = TimeOrderedAdjacency.newestFirst(IDS, TIMES, first.lastFollowedAt(), first.lastId(), 3);
        assertThat(second.ids()).containsExactly(8);
        assertThat(second.hasMore()).isFalse();
    }

    @Test
    void newestFirst_whenCursorIsOlderThanEverything_returnsEmptyPage() {
        Page page = TimeOrderedAdjacency.newestFirst(IDS, TIMES, 500, 1, 10);

        assertThat(page.isEmpty()).isTrue();
        assertThat(page.hasMore()).isFalse();
    }

    @Test
    void newestFirst_whenCursorNewerThanEverything_returnsFromNewest() {
        Page page = TimeOrderedAdjacency.newestFirst(IDS, TIMES, Long.MAX_VALUE, Long.MAX_VALUE, 2);

        assertThat(page.ids()).containsExactly(1, 5);
    }

    @Test
    void indexOf_scansForId() {
        assertThat(TimeOrderedAdjacency.indexOf(IDS, 5)).isEqualTo(2);
        assertThat(TimeOrderedAdjacency.indexOf(IDS, 6)).isEqualTo(-1);
    }

    @Test
    void requireWellFormed_rejectsOutOfOrderPairs() {
        TimeOrderedAdjacency.requireWellFormed(IDS, TIMES);

        assertThatThrownBy(() -> TimeOrderedAdjacency.requireWellFormed(new long[] {5, 3}, new long[] {7, 7}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("(followedAt, id) not strictly ascending at index 1: (7, 5) then (7, 3)");
        assertThatThrownBy(() -> TimeOrderedAdjacency.requireWellFormed(new long[] {5, 3}, new long[] {8, 7}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void contains_matchesIdAndTimeExactly() {
        long[] ids = {5, 2, 9, 1};
        long[] times = {10, 20, 20, 30};
        assertThat(TimeOrderedAdjacency.contains(ids, times, 9, 20)).isTrue();
        assertThat(TimeOrderedAdjacency.contains(ids, times, 2, 20)).isTrue();
        assertThat(TimeOrderedAdjacency.contains(ids, times, 9, 30)).isFalse();
        assertThat(TimeOrderedAdjacency.contains(ids, times, 3, 20)).isFalse();
        assertThat(TimeOrderedAdjacency.contains(new long[0], new long[0], 1, 1)).isFalse();
    }
}
