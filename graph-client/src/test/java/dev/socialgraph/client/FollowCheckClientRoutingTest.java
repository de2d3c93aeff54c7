package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.shard.ShardAffinity;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The client's instance choice against {@link ShardAffinity}, the function the gateway's load balancer and the check
 * instances use ("affinity matches the gateway's choice for every shard"), with no server. The gateway's
 * own test checks its balancer against this client directly.
 */
class FollowCheckClientRoutingTest {

    private static final List<List<String>> LISTS = List.of(
            List.of("check-0"),
            List.of("check-0", "check-1"),
            List.of("check-a", "check-b", "check-c"),
            List.of("follow-check-service-0", "follow-check-service-1", "follow-check-service-2",
                    "follow-check-service-3", "follow-check-service-4"),
            List.of("10.0.0.7:8081", "10.0.0.8:8081", "10.0.0.9:8081", "10.0.0.10:8081", "10.0.0.11:8081",
                    "10.0.0.12:8081", "10.0.0.13:8081", "10.0.0.14:8081"));

    private static FollowCheckClient client(List<String> ids) {
        FollowCheckClient.Builder b = FollowCheckClient.builder();
        for (int i = 0; i < ids.size(); i++) {
            b.instance(ids.get(i), URI.create("http://127.0.0.1:" + (18000 + i)));
        }
        return b.build();
    }

    @Test
    void firstChoice_isTheShardsOwner_forEveryLogicalShard() {
        for (List<String> ids : LISTS) {
            try (FollowCheckClient client = client(ids)) {
                for (int shard = 0; shard < 256; shard++) {
                    String owner = ShardAffinity.owner(shard, ids);
                    for (long k = 1; k <= 3; k++) {
                        long user = shard + 256 * k;
                        assertThat(client.instanceFor(user, 0)).as("user %d among %s", user, ids).isEqualTo(owner);
                    }
                    assertThat(client.instanceFor(Long.MAX_VALUE - 255 + shard, 0)).isEqualTo(owner);
                }
            }
        }
    }

    @Test
    void failOver_goesWhereTheGatewaySendsTheShardOnceTheOwnerIsGone() {
        for (List<String> ids : LISTS) {
            if (ids.size() < 2) {
                continue;
            }
            try (FollowCheckClient client = client(ids)) {
                for (int shard = 0; shard < 256; shard++) {
                    long user = shard + 256;
                    List<String> rest = new ArrayList<>(ids);
                    rest.remove(client.instanceFor(user, 0));
                    assertThat(client.instanceFor(user, 1)).as("shard %d among %s", shard, ids)
                            .isEqualTo(ShardAffinity.owner(shard, rest));
                }
            }
        }
    }

    @Test
    void choice_doesNotDependOnTheOrderInstancesWereAdded() {
        List<String> ids = LISTS.get(3);
        try (FollowCheckClient forward = client(ids); FollowCheckClient backward = client(ids.reversed())) {
            for (long user = 1; user <= 512; user++) {
                assertThat(backward.instanceFor(user, 0)).isEqualTo(forward.instanceFor(user, 0));
                assertThat(backward.instanceFor(user, 1)).isEqualTo(forward.instanceFor(user, 1));
            }
        }
    }
}
