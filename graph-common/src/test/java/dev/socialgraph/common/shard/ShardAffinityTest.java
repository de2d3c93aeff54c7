package dev.socialgraph.common.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShardAffinityTest {

    private static List<String> ids(int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add("follow-check-service-" + i);
        }
        return ids;
    }

    @Test
    void ownedShards_partitionEveryShardExactlyOnce() {
        for (int n = 1; n <= 8; n++) {
            List<String> ids = ids(n);
            int[] owners = new int[256];
            for (String id : ids) {
                BitSet owned = ShardAffinity.ownedShards(id, ids, 256);
                assertThat(owned.length()).isLessThanOrEqualTo(256);
                owned.stream().forEach(s -> owners[s]++);
                owned.stream().forEach(s -> assertThat(ShardAffinity.owner(s, ids)).isEqualTo(id));
            }
            for (int s = 0; s < 256; s++) {
                assertThat(owners[s]).as("owners of shard %d among %d instances", s, n).isEqualTo(1);
            }
        }
    }

    @Test
    void ownedShards_areBalancedAcrossTwoToEightInstances() {
        for (int n = 2; n <= 8; n++) {
            List<String> ids = ids(n);
            double mean = 256.0 / n;
            for (String id : ids) {
                int owned = ShardAffinity.ownedShards(id, ids, 256).cardinality();
                // A binomial(256, 1/n) count is within about 3 standard deviations (at most 24 shards) of its mean;
                // half to one and a half times the mean is that bound, rounded out, for every n here.
                assertThat(owned).as("%s of %d", id, n).isBetween((int) (mean * 0.5), (int) Math.ceil(mean * 1.5));
            }
        }
    }

    @Test
    void ownedShards_overManyShards_areWithinTenPercentOfAnEvenSplit() {
        List<String> ids = ids(5);
        for (String id : ids) {
            int owned = ShardAffinity.ownedShards(id, ids, 65536).cardinality();
            assertThat(owned).as(id).isBetween((int) (65536 / 5 * 0.9), (int) (65536 / 5 * 1.1));
        }
    }

    @Test
    void removingAnInstance_movesOnlyTheShardsItOwned() {
        for (int n = 2; n <= 8; n++) {
            List<String> before = ids(n);
            for (String removed : before) {
                List<String> after = new ArrayList<>(before);
                after.remove(removed);
                for (int s = 0; s < 256; s++) {
                    String was = ShardAffinity.owner(s, before);
                    String now = ShardAffinity.owner(s, after);
                    if (!was.equals(removed)) {
                        assertThat(now).as("shard %d after removing %s", s, removed).isEqualTo(was);
                    }
                }
            }
        }
    }

    @Test
    void addingAnInstance_movesShardsOnlyToIt() {
        List<String> before = ids(4);
        List<String> after = ids(5);
        int moved = 0;
        for (int s = 0; s < 256; s++) {
            String was = ShardAffinity.owner(s, before);
            String now = ShardAffinity.owner(s, after);
            if (!now.equals(was)) {
                assertThat(now).isEqualTo("follow-check-service-4");
                moved++;
            }
        }
        assertThat(moved).isBetween(25, 80); // about 256 / 5
    }

    @Test
    void owner_doesNotDependOnTheOrderOfTheIds() {
        List<String> ids = ids(6);
        List<String> reversed = new ArrayList<>(ids.reversed());
        for (int s = 0; s < 256; s++) {
            assertThat(ShardAffinity.owner(s, reversed)).isEqualTo(ShardAffinity.owner(s, ids));
        }
    }

    /** Pins the hash: a change re-assigns shards during a rolling deploy, so it must be deliberate. */
    @Test
    void owner_isAFixedFunctionOfShardAndIds() {
        List<String> ids = List.of("check-a", "check-b", "check-c");
        String[] expected = EXPECTED_OWNERS;
        String[] actual = new String[expected.length];
        for (int s = 0; s < expected.length; s++) {
            actual[s] = ShardAffinity.owner(s, ids);
        }
        assertThat(actual).containsExactly(expected);
        assertThat(ShardAffinity.hash("check-a")).isEqualTo(EXPECTED_HASH_CHECK_A);
    }

    private static final String[] EXPECTED_OWNERS = {
            "check-a", "check-b", "check-c", "check-c", "check-c", "check-c", "check-a", "check-a",
            "check-a", "check-a", "check-b", "check-b", "check-a", "check-b", "check-b", "check-a"};
    private static final long EXPECTED_HASH_CHECK_A = -6246986439842113070L;

    @Test
    void ids_mustBeNonEmptyNonBlankAndDistinct() {
        assertThatThrownBy(() -> ShardAffinity.owner(0, List.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> ShardAffinity.owner(0, List.of("a", " "))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank");
        assertThatThrownBy(() -> ShardAffinity.owner(0, List.of("a", "b", "a")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a' appears twice");
        assertThatThrownBy(() -> ShardAffinity.owner(-1, List.of("a"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(">= 0");
        assertThatThrownBy(() -> ShardAffinity.ownedShards("c", List.of("a", "b"), 256))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'c' is not one of");
        assertThatThrownBy(() -> ShardAffinity.ownedShards("a", List.of("a"), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(">= 1");
    }

    @Test
    void ranking_startsWithTheOwnerAndDropsARemovedInstanceWithoutReordering() {
        for (int n = 1; n <= 8; n++) {
            List<String> ids = ids(n);
            for (int s = 0; s < 256; s++) {
                int[] ranking = ShardAffinity.ranking(s, ids);
                assertThat(ranking).hasSize(n);
                assertThat(ids.get(ranking[0])).isEqualTo(ShardAffinity.owner(s, ids));
                assertThat(java.util.Arrays.stream(ranking).distinct().count()).isEqualTo(n);
                if (n > 1) {
                    List<String> without = new ArrayList<>(ids);
                    without.remove(ids.get(ranking[0]));
                    List<String> rest = new ArrayList<>();
                    for (int r : ShardAffinity.ranking(s, without)) {
                        rest.add(without.get(r));
                    }
                    List<String> expected = new ArrayList<>();
                    for (int i = 1; i < n; i++) {
                        expected.add(ids.get(ranking[i]));
                    }
                    assertThat(rest).as("shard %d of %d", s, n).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void aSingleInstance_ownsEveryShard() {
        assertThat(ShardAffinity.ownedShards("only", List.of("only"), 256).cardinality()).isEqualTo(256);
    }
}
