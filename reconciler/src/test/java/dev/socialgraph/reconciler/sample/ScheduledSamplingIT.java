package dev.socialgraph.reconciler.sample;

import static dev.socialgraph.reconciler.ShardFixture.inShard;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.reconciler.ReconcilerApplication;
import dev.socialgraph.reconciler.ShardFixture;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.testsupport.TestShards;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The sampler runs on its own schedule once the application is ready, and repairs a lost follow event. */
@SpringBootTest(classes = ReconcilerApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
class ScheduledSamplingIT {

    private static final TestShards SHARDS = TestShards.create("reconciler_schedule");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.shards.migrate-on-startup", () -> "true");
        registry.add("graph.reconciler.sampling.enabled", () -> "true");
        registry.add("graph.reconciler.sampling.interval", () -> "100ms");
    }

    @AfterAll
    static void dropShards() {
        SHARDS.close();
    }

    @Autowired
    ShardDataSources sources;

    @Test
    void sampler_onItsSchedule_repairsALostFollowEvent() throws Exception {
        ShardFixture fixture = new ShardFixture(sources);
        long follower = inShard(7, 0);
        long followee = 50_001;
        long old = System.currentTimeMillis() - 600_000;
        fixture.following(follower, new long[] {followee}, new long[] {old});
        fixture.outbox(follower, followee, true, old, true, 60);

        await().atMost(Duration.ofSeconds(20)).until(() -> fixture.followerRow(followee) != null);

        FollowerRow row = fixture.followerRow(followee);
        assertThat(row.followerIds()).containsExactly(follower);
        assertThat(row.followedAt()).containsExactly(old);
        assertThat(row.followerCount()).isEqualTo(1);
    }
}
