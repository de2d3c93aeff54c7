package dev.socialgraph.reconciler.sample;

import static dev.socialgraph.reconciler.ShardFixture.inShard;
import static dev.socialgraph.reconciler.ShardFixture.without;
import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.reconciler.ReconcilerApplication;
import dev.socialgraph.reconciler.ShardFixture;
import dev.socialgraph.reconciler.repair.FollowerRepairs;
import dev.socialgraph.reconciler.repair.ReconcilerMetrics;
import dev.socialgraph.reconciler.scan.ScanService;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.testsupport.TestShards;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Recent-edge sampling against real Postgres: outbox pairs older than the threshold are checked and repaired. */
@SpringBootTest(classes = ReconcilerApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
class OutboxSamplerIT {

    private static final TestShards SHARDS = TestShards.create("reconciler_sample");

    private static final long OLD = System.currentTimeMillis() - 600_000;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.shards.migrate-on-startup", () -> "true");
        registry.add("graph.reconciler.sampling.enabled", () -> "false"); // rounds are run by the test
        // Smaller than a round's rows: one round must read several batches (it read one, and fell behind).
        registry.add("graph.reconciler.sampling.batch-size", () -> "2");
    }

    @AfterAll
    static void dropShards() {
        SHARDS.close();
    }

    @Autowired
    OutboxSampler sampler;

    @Autowired
    ShardDataSources sources;
    @Autowired
    OutboxRepository outbox;
    @Autowired
    FollowerRepairs repairs;
    @Autowired
    @Qualifier("blockRepairs")
    FollowerRepairs blockRepairs;
    @Autowired
    ReconcilerMetrics metrics;
    @Autowired
    ScanService scans;

    private static long[] a(long... v) {
        return v;
    }

    @Test
    void sampleOnce_repairsSettledPairsThatDisagree_andStopsAtEdgesInFlight() throws Exception {
        ShardFixture fixture = new ShardFixture(sources);
        long lostFollow = inShard(200, 0);
        long lostUnfollow = inShard(200, 1);
        long agreeing = inShard(200, 2);
        long young = inShard(200, 3);
        long followeeA = 20_001;
        long followeeB = 20_002;
        long followeeC = 20_003;
        long followeeD = 20_004;
        long now = System.currentTimeMillis();

        // A follow whose event never reached the follower side.
        fixture.following(lostFollow, a(followeeA), a(OLD));
        fixture.outbox(lostFollow, followeeA, true, OLD, true, 60);
        // An unfollow whose event never reached the follower side.
        fixture.following(lostUnfollow, a(), a());
        fixture.outbox(lostUnfollow, followeeB, false, OLD + 1, true, 60);
        fixture.followerRow(followeeB, a(lostUnfollow), a(OLD + 1), 1);
        // A follow that was applied.
        fixture.following(agreeing, a(followeeC), a(OLD + 2));
        long lastSettled = fixture.outbox(agreeing, followeeC, true, OLD + 2, true, 60);
        fixture.followerRow(followeeC, a(agreeing), a(OLD + 2), 1);
        // A follow of a moment ago, not on the follower side yet: in flight.
        fixture.following(young, a(followeeD), a(now));
        fixture.outbox(young, followeeD, true, now, true, 0);
        Map<Long, List<Object>> before = fixture.followerSide();

        int checked = sampler.sampleOnce();

        assertThat(checked).isEqualTo(3);
        String database = sources.shardMap().route(ShardGroup.FOLLOWING, lostFollow).database();
        assertThat(sampler.position(database)).isEqualTo(lastSettled);
        FollowerRow a = fixture.followerRow(followeeA);
        assertThat(a.followerIds()).containsExactly(lostFollow);
        assertThat(a.followedAt()).containsExactly(OLD);
        assertThat(a.followerCount()).isEqualTo(1);
        FollowerRow b = fixture.followerRow(followeeB);
        assertThat(b.followerIds()).isEmpty();
        assertThat(b.followerCount()).isZero();
        assertThat(fixture.followerRow(followeeD)).isNull();
        assertThat(without(fixture.followerSide(), followeeA, followeeB))
                .isEqualTo(without(before, followeeA, followeeB));

        assertThat(sampler.sampleOnce()).isZero(); // the young row still blocks; nothing re-checked
    }

    @Test
    void sampleOnce_whenACelebrityMissesAFollower_addsItToThePageOfItsTime() throws Exception {
        // Following database 0 (shards < 128): the other test's young outbox row blocks database 1.
        ShardFixture fixture = new ShardFixture(sources);
        long early = inShard(60, 0);
        long lost = inShard(60, 1);
        long late = inShard(60, 2);
        long celebrity = 60_001;
        fixture.following(early, a(celebrity), a(OLD));
        fixture.following(lost, a(celebrity), a(OLD + 5));
        fixture.following(late, a(celebrity), a(OLD + 10));
        fixture.celebrity(celebrity, 2, a(early), a(OLD), a(late), a(OLD + 10));
        fixture.outbox(lost, celebrity, true, OLD + 5, true, 60);

        sampler.sampleOnce();

        assertThat(fixture.pages(celebrity)).containsExactly(
                new CelebrityPage(celebrity, 0, a(early, lost), a(OLD, OLD + 5)),
                new CelebrityPage(celebrity, 1, a(late), a(OLD + 10)));
        assertThat(fixture.followerRow(celebrity).followerCount()).isEqualTo(3);
    }

    @Test
    void sampleOnce_repairsTheBlockedBySideOfALostBlock_andPassesOverMutes() throws Exception {
        // Following database 0 (shards < 128): the first test's young outbox row blocks database 1.
        ShardFixture follows = new ShardFixture(sources);
        ShardFixture blocks = new ShardFixture(sources, Relation.BLOCK);
        ShardFixture mutes = new ShardFixture(sources, Relation.MUTE);
        long blocker = inShard(61, 0);
        long muter = inShard(61, 1);
        long blocked = 61_001;
        long muted = 61_002;
        String database = sources.shardMap().route(ShardGroup.FOLLOWING, blocker).database();
        blocks.following(blocker, a(blocked), a(OLD));
        follows.outbox(FollowEvent.Type.BLOCK, blocker, blocked, OLD, true, 60); // never reached the blocked-by side
        mutes.following(muter, a(muted), a(OLD + 1));
        long mute = follows.outbox(FollowEvent.Type.MUTE, muter, muted, OLD + 1, true, 60);

        sampler.sampleOnce();

        FollowerRow blockedBy = blocks.followerRow(blocked);
        assertThat(blockedBy.followerIds()).containsExactly(blocker);
        assertThat(blockedBy.followedAt()).containsExactly(OLD);
        assertThat(blockedBy.followerCount()).isEqualTo(1);
        assertThat(follows.followerRow(blocked)).as("the followers side").isNull();
        assertThat(mutes.followerRow(muted)).as("mutes have no reverse side").isNull();
        assertThat(sampler.position(database)).as("past the mute").isEqualTo(mute);
    }

    /**
     * The position survives the instance: a new sampler (a restart) resumes after the last row the previous one
     * checked. Before, it started at the beginning of the retained outbox (7 days) on every start.
     */
    @Test
    void newSampler_resumesAfterTheSavedPosition_notFromTheStart() throws Exception {
        // Following database 0 (shards < 128): the first test's young outbox row blocks database 1.
        ShardFixture fixture = new ShardFixture(sources);
        long first = inShard(30, 0);
        long second = inShard(30, 1);
        long followeeX = 30_001;
        long followeeY = 30_002;
        String database = sources.shardMap().route(ShardGroup.FOLLOWING, first).database();
        fixture.following(first, a(followeeX), a(OLD));
        long checkedBefore = fixture.outbox(first, followeeX, true, OLD, true, 60);
        sampler.sampleOnce();
        assertThat(fixture.followerRow(followeeX).followerIds()).containsExactly(first);
        assertThat(sampler.position(database)).isEqualTo(checkedBefore);

        // A divergence behind the position (a new sampler must not look there again) and a lost follow after it.
        fixture.followerRow(followeeX, a(), a(), 0);
        fixture.following(second, a(followeeY), a(OLD + 1));
        long after = fixture.outbox(second, followeeY, true, OLD + 1, true, 60);
        OutboxSampler restarted = new OutboxSampler(sources, outbox, repairs, blockRepairs, metrics, 2, 1_000,
                Clock.systemUTC(), new OutboxPositionRepository(scans.database()));

        assertThat(restarted.position(database)).isEqualTo(checkedBefore);
        restarted.sampleOnce();

        assertThat(restarted.position(database)).isEqualTo(after);
        assertThat(fixture.followerRow(followeeY).followerIds()).containsExactly(second);
        assertThat(fixture.followerRow(followeeX).followerIds()).as("not re-read").isEmpty();
    }
}
