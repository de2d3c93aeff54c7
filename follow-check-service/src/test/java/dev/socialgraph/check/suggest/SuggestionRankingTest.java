package dev.socialgraph.check.suggest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class SuggestionRankingTest {

    @Test
    void rank_ordersByMutualCountThenId() {
        long[][] neighbours = {{5, 7, 9}, {7, 9}, {9, 3}, {3}};
        SuggestionRanking.Ranked r = SuggestionRanking.rank(1, new long[] {2}, neighbours, 10);
        assertThat(r.ids()).containsExactly(9, 3, 7, 5);
        assertThat(r.mutualCounts()).containsExactly(3, 2, 2, 1);
    }

    @Test
    void rank_skipsSelfAndAlreadyFollowed() {
        long[][] neighbours = {{1, 2, 4}, {1, 4, 6}};
        SuggestionRanking.Ranked r = SuggestionRanking.rank(1, new long[] {2, 6}, neighbours, 10);
        assertThat(r.ids()).containsExactly(4);
        assertThat(r.mutualCounts()).containsExactly(2);
    }

    @Test
    void rank_whenMoreCandidatesThanMax_keepsTheBest() {
        long[][] neighbours = {{10, 11, 12}, {12, 11}, {12}};
        SuggestionRanking.Ranked r = SuggestionRanking.rank(1, new long[0], neighbours, 2);
        assertThat(r.ids()).containsExactly(12, 11);
        assertThat(r.mutualCounts()).containsExactly(3, 2);
    }

    @Test
    void rank_withoutNeighboursOrMaxZero_isEmpty() {
        assertThat(SuggestionRanking.rank(1, new long[0], new long[0][], 5).size()).isZero();
        assertThat(SuggestionRanking.rank(1, new long[0], new long[][] {{2}}, 0).size()).isZero();
        assertThatThrownBy(() -> SuggestionRanking.rank(1, new long[0], new long[0][], -1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rank_matchesAMapModel_onRandomGraphs() {
        Random random = new Random(5);
        for (int round = 0; round < 200; round++) {
            long self = 1 + random.nextInt(30);
            TreeSet<Long> following = new TreeSet<>();
            for (int i = random.nextInt(10); i > 0; i--) {
                following.add(1L + random.nextInt(30));
            }
            long[][] neighbours = new long[random.nextInt(8)][];
            Map<Long, Integer> counts = new HashMap<>();
            for (int n = 0; n < neighbours.length; n++) {
                TreeSet<Long> ids = new TreeSet<>();
                for (int i = random.nextInt(12); i > 0; i--) {
                    ids.add(1L + random.nextInt(30));
                }
                neighbours[n] = ids.stream().mapToLong(Long::longValue).toArray();
                ids.forEach(id -> counts.merge(id, 1, Integer::sum));
            }
            List<long[]> expected = new ArrayList<>();
            counts.forEach((id, c) -> {
                if (id != self && !following.contains(id)) {
                    expected.add(new long[] {id, c});
                }
            });
            expected.sort((x, y) -> x[1] != y[1] ? Long.compare(y[1], x[1]) : Long.compare(x[0], y[0]));
            int max = random.nextInt(15);
            List<long[]> top = expected.subList(0, Math.min(max, expected.size()));

            SuggestionRanking.Ranked r = SuggestionRanking.rank(self,
                    following.stream().mapToLong(Long::longValue).toArray(), neighbours, max);
            assertThat(r.ids()).containsExactly(top.stream().mapToLong(p -> p[0]).toArray());
            assertThat(r.mutualCounts()).containsExactly(top.stream().mapToInt(p -> (int) p[1]).toArray());
        }
    }
}
