package dev.socialgraph.tools.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.tools.edges.EdgeList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RmatGeneratorTest {

    @Test
    void generate_givesDistinctEdgesAmongTheUsersWithoutSelfLoops() {
        EdgeList g = RmatGenerator.generate(10_000, 100_000, 10_000, 1, 1000);
        assertThat(g.size()).isEqualTo(100_000);
        Set<String> pairs = new HashSet<>();
        for (int i = 0; i < g.size(); i++) {
            assertThat(g.follower(i)).isBetween(1L, 10_000L);
            assertThat(g.followee(i)).isBetween(1L, 10_000L).isNotEqualTo(g.follower(i));
            assertThat(pairs.add(g.follower(i) + ">" + g.followee(i))).isTrue();
            assertThat(g.followedAt(i)).isEqualTo(1000 + i);
        }
    }

    @Test
    void generate_hasAHeavyTailedInDegree() {
        EdgeList g = RmatGenerator.generate(100_000, 500_000, 10_000, 7, 0);
        Map<Long, Integer> inDegree = new HashMap<>();
        for (int i = 0; i < g.size(); i++) {
            inDegree.merge(g.followee(i), 1, Integer::sum);
        }
        int max = inDegree.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
        double mean = (double) g.size() / inDegree.size();
        // A uniform graph's max in-degree would be a small multiple of the mean; R-MAT's is orders above it.
        assertThat(max).isGreaterThan((int) (50 * mean));
    }

    @Test
    void generate_ofTheLaunchersFallbackGraph_hasUsersAboveItsCelebrityThreshold() {
        // The launcher's graph when no dataset exists: generate --users 20000 --edges 200000 (seed 1),
        // imported with --celebrity-threshold 1000. Measured: max in-degree 2,642, 10 users at or above 1,000.
        EdgeList g = RmatGenerator.generate(20_000, 200_000, 10_000, 1, 0);
        Map<Long, Integer> inDegree = new HashMap<>();
        for (int i = 0; i < g.size(); i++) {
            inDegree.merge(g.followee(i), 1, Integer::sum);
        }
        long celebrities = inDegree.values().stream().filter(d -> d >= 1_000).count();
        assertThat(celebrities).isEqualTo(10);
        assertThat(inDegree.values().stream().mapToInt(Integer::intValue).max().orElseThrow()).isEqualTo(2_642);
    }

    @Test
    void generate_respectsTheFollowingCap() {
        EdgeList g = RmatGenerator.generate(1_000, 20_000, 40, 3, 0);
        Map<Long, Integer> outDegree = new HashMap<>();
        for (int i = 0; i < g.size(); i++) {
            outDegree.merge(g.follower(i), 1, Integer::sum);
        }
        assertThat(outDegree.values()).allSatisfy(d -> assertThat(d).isLessThanOrEqualTo(40));
    }

    @Test
    void generate_isDeterministicForASeed() {
        EdgeList a = RmatGenerator.generate(5_000, 10_000, 10_000, 42, 0);
        EdgeList b = RmatGenerator.generate(5_000, 10_000, 10_000, 42, 0);
        for (int i = 0; i < a.size(); i++) {
            assertThat(a.follower(i)).isEqualTo(b.follower(i));
            assertThat(a.followee(i)).isEqualTo(b.followee(i));
        }
    }

    @Test
    void generate_refusesImpossibleRequests() {
        assertThatThrownBy(() -> RmatGenerator.generate(3, 10, 10_000, 1, 0)).hasMessageContaining("cannot place");
        assertThatThrownBy(() -> RmatGenerator.generate(1L << 31, 10, 10_000, 1, 0)).hasMessageContaining("at most");
    }

    @Test
    void scatter_isABijectionOnTheScale() {
        int scale = 12;
        long mask = (1L << scale) - 1;
        Set<Long> images = new HashSet<>();
        for (long x = 0; x <= mask; x++) {
            images.add(RmatGenerator.scatter(x, mask, scale));
        }
        assertThat(images).hasSize(1 << scale);
    }
}
