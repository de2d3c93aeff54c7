package dev.socialgraph.check.affinity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.common.shard.ShardAffinity;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShardOwnershipTest {

    @Test
    void withoutInstances_ownsEveryShardAndEveryFollower() {
        ShardOwnership o = new ShardOwnership(new CheckProperties.Affinity("local", List.of()), 256);
        assertThat(o.ownsAll()).isTrue();
        assertThat(o.ownedShards()).hasSize(256).startsWith(0, 1).endsWith(255);
        assertThat(o.owns(1)).isTrue();
        assertThat(o.owns(Long.MAX_VALUE)).isTrue();
    }

    @Test
    void withInstances_ownsWhatRendezvousHashingGivesIt() {
        List<String> ids = List.of("check-0", "check-1");
        ShardOwnership zero = new ShardOwnership(new CheckProperties.Affinity("check-0", ids), 256);
        ShardOwnership one = new ShardOwnership(new CheckProperties.Affinity("check-1", ids), 256);
        assertThat(zero.ownsAll()).isFalse();
        assertThat(zero.ownedShards().length + one.ownedShards().length).isEqualTo(256);
        for (long follower = 1; follower <= 1000; follower++) {
            int shard = (int) (follower % 256);
            boolean zeroOwns = ShardAffinity.owner(shard, ids).equals("check-0");
            assertThat(zero.owns(follower)).as("follower %d", follower).isEqualTo(zeroOwns);
            assertThat(one.owns(follower)).as("follower %d", follower).isEqualTo(!zeroOwns);
            assertThat(zero.ownsShard(shard)).isEqualTo(zeroOwns);
        }
    }

    @Test
    void affinitySettings_rejectAnInstanceIdOutsideTheListAndRepeatedIds() {
        assertThatThrownBy(() -> new CheckProperties.Affinity("check-2", List.of("check-0", "check-1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("graph.check.affinity.instance-id 'check-2' is not one of");
        assertThatThrownBy(() -> new CheckProperties.Affinity("check-0", List.of("check-0", "check-0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("appears twice");
    }
}
