package dev.socialgraph.common.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShardAffineRouterTest {

    private static List<String> ids(int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add("check-" + i);
        }
        return ids;
    }

    @Test
    void owner_isShardAffinitysOwnerForEveryShard() {
        for (int n = 1; n <= 8; n++) {
            List<String> ids = ids(n);
            ShardAffineRouter router = new ShardAffineRouter(ids, 256);
            for (long user = 1; user <= 1024; user++) {
                int shard = (int) (user % 256);
                assertThat(ids.get(router.owner(user))).as("user %d of %d instances", user, n)
                        .isEqualTo(ShardAffinity.owner(shard, ids));
                assertThat(router.candidate(user, 0)).isEqualTo(router.owner(user));
            }
        }
    }

    @Test
    void candidates_visitEveryInstanceOnceThenWrap() {
        List<String> ids = ids(5);
        ShardAffineRouter router = new ShardAffineRouter(ids, 256);
        for (long user = 1; user <= 256; user++) {
            Set<Integer> seen = new HashSet<>();
            for (int attempt = 0; attempt < 5; attempt++) {
                seen.add(router.candidate(user, attempt));
            }
            assertThat(seen).hasSize(5);
            assertThat(router.candidate(user, 5)).isEqualTo(router.owner(user));
            assertThat(router.candidate(user, 7)).isEqualTo(router.candidate(user, 2));
        }
    }

    /** Fail-over goes where the shard moves when its owner leaves the list: no second owner during an outage. */
    @Test
    void secondCandidate_isTheOwnerOnceTheFirstIsGone() {
        for (int n = 2; n <= 8; n++) {
            List<String> ids = ids(n);
            ShardAffineRouter router = new ShardAffineRouter(ids, 256);
            for (int shard = 0; shard < 256; shard++) {
                List<String> without = new ArrayList<>(ids);
                without.remove(ids.get(router.owner(shard)));
                assertThat(ids.get(router.candidate(shard, 1))).as("shard %d of %d", shard, n)
                        .isEqualTo(ShardAffinity.owner(shard, without));
            }
        }
    }

    @Test
    void logicalShard_isTheFloorModOfTheShardMap() {
        ShardAffineRouter router = new ShardAffineRouter(ids(3), 256);
        assertThat(router.logicalShard(257)).isEqualTo(1);
        assertThat(router.logicalShard(Long.MAX_VALUE)).isEqualTo(255);
        assertThat(router.logicalShard(-1)).isEqualTo(255);
    }

    @Test
    void construction_refusesBadListsAndCounts() {
        assertThatThrownBy(() -> new ShardAffineRouter(List.of("a", "a"), 256))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a' appears twice");
        assertThatThrownBy(() -> new ShardAffineRouter(List.of(), 256))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> new ShardAffineRouter(List.of("a"), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(">= 1");
        assertThatThrownBy(() -> new ShardAffineRouter(List.of("a"), 256).candidate(1, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(">= 0");
    }
}
