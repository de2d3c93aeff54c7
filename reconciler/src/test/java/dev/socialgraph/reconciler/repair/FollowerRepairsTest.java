package dev.socialgraph.reconciler.repair;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.following.FollowingRepository;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** What a {@link FollowerRepairs} is built for, without a database (its constructor connects to nothing). */
class FollowerRepairsTest {

    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochMilli(1_000_000), ZoneOffset.UTC);

    private static FollowerRepairs repairs(Relation relation, Relation repositories) {
        return new FollowerRepairs(null, relation, new FollowingRepository(repositories),
                new FollowerRepository(repositories), new CelebrityPageRepository(repositories),
                new ReconcilerMetrics(new SimpleMeterRegistry()), Duration.ofSeconds(30), CLOCK);
    }

    @Test
    void blockRepairs_workOnBlockRepositories() {
        FollowerRepairs blocks = repairs(Relation.BLOCK, Relation.BLOCK);

        assertThat(blocks.relation()).isEqualTo(Relation.BLOCK);
        assertThat(blocks.following().relation()).isEqualTo(Relation.BLOCK);
        assertThat(blocks.followers().relation()).isEqualTo(Relation.BLOCK);
        assertThat(blocks.pages().relation()).isEqualTo(Relation.BLOCK);
    }

    @Test
    void repairs_ofARelationWithoutReverseSide_areRefused() {
        assertThatThrownBy(() -> repairs(Relation.MUTE, Relation.MUTE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mute");
    }

    @Test
    void repairs_withAnotherRelationsRepositories_areRefused() {
        assertThatThrownBy(() -> repairs(Relation.BLOCK, Relation.FOLLOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("block");
    }

    @Test
    void isSettled_fromTheThreshold_onTheClock() {
        FollowerRepairs follows = repairs(Relation.FOLLOW, Relation.FOLLOW);

        assertThat(follows.isSettled(1_000_000 - 30_000)).isTrue();
        assertThat(follows.isSettled(1_000_000 - 29_999)).isFalse();
    }
}
