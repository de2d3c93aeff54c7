package dev.socialgraph.reconciler.repair;

import static dev.socialgraph.reconciler.ShardFixture.inShard;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.reconciler.ShardFixture;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardMigrations;
import dev.socialgraph.testsupport.TestShards;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The repair primitive against real Postgres, without Spring: it waits for the cdc-consumer's row lock and decides
 * on what is there once it holds the lock, and it re-reads the following side instead of trusting the scan.
 */
class FollowerRepairsIT {

    private static final TestShards SHARDS = TestShards.create("reconciler_repair");
    private static final long OLD = System.currentTimeMillis() - 600_000;

    private static ShardDataSources sources;
    private static FollowerRepairs repairs;
    private static FollowerRepairs blockRepairs;
    private static ShardFixture fixture;

    @BeforeAll
    static void open() {
        sources = new ShardDataSources(SHARDS.shardMap(), new ShardDataSources.PoolSettings(SHARDS.username(),
                SHARDS.password(), 4, Duration.ofSeconds(5), "repair-it"));
        ShardMigrations.migrateAll(sources);
        repairs = new FollowerRepairs(sources, Relation.FOLLOW, new FollowingRepository(), new FollowerRepository(),
                new CelebrityPageRepository(), new ReconcilerMetrics(new SimpleMeterRegistry()),
                Duration.ofSeconds(30), Clock.systemUTC());
        blockRepairs = new FollowerRepairs(sources, Relation.BLOCK, new FollowingRepository(Relation.BLOCK),
                new FollowerRepository(Relation.BLOCK), new CelebrityPageRepository(Relation.BLOCK),
                new ReconcilerMetrics(new SimpleMeterRegistry()), Duration.ofSeconds(30), Clock.systemUTC());
        fixture = new ShardFixture(sources);
    }

    @AfterAll
    static void close() {
        sources.close();
        SHARDS.close();
    }

    private static long[] a(long... v) {
        return v;
    }

