package dev.socialgraph.common.adjacency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.NoSuchElementException;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class AdjacencyArrayTest {

    private static final long[] IDS = {3, 7, 9, 42};
    private static final long[] TIMES = {1_000, 4_000, 2_000, 4_000};

    @Test
    void contains_findsPresentIdsOnly() {
        assertThat(AdjacencyArray.contains(IDS, 7)).isTrue();
        assertThat(AdjacencyArray.contains(IDS, 8)).isFalse();
        assertThat(AdjacencyArray.contains(new long[0], 7)).isFalse();
        assertThat(AdjacencyArray.contains(IDS, -1)).isFalse();
    }

    @Test
    void insertId_placesInOrder_andIsIdempotent() {
        long[] ids = {3, 7, 42};
        assertThat(AdjacencyArray.insert(ids, 8)).containsExactly(3, 7, 8, 42);
        assertThat(AdjacencyArray.insert(ids, 1)).containsExactly(1, 3, 7, 42);
        assertThat(AdjacencyArray.insert(ids, 50)).containsExactly(3, 7, 42, 50);
        assertThat(AdjacencyArray.insert(new long[0], 5)).containsExactly(5);
        assertThat(AdjacencyArray.insert(ids, 7)).isSameAs(ids);
        assertThat(ids).containsExactly(3, 7, 42);
        assertThatThrownBy(() -> AdjacencyArray.insert(ids, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void removeId_dropsIt_andIsIdempotent() {
        long[] ids = {3, 7, 42};
        assertThat(AdjacencyArray.remove(ids, 7)).containsExactly(3, 42);
        assertThat(AdjacencyArray.remove(ids, 3)).containsExactly(7, 42);
        assertThat(AdjacencyArray.remove(ids, 42)).containsExactly(3, 7);
        assertThat(AdjacencyArray.remove(ids, 8)).isSameAs(ids);
        assertThat(AdjacencyArray.remove(ids, -1)).isSameAs(ids);
        assertThat(ids).containsExactly(3, 7, 42);
    }

    @Test
    void insert_whenAbsent_placesInIdOrderWithTime() {
        Adjacency result = AdjacencyArray.insert(IDS, TIMES, 8, 5_000);

        assertThat(result.changed()).isTrue();
        assertThat(result.ids()).containsExactly(3, 7, 8, 9, 42);
        assertThat(result.followedAt()).containsExactly(1_000, 4_000, 5_000, 2_000, 4_000);
        assertThat(result.removedFollowedAt()).isEqualTo(Adjacency.NO_TIME);
        assertThat(IDS).containsExactly(3, 7, 9, 42);
    }

    @Test
    void insert_atEitherEnd_andIntoEmpty() {
        assertThat(AdjacencyArray.insert(IDS, TIMES, 1, 9).ids()).containsExactly(1, 3, 7, 9, 42);
        assertThat(AdjacencyArray.insert(IDS, TIMES, Long.MAX_VALUE, 9).ids())
                .containsExactly(3, 7, 9, 42, Long.MAX_VALUE);
        Adjacency first = AdjacencyArray.insert(new long[0], new long[0], 5, 9);
        assertThat(first.ids()).containsExactly(5);
        assertThat(first.followedAt()).containsExactly(9);
    }

    @Test
    void insert_whenAlreadyPresent_returnsSameArray() {
        Adjacency result = AdjacencyArray.insert(IDS, TIMES, 9, 99_999);

        assertThat(result.changed()).isFalse();
        assertThat(result.ids()).isSameAs(IDS);
        assertThat(result.followedAt()).isSameAs(TIMES);
        assertThat(result.followedAt()[2]).isEqualTo(2_000);
    }

    @Test
    void insert_whenIdNotPositive_throws() {
        assertThatThrownBy(() -> AdjacencyArray.insert(IDS, TIMES, 0, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("id must be a positive user id, was 0");
    }

    @Test
    void insert_whenArraysMisaligned_throws() {
        assertThatThrownBy(() -> AdjacencyArray.insert(IDS, new long[3], 5, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ids and followedAt differ in length: 4 != 3");
    }

    @Test
    void remove_whenPresent_returnsRemovedFollowedAt() {
        Adjacency result = AdjacencyArray.remove(IDS, TIMES, 9);

        assertThat(result.changed()).isTrue();
        assertThat(result.ids()).containsExactly(3, 7, 42);
        assertThat(result.followedAt()).containsExactly(1_000, 4_000, 4_000);
        assertThat(result.removedFollowedAt()).isEqualTo(2_000);
    }

    @Test
    void remove_whenAbsent_returnsSameArray() {
        Adjacency result = AdjacencyArray.remove(IDS, TIMES, 8);

        assertThat(result.changed()).isFalse();
        assertThat(result.ids()).isSameAs(IDS);
        assertThat(result.removedFollowedAt()).isEqualTo(Adjacency.NO_TIME);
    }

    @Test
    void remove_lastEntry_leavesEmptyRow() {
        Adjacency result = AdjacencyArray.remove(new long[] {5}, new long[] {9}, 5);

        assertThat(result.ids()).isEmpty();
        assertThat(result.followedAt()).isEmpty();
        assertThat(result.removedFollowedAt()).isEqualTo(9);
    }

    @Test
    void intersect_similarSizes_merges() {
        long[] a = {1, 3, 5, 7, 9, 11};
        long[] b = {2, 3, 4, 7, 8, 11, 12};

        assertThat(AdjacencyArray.intersect(a, b, 10)).containsExactly(3, 7, 11);
        assertThat(AdjacencyArray.intersect(a, b, 2)).containsExactly(3, 7);
        assertThat(AdjacencyArray.intersect(a, b, 0)).isEmpty();
        assertThat(AdjacencyArray.intersect(a, b, 3, 10)).containsExactly(7, 11);
    }

    @Test
    void intersect_whenOneIsTiny_gallopsToSameAnswer() {
        long[] large = LongStream.rangeClosed(1, 10_000).map(i -> i * 2).toArray();
        long[] small = {4, 5, 1_000, 19_998, 20_000, 20_002};

        assertThat(AdjacencyArray.intersect(small, large, 10)).containsExactly(4, 1_000, 19_998, 20_000);
        assertThat(AdjacencyArray.intersect(large, small, 10)).containsExactly(4, 1_000, 19_998, 20_000);
        assertThat(AdjacencyArray.intersect(large, small, 1_000, 10)).containsExactly(19_998, 20_000);
    }

    @Test
    void intersect_whenEitherEmpty_returnsEmpty() {
        assertThat(AdjacencyArray.intersect(new long[0], IDS, 10)).isEmpty();
        assertThat(AdjacencyArray.intersect(IDS, new long[0], 10)).isEmpty();
    }

    @Test
    void intersect_whenLimitNegative_throws() {
        assertThatThrownBy(() -> AdjacencyArray.intersect(IDS, IDS, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be >= 0, was -1");
    }

    @Test
    void lowerBound_gallopsToFirstNotSmaller() {
        long[] sorted = {10, 20, 30, 40, 50, 60, 70, 80};

        assertThat(AdjacencyArray.lowerBound(sorted, 0, 5)).isEqualTo(0);
        assertThat(AdjacencyArray.lowerBound(sorted, 0, 55)).isEqualTo(5);
        assertThat(AdjacencyArray.lowerBound(sorted, 2, 80)).isEqualTo(7);
        assertThat(AdjacencyArray.lowerBound(sorted, 2, 81)).isEqualTo(8);
        assertThat(AdjacencyArray.lowerBound(sorted, 8, 1)).isEqualTo(8);
    }

    @Test
    void newestFirst_ordersByTimeThenIdDescending() {
        // (4000, 42), (4000, 7), (2000, 9), (1000, 3)
        Page first = AdjacencyArray.newestFirst(IDS, TIMES, 2);

        assertThat(first.ids()).containsExactly(42, 7);
        assertThat(first.followedAt()).containsExactly(4_000, 4_000);
        assertThat(first.hasMore()).isTrue();

        Page second = AdjacencyArray.newestFirst(IDS, TIMES, first.lastFollowedAt(), first.lastId(), 2);
        assertThat(second.ids()).containsExactly(9, 3);
        assertThat(second.hasMore()).isFalse();

        Page after = AdjacencyArray.newestFirst(IDS, TIMES, second.lastFollowedAt(), second.lastId(), 2);
        assertThat(after.isEmpty()).isTrue();
        assertThat(after.hasMore()).isFalse();
    }

    @Test
    void newestFirst_whenCursorBetweenEqualTimes_continuesByIdDescending() {
        Page page = AdjacencyArray.newestFirst(IDS, TIMES, 4_000, 40, 10);

        assertThat(page.ids()).containsExactly(7, 9, 3);
    }

    @Test
    void newestFirst_whenLimitZero_reportsMore() {
        Page page = AdjacencyArray.newestFirst(IDS, TIMES, 0);

        assertThat(page.isEmpty()).isTrue();
        assertThat(page.hasMore()).isTrue();
        assertThatThrownBy(page::lastId).isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void newestFirst_whenCursorIdNegative_throws() {
        assertThatThrownBy(() -> AdjacencyArray.newestFirst(IDS, TIMES, 1, -5, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cursorId");
    }

    @Test
    void mostRecent_breaksTiesByIdDescending() {
        assertThat(AdjacencyArray.mostRecent(IDS, TIMES, 3)).containsExactly(42, 7, 9);
        assertThat(AdjacencyArray.mostRecent(IDS, TIMES, 10)).containsExactly(42, 7, 9, 3);
        assertThat(AdjacencyArray.mostRecent(IDS, TIMES, 0)).isEmpty();
    }

    @Test
    void timeOrder_pagesLikeTheRow() {
        TimeOrder order = TimeOrder.of(IDS, TIMES);

        assertThat(order.page(2)).isEqualTo(AdjacencyArray.newestFirst(IDS, TIMES, 2));
        assertThat(order.page(4_000, 7, 5).ids()).containsExactly(9, 3);
        assertThat(order.mostRecent(3)).containsExactly(42, 7, 9);
        assertThat(order.size()).isEqualTo(4);
        assertThat(order.estimatedBytes()).isEqualTo(2 * (16 + 8 * 4));
    }

    @Test
    void requireWellFormed_rejectsUnsortedDuplicateOrNonPositiveIds() {
        AdjacencyArray.requireWellFormed(IDS, TIMES);

        assertThatThrownBy(() -> AdjacencyArray.requireWellFormed(new long[] {3, 3}, new long[2]))
                .hasMessage("ids not strictly ascending at index 1: 3 then 3");
        assertThatThrownBy(() -> AdjacencyArray.requireWellFormed(new long[] {5, 4}, new long[2]))
                .hasMessage("ids not strictly ascending at index 1: 5 then 4");
        assertThatThrownBy(() -> AdjacencyArray.requireWellFormed(new long[] {-1, 4}, new long[2]))
                .hasMessage("ids[0] = -1 is not a positive user id");
    }

    @Test
    void adjacency_equalsByContent_andPrintsShortly() {
        Adjacency a = new Adjacency(new long[] {1, 2}, new long[] {5, 6}, true, Adjacency.NO_TIME);
        Adjacency b = new Adjacency(new long[] {1, 2}, new long[] {5, 6}, true, Adjacency.NO_TIME);
        long[] many = LongStream.rangeClosed(1, 1_000).toArray();

        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a.size()).isEqualTo(2);
        assertThat(new Adjacency(many, many, false, Adjacency.NO_TIME).toString()).hasSizeLessThan(200);
    }
}
