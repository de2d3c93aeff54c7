package dev.socialgraph.reconciler.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.reconciler.repair.FollowerRepairs;
import dev.socialgraph.reconciler.repair.ReconcilerMetrics;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.following.BlockedFollows;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardMigrations;
import dev.socialgraph.testsupport.TestShards;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A scan that meets an unreachable database (here: following shards 128..255 on a closed port) pauses and
 * retries from its checkpoint instead of failing; without Spring.
 */
class ScanRetryIT {

    private static final TestShards SHARDS = TestShards.create("reconciler_retry");

    private static ShardDataSources sources;
    private static ScanService scans;

    @BeforeAll
    static void open() {
        List<ShardRange> ranges = new ArrayList<>();
        for (ShardGroup group : ShardGroup.values()) {
            for (ShardRange r : SHARDS.shardMap().ranges(group)) {
                boolean down = group == ShardGroup.FOLLOWING && r.firstShard() == 128;
                ranges.add(down ? new ShardRange(group, r.firstShard(), r.lastShard(), "down",
                        "jdbc:postgresql://127.0.0.1:1/down") : r);
            }
        }
        sources = new ShardDataSources(ShardMap.of(TestShards.LOGICAL_SHARDS, ranges),
                new ShardDataSources.PoolSettings(SHARDS.username(), SHARDS.password(), 2, Duration.ofMillis(250),
                        "retry-it"));
        for (ShardGroup group : ShardGroup.values()) {
            for (ShardRange r : sources.shardMap().ranges(group)) {
                if (!r.database().equals("down")) {
                    ShardMigrations.migrate(sources.forRange(r));
                }
            }
        }
        ReconcilerMetrics metrics = new ReconcilerMetrics(new SimpleMeterRegistry());
        FollowerRepairs follows = new FollowerRepairs(sources, Relation.FOLLOW, new FollowingRepository(),
                new FollowerRepository(), new CelebrityPageRepository(), metrics, Duration.ofSeconds(30),
                Clock.systemUTC());
        FollowerRepairs blocks = new FollowerRepairs(sources, Relation.BLOCK, new FollowingRepository(Relation.BLOCK),
                new FollowerRepository(Relation.BLOCK), new CelebrityPageRepository(Relation.BLOCK), metrics,
                Duration.ofSeconds(30), Clock.systemUTC());
        scans = new ScanService(sources, follows, blocks,
                new BlockedFollows(sources, new FollowingRepository(), new OutboxRepository()), metrics, List.of(),
                100_000, 10, 1, Duration.ofMillis(200));
    }

    @AfterAll
    static void close() throws Exception {
        scans.close();
        sources.close();
        SHARDS.close();
    }

    @Test
    void scan_whenADatabaseIsUnreachable_staysRunningWithTheError_andCanBeCancelled() throws Exception {
        long id = scans.start(128, 255);

        await().atMost(Duration.ofSeconds(20)).until(() -> scans.status(id).orElseThrow().error() != null);
        ScanStatus paused = scans.status(id).orElseThrow();
        assertThat(paused.state()).isEqualTo(ScanState.RUNNING);
        assertThat(paused.phase()).isEqualTo(ScanPhase.FOLLOWING);
        assertThat(paused.error()).startsWith("retrying: ");

        assertThat(scans.cancel(id)).isTrue();
        assertThat(scans.status(id).orElseThrow().state()).isEqualTo(ScanState.CANCELLED);
    }
}
