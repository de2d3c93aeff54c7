package dev.socialgraph.reconciler.scan;

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

/**
 * Scheduled full scans are on by default (only the interval is shortened here): they find divergence that no outbox
 * row points at any more, e.g. older than the outbox's retention, which the sampler cannot see.
 */
@SpringBootTest(classes = ReconcilerApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
class ScheduledScanIT {

    private static final TestShards SHARDS = TestShards.create("reconciler_scheduled_scan");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.shards.migrate-on-startup", () -> "true");
        registry.add("graph.reconciler.sampling.enabled", () -> "false"); // only the scan can find it
        registry.add("graph.reconciler.scan.scheduled-interval", () -> "1s");
    }

    @AfterAll
    static void dropShards() {
        SHARDS.close();
    }

    @Autowired
    ShardDataSources sources;
    @Autowired
    ScanService scans;

    @Test
    void scheduledScan_withoutAnyOutboxRow_repairsAMissingFollower() throws Exception {
        ShardFixture fixture = new ShardFixture(sources);
        long follower = inShard(12, 0);
        long followee = 70_001;
        long old = System.currentTimeMillis() - 600_000;
        fixture.following(follower, new long[] {followee}, new long[] {old});

        await().atMost(Duration.ofSeconds(60)).until(() -> fixture.followerRow(followee) != null);

        FollowerRow row = fixture.followerRow(followee);
        assertThat(row.followerIds()).containsExactly(follower);
        assertThat(row.followedAt()).containsExactly(old);
        assertThat(row.followerCount()).isEqualTo(1);
        assertThat(scans.lastFullScanStart()).isPresent();
    }
}