    @Test
    void repair_waitsForTheConsumersRowLock_andDoesNotRedoWhatTheConsumerApplied() throws Exception {
        long follower = inShard(40, 0);
        long followee = 40_001;
        fixture.following(follower, a(followee), a(OLD));
        fixture.followerRow(followee, a(), a(), 0); // version 1: the follow event not applied yet
        DataSource followerDb = sources.forUser(ShardGroup.FOLLOWER, followee);
        FollowerRepository followers = new FollowerRepository();

        CompletableFuture<RepairResult> repair;
        try (Connection consumer = followerDb.getConnection()) {
            consumer.setAutoCommit(false);
            FollowerRow locked = followers.lock(consumer, followee).orElseThrow();
            repair = CompletableFuture.supplyAsync(() -> {
                try {
                    return repairs.repair(followee, a(follower));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> waitingForLocks(followerDb) > 0);
            assertThat(repair).isNotDone();
            // The consumer applies the event, then releases the lock.
            followers.writeNextVersion(consumer, locked, a(follower), a(OLD), 1, false);
            consumer.commit();
        }

        RepairResult result = repair.get(10, TimeUnit.SECONDS);
        assertThat(result.repaired()).isFalse();
        assertThat(result.totalFound()).isZero();
        FollowerRow row = fixture.followerRow(followee);
        assertThat(row.version()).isEqualTo(2);
        assertThat(row.followerIds()).containsExactly(follower);
    }

    @Test
    void repair_rereadsTheFollowingSide_insteadOfTrustingTheScan() throws Exception {
        long follower = inShard(41, 0);
        long followee = 41_001;
        // The scan saw the edge; it was removed (long ago, outbox pruned) before the repair ran.
        fixture.following(follower, a(), a());
        fixture.followerRow(followee, a(), a(), 0);

        RepairResult result = repairs.repair(followee, a(follower));

        assertThat(result.repaired()).isFalse();
        assertThat(fixture.followerRow(followee).version()).isEqualTo(1);
    }

    @Test
    void repair_whenNothingToAdd_doesNotCreateARow() throws Exception {
        long follower = inShard(42, 0);
        long followee = 42_001;

        RepairResult result = repairs.repair(followee, a(follower));

        assertThat(result).isEqualTo(RepairResult.NONE);
        assertThat(fixture.followerRow(followee)).isNull();
    }

    @Test
    void blockRepairs_repairTheBlockedBySide_andCountOnlyBlockChangesAsInFlight() throws Exception {
        long recentlyUnblocked = inShard(43, 0);
        long recentlyUnfollowed = inShard(43, 1);
        long blocked = 43_001;
        ShardFixture blocks = new ShardFixture(sources, Relation.BLOCK);
        blocks.following(recentlyUnblocked, a(), a());
        blocks.following(recentlyUnfollowed, a(), a());
        blocks.followerRow(blocked, a(recentlyUnblocked, recentlyUnfollowed), a(OLD, OLD + 1), 2);
        fixture.outbox(FollowEvent.Type.UNBLOCK, recentlyUnblocked, blocked, OLD, true, 1);
        // A follow change of the same pair says nothing about the block: the blocked-by entry is stale.
        fixture.outbox(FollowEvent.Type.UNFOLLOW, recentlyUnfollowed, blocked, OLD + 1, true, 1);

        RepairResult result = blockRepairs.repair(blocked, a(recentlyUnblocked, recentlyUnfollowed));

        assertThat(result.repaired()).isTrue();
        assertThat(result.skippedInFlight()).isEqualTo(1);
        assertThat(result.found(Divergence.STALE_FOLLOWER)).isEqualTo(1);
        FollowerRow row = blocks.followerRow(blocked);
        assertThat(row.followerIds()).containsExactly(recentlyUnblocked);
        assertThat(row.followerCount()).isEqualTo(1);
        assertThat(fixture.followerRow(blocked)).as("the followers side").isNull();
    }

    @Test
    void repair_leavesThePairsOfInactiveFollowersAlone_andRepairsTheActiveOnes() throws Exception {
        long erased = inShard(44, 0);        // the erase job took it off the follower row first
        long deactivated = inShard(44, 1);   // its entry was lost while it was deactivated
        long active = inShard(44, 2);        // its entry was lost too
        long stale = inShard(44, 3);         // deactivated; its entry stays although its following row lost the edge
        long followee = 44_001;
        fixture.following(erased, a(followee), a(OLD));
        fixture.following(deactivated, a(followee), a(OLD + 1));
        fixture.following(active, a(followee), a(OLD + 2));
        fixture.following(stale, a(), a());
        fixture.followerRow(followee, a(stale), a(OLD + 3), 1);
        fixture.accountState(erased, 2);
        fixture.accountState(deactivated, 1);
        fixture.accountState(stale, 1);

        RepairResult result = repairs.repair(followee, a(erased, deactivated, active, stale));

        assertThat(result.repaired()).isTrue();
        assertThat(result.skippedInactive()).isEqualTo(3);
        assertThat(result.found(Divergence.MISSING_FOLLOWER)).isEqualTo(1);
        assertThat(result.found(Divergence.STALE_FOLLOWER)).isZero();
        FollowerRow row = fixture.followerRow(followee);
        assertThat(row.followerIds()).containsExactlyInAnyOrder(active, stale);
        assertThat(row.followerCount()).isEqualTo(2);
    }

    @Test
    void repair_ofAnInactiveFollowee_writesNothing_notEvenItsCount() throws Exception {
        long follower = inShard(45, 0);
        long followee = inShard(45, 1);
        fixture.following(follower, a(followee), a(OLD));
        fixture.followerRow(followee, a(), a(), 3); // the entry is missing and the count is off
        fixture.accountState(followee, 1);
        FollowerRow before = fixture.followerRow(followee);

        assertThat(repairs.repair(followee, a(follower))).isEqualTo(RepairResult.skippedInactive(1));
        assertThat(repairs.repair(followee, a())).isEqualTo(RepairResult.NONE);
        assertThat(fixture.followerRow(followee)).isEqualTo(before);

        fixture.accountState(followee, 0); // reactivated: repaired as any row
        RepairResult result = repairs.repair(followee, a(follower));
        assertThat(result.repaired()).isTrue();
        assertThat(fixture.followerRow(followee).followerIds()).containsExactly(follower);
        assertThat(fixture.followerRow(followee).followerCount()).isEqualTo(1);
    }

    @Test
    void inactive_readsTheStateRowsInEachUsersFollowingShard() throws Exception {
        long erasedHere = inShard(46, 0);    // following database 0
        long deactivatedThere = inShard(200, 0); // following database 1
        long reactivated = inShard(201, 0);
        long neverChanged = inShard(46, 1);
        fixture.accountState(erasedHere, 2);
        fixture.accountState(deactivatedThere, 1);
        fixture.accountState(reactivated, 1);
        fixture.accountState(reactivated, 0);

        assertThat(repairs.inactive(a(erasedHere, deactivatedThere, reactivated, neverChanged)))
                .containsExactlyInAnyOrder(erasedHere, deactivatedThere);
        assertThat(repairs.inactive(a())).isEmpty();
    }

    private static int waitingForLocks(DataSource db) throws Exception {
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
                """); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
