package dev.socialgraph.reconciler.scan;

import static dev.socialgraph.reconciler.ShardFixture.inShard;
import static dev.socialgraph.reconciler.ShardFixture.without;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.Mockito.atLeastOnce;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;

import com.google.common.util.concurrent.RateLimiter;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.reconciler.ReconcilerApplication;
import dev.socialgraph.reconciler.ShardFixture;
import dev.socialgraph.reconciler.repair.Divergence;
import dev.socialgraph.reconciler.repair.FollowerRepairs;
import dev.socialgraph.reconciler.repair.ReconcilerMetrics;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.following.BlockedFollows;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.testsupport.TestShards;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Full scans against real Postgres: each kind of divergence is injected by writing the follower side (or the
 * blocked-by side, or a follow under a block) directly, then found and repaired, and nothing else changes. Each test
 * uses follower (blocker) ids of its own logical shard and scans only that shard, so tests do not see each other's
 * data. Logical shards 0..127 live in the first database of each group, 128..255 in the second.
 */
@SpringBootTest(classes = ReconcilerApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
class FullScanIT {

    private static final TestShards SHARDS = TestShards.create("reconciler_scan");

    /** Ten minutes ago: settled edges (threshold 30 s). */
    private static final long OLD = System.currentTimeMillis() - 600_000;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.shards.migrate-on-startup", () -> "true");
        registry.add("graph.reconciler.sampling.enabled", () -> "false");
        registry.add("graph.reconciler.scan.page-size", () -> "2");
        registry.add("graph.reconciler.scan.rate-limit", () -> "100000");
    }

    @AfterAll
    static void dropShards() {
        SHARDS.close();
    }

    @Autowired
    ScanService scans;

    @Autowired
    ShardDataSources sources;

    @Autowired
    FollowerRepairs repairs;

    @Autowired
    @Qualifier("blockRepairs")
    FollowerRepairs blockRepairs;

    @Autowired
    ReconcilerMetrics metrics;

    @Autowired
    MeterRegistry meters;

    /** Follows' rows. */
    ShardFixture fixture;

    /** Blocks' rows: "following" rows are block rows, "follower" rows blocked-by rows. */
    ShardFixture blocks;

    @BeforeEach
    void fixture() {
        fixture = new ShardFixture(sources);
        blocks = new ShardFixture(sources, Relation.BLOCK);
    }

    private ScanStatus scanToEnd(int shard) throws Exception {
        long id = scans.create(shard, shard);
        ScanStatus status = scans.runPages(id, Long.MAX_VALUE);
        assertThat(status.state()).isEqualTo(ScanState.COMPLETED);
        assertThat(status.progress()).isEqualTo(1.0);
        return status;
    }

    private static long[] a(long... v) {
        return v;
    }

    @Test
    void scan_whenFollowerEntryMissing_addsIt_andChangesNothingElse() throws Exception {
        long f1 = inShard(10, 0);
        long f2 = inShard(10, 1);
        long followee = 10_001;
        long control = 10_002;
        fixture.following(f1, a(followee, control), a(OLD, OLD + 1));
        fixture.following(f2, a(followee), a(OLD + 2));
        fixture.followerRow(followee, a(f1), a(OLD), 1);
        fixture.followerRow(control, a(f1), a(OLD + 1), 1);
        Map<Long, List<Object>> before = fixture.followerSide();

        ScanStatus status = scanToEnd(10);

        FollowerRow row = fixture.followerRow(followee);
        assertThat(row.followerIds()).containsExactly(f1, f2);
        assertThat(row.followedAt()).containsExactly(OLD, OLD + 2);
        assertThat(row.followerCount()).isEqualTo(2);
        assertThat(without(fixture.followerSide(), followee)).isEqualTo(without(before, followee));
        assertThat(status.divergences()).containsEntry(Divergence.MISSING_FOLLOWER, 1L)
                .containsEntry(Divergence.STALE_FOLLOWER, 0L);
        assertThat(status.repairs()).isEqualTo(1);
    }

    @Test
    void scan_whenFollowerEntryMissingAndRowAbsent_createsTheRow() throws Exception {
        long f1 = inShard(18, 0);
        long followee = 18_001;
        fixture.following(f1, a(followee), a(OLD));

        scanToEnd(18);

        FollowerRow row = fixture.followerRow(followee);
        assertThat(row.followerIds()).containsExactly(f1);
        assertThat(row.followerCount()).isEqualTo(1);
    }

    @Test
    void scan_whenFollowerEntryStale_removesIt_andChangesNothingElse() throws Exception {
        long f1 = inShard(11, 0);
        long f3 = inShard(11, 2);
        long other = inShard(99, 0); // not in the scanned shard: its entry is not judged
        long followee = 11_001;
        fixture.following(f1, a(followee), a(OLD));
        fixture.following(f3, a(), a());
        fixture.followerRow(followee, a(f1, f3, other), a(OLD, OLD + 5, OLD + 6), 3);
        Map<Long, List<Object>> before = fixture.followerSide();

        ScanStatus status = scanToEnd(11);

        FollowerRow row = fixture.followerRow(followee);
        assertThat(row.followerIds()).containsExactly(f1, other);
        assertThat(row.followedAt()).containsExactly(OLD, OLD + 6);
        assertThat(row.followerCount()).isEqualTo(2);
        assertThat(without(fixture.followerSide(), followee)).isEqualTo(without(before, followee));
        assertThat(status.divergences()).containsEntry(Divergence.STALE_FOLLOWER, 1L);
    }

    @Test
    void scan_whenCountWrong_fixesTheCount() throws Exception {
        long f1 = inShard(12, 0);
        long f2 = inShard(12, 1);
        long followee = 12_001;
        fixture.following(f1, a(followee), a(OLD));
        fixture.following(f2, a(followee), a(OLD + 1));
        fixture.followerRow(followee, a(f1, f2), a(OLD, OLD + 1), 5);
        Map<Long, List<Object>> before = fixture.followerSide();

        ScanStatus status = scanToEnd(12);

        FollowerRow row = fixture.followerRow(followee);
        assertThat(row.followerCount()).isEqualTo(2);
        assertThat(row.followerIds()).containsExactly(f1, f2);
        assertThat(without(fixture.followerSide(), followee)).isEqualTo(without(before, followee));
        assertThat(status.divergences()).containsEntry(Divergence.WRONG_COUNT, 1L);
    }

    @Test
    void scan_whenIdMissingFromCelebrityPage_insertsItIntoThePageOfItsTime() throws Exception {
        long[] f = new long[5];
        for (int i = 0; i < f.length; i++) {
            f[i] = inShard(13, i);
        }
        long celebrity = 13_001;
        long[] t = {OLD, OLD + 10, OLD + 20, OLD + 30, OLD + 25};
        for (int i = 0; i < f.length; i++) {
            fixture.following(f[i], a(celebrity), a(t[i]));
        }
        // f[4] (at OLD + 25) is missing from page 1
        fixture.celebrity(celebrity, 4, a(f[0], f[1]), a(t[0], t[1]), a(f[2], f[3]), a(t[2], t[3]));
        Map<Long, List<Object>> before = fixture.followerSide();

        ScanStatus status = scanToEnd(13);

        assertThat(fixture.pages(celebrity)).containsExactly(
                new CelebrityPage(celebrity, 0, a(f[0], f[1]), a(t[0], t[1])),
                new CelebrityPage(celebrity, 1, a(f[2], f[4], f[3]), a(t[2], t[4], t[3])));
        FollowerRow row = fixture.followerRow(celebrity);
        assertThat(row.celebrity()).isTrue();
        assertThat(row.followerIds()).isEmpty();
        assertThat(row.followerCount()).isEqualTo(5);
        assertThat(without(fixture.followerSide(), celebrity)).isEqualTo(without(before, celebrity));
        assertThat(status.divergences()).containsEntry(Divergence.MISSING_FOLLOWER, 1L);
    }

    @Test
    void scan_whenIdDuplicatedAcrossPages_keepsOnlyTheEntryOfItsEdge() throws Exception {
        long f1 = inShard(14, 0);
        long f2 = inShard(14, 1);
        long f3 = inShard(14, 2);
        long celebrity = 14_001;
        fixture.following(f1, a(celebrity), a(OLD));
        fixture.following(f2, a(celebrity), a(OLD + 1));
        fixture.following(f3, a(celebrity), a(OLD + 2));
        fixture.celebrity(celebrity, 4, a(f1, f2), a(OLD, OLD + 1), a(f3, f1), a(OLD + 2, OLD + 3));
        Map<Long, List<Object>> before = fixture.followerSide();

        ScanStatus status = scanToEnd(14);

        assertThat(fixture.pages(celebrity)).containsExactly(
                new CelebrityPage(celebrity, 0, a(f1, f2), a(OLD, OLD + 1)),
                new CelebrityPage(celebrity, 1, a(f3), a(OLD + 2)));
        assertThat(fixture.followerRow(celebrity).followerCount()).isEqualTo(3);
        assertThat(without(fixture.followerSide(), celebrity)).isEqualTo(without(before, celebrity));
        assertThat(status.divergences()).containsEntry(Divergence.DUPLICATE, 1L)
                .containsEntry(Divergence.STALE_FOLLOWER, 0L);
    }

    @Test
    void scan_leavesEdgesInFlightAlone() throws Exception {
        long young = inShard(15, 0);       // followed a moment ago: the event is on its way
        long unpublished = inShard(15, 1); // old follow, but its outbox row is not published yet
        long unfollowed = inShard(15, 2);  // unfollowed a moment ago: the removal is on its way
        long followee = 15_001;
        long now = System.currentTimeMillis();
        fixture.following(young, a(followee), a(now));
        fixture.following(unpublished, a(followee), a(OLD));
        fixture.outbox(unpublished, followee, true, OLD, false, 120);
        fixture.following(unfollowed, a(), a());
        fixture.outbox(unfollowed, followee, false, OLD + 1, true, 1);
        fixture.followerRow(followee, a(unfollowed), a(OLD + 1), 1);
        Map<Long, List<Object>> before = fixture.followerSide();

        ScanStatus status = scanToEnd(15);

        assertThat(fixture.followerSide()).isEqualTo(before);
        assertThat(status.repairs()).isZero();
        assertThat(status.skippedInFlight()).isEqualTo(2); // the young edge is not even suspected
    }

    @Test
    void scan_whenInterrupted_resumesFromItsCheckpointAndCompletes() throws Exception {
        long[] followees = {16_001, 16_002};
        long[] f = new long[6];
        for (int i = 0; i < f.length; i++) {
            f[i] = inShard(16, i);
            fixture.following(f[i], followees, a(OLD + i, OLD + 100 + i));
        }
        // the follower side knows only f[0] for the first followee, nobody for the second
        fixture.followerRow(followees[0], a(f[0]), a(OLD), 1);
        fixture.followerRow(followees[1], a(f[5]), a(OLD + 999), 1); // stale time

        long id = scans.create(16, 16);
        ScanStatus interrupted = scans.runPages(id, 2);
        assertThat(interrupted.state()).isEqualTo(ScanState.RUNNING);
        assertThat(interrupted.phase()).isEqualTo(ScanPhase.FOLLOWING);
        assertThat(interrupted.cursor()).isPositive();
        assertThat(interrupted.progress()).isLessThan(1.0);

        // What a restarted instance does: resume every scan left running, in the background.
        assertThat(scans.resumeInterrupted()).contains(id);
        await().atMost(Duration.ofSeconds(30)).until(() -> scans.status(id).orElseThrow().state() != ScanState.RUNNING);

        ScanStatus done = scans.status(id).orElseThrow();
        assertThat(done.state()).isEqualTo(ScanState.COMPLETED);
        assertThat(done.rowsScanned()).isGreaterThan(interrupted.rowsScanned());
        FollowerRow first = fixture.followerRow(followees[0]);
        assertThat(first.followerIds()).containsExactly(f);
        assertThat(first.followerCount()).isEqualTo(6);
        FollowerRow second = fixture.followerRow(followees[1]);
        assertThat(second.followerIds()).containsExactly(f);
        assertThat(second.followedAt()).containsExactly(OLD + 100, OLD + 101, OLD + 102, OLD + 103, OLD + 104,
                OLD + 105);
        assertThat(second.followerCount()).isEqualTo(6);
    }

    @Test
    void scan_walksFollowsThenBlocks_withProgressRisingToOne() throws Exception {
        long id = scans.create(24, 24);
        List<ScanPhase> phases = new ArrayList<>();
        List<Double> progress = new ArrayList<>();
        ScanStatus status = scans.status(id).orElseThrow();
        while (true) {
            if (phases.isEmpty() || phases.getLast() != status.phase()) {
                phases.add(status.phase());
            }
            progress.add(status.progress());
            if (status.state() != ScanState.RUNNING) {
                break;
            }
            status = scans.runPages(id, 1);
        }

        assertThat(status.state()).isEqualTo(ScanState.COMPLETED);
        assertThat(phases).containsExactly(ScanPhase.FOLLOWING, ScanPhase.FOLLOWER, ScanPhase.BLOCKING,
                ScanPhase.BLOCKED_BY, ScanPhase.DONE);
        assertThat(progress).isSorted().startsWith(0.0).endsWith(1.0);
    }

    @Test
    void scan_whenBlockedByEntryMissingOrStale_repairsTheBlockedBySide_andLeavesTheFollowerSide() throws Exception {
        long blocker = inShard(21, 0);
        long unblocker = inShard(21, 1); // blocked, then unblocked: the unblock never reached the blocked-by side
        long blocked = inShard(170, 0);
        long control = inShard(170, 1);
        blocks.following(blocker, a(blocked, control), a(OLD, OLD + 1));
        blocks.following(unblocker, a(), a());
        blocks.followerRow(blocked, a(unblocker), a(OLD + 2), 1);
        blocks.followerRow(control, a(blocker), a(OLD + 1), 1);
        // The unblocker follows the blocked user, at the time of the stale entry: truth must come from block rows.
        fixture.following(unblocker, a(blocked), a(OLD + 2));
        fixture.followerRow(blocked, a(unblocker), a(OLD + 2), 1);
        Map<Long, List<Object>> followersBefore = fixture.followerSide();
        Map<Long, List<Object>> blockedByBefore = blocks.followerSide();

        ScanStatus status = scanToEnd(21);

        FollowerRow row = blocks.followerRow(blocked);
        assertThat(row.followerIds()).containsExactly(blocker);
        assertThat(row.followedAt()).containsExactly(OLD);
        assertThat(row.followerCount()).isEqualTo(1);
        assertThat(without(blocks.followerSide(), blocked)).isEqualTo(without(blockedByBefore, blocked));
        assertThat(fixture.followerSide()).isEqualTo(followersBefore);
        assertThat(status.divergences()).containsEntry(Divergence.MISSING_FOLLOWER, 1L)
                .containsEntry(Divergence.STALE_FOLLOWER, 1L)
                .containsEntry(Divergence.FOLLOW_UNDER_BLOCK, 0L);
        assertThat(status.repairs()).isEqualTo(2);
    }

    @Test
    void scan_whenAFollowStandsUnderASettledBlock_removesItEitherWay_asAnUnfollowWithItsOutboxRow()
            throws Exception {
        long blocker = inShard(22, 0);      // following database 0
        long follower = inShard(180, 0);    // following database 1: followed the blocker before the block
        long followee = inShard(180, 1);    // following database 1: followed by the blocker after the block
        blocks.following(blocker, a(follower, followee), a(OLD, OLD + 1));
        blocks.followerRow(follower, a(blocker), a(OLD), 1);
        blocks.followerRow(followee, a(blocker), a(OLD + 1), 1);
        fixture.following(follower, a(blocker), a(OLD - 1_000));
        fixture.following(blocker, a(followee), a(OLD + 2)); // written around the write path's block check
        fixture.followerRow(blocker, a(follower), a(OLD - 1_000), 1);
        fixture.followerRow(followee, a(blocker), a(OLD + 2), 1);

        ScanStatus status = scanToEnd(22);

        assertThat(fixture.followingRow(follower).followingIds()).isEmpty();
        assertThat(fixture.followingRow(blocker).followingIds()).isEmpty();
        assertThat(fixture.outboxOf(follower)).singleElement().satisfies(e -> {
            assertThat(e.type()).isEqualTo(FollowEvent.Type.UNFOLLOW);
            assertThat(e.followeeId()).isEqualTo(blocker);
            assertThat(e.followedAt()).isEqualTo(OLD - 1_000);
            assertThat(e.publishedAt()).isNull(); // for the relay: the follower side learns of it by its event
        });
        assertThat(fixture.outboxOf(blocker)).singleElement().satisfies(e -> {
            assertThat(e.type()).isEqualTo(FollowEvent.Type.UNFOLLOW);
            assertThat(e.followeeId()).isEqualTo(followee);
            assertThat(e.followedAt()).isEqualTo(OLD + 2);
        });
        assertThat(blocks.followingRow(blocker).followingIds()).containsExactly(follower, followee);
        assertThat(status.divergences()).containsEntry(Divergence.FOLLOW_UNDER_BLOCK, 2L);
        assertThat(status.repairs()).isEqualTo(2);
    }

    @Test
    void scan_leavesFollowsUnderAYoungBlock_andAFollowMadeAfterAnUnblock() throws Exception {
        long blocker = inShard(23, 0);
        long justBlocked = inShard(190, 0); // the cdc-consumer removes its follow when the block's event arrives
        long unblocked = inShard(190, 1);   // blocked long ago, unblocked, then followed the blocker again
        long now = System.currentTimeMillis();
        blocks.following(blocker, a(justBlocked), a(now));
        blocks.followerRow(unblocked, a(blocker), a(OLD - 5_000), 1); // the unblock's event never arrived
        fixture.following(justBlocked, a(blocker), a(OLD));
        fixture.following(unblocked, a(blocker), a(OLD + 10));
        fixture.followerRow(blocker, a(justBlocked, unblocked), a(OLD, OLD + 10), 2);

        ScanStatus status = scanToEnd(23);

        assertThat(fixture.followingRow(justBlocked).followingIds()).containsExactly(blocker);
        assertThat(fixture.followingRow(unblocked).followingIds()).containsExactly(blocker);
        assertThat(fixture.outboxOf(justBlocked)).isEmpty();
        assertThat(fixture.outboxOf(unblocked)).isEmpty();
        assertThat(blocks.followerRow(unblocked).followerIds()).isEmpty();
        assertThat(blocks.followerRow(justBlocked)).as("in flight: not added yet").isNull();
        assertThat(status.divergences()).containsEntry(Divergence.FOLLOW_UNDER_BLOCK, 0L)
                .containsEntry(Divergence.STALE_FOLLOWER, 1L)
                .containsEntry(Divergence.MISSING_FOLLOWER, 0L);
    }

    @Test
    void scan_leavesEveryPairWithAnInactiveUserAlone_andStillRepairsTheActiveOnes() throws Exception {
        long erased = inShard(26, 0);       // the erase job took its entry off the follower row first
        long deactivated = inShard(26, 1);  // its entry was lost while it was deactivated
        long active = inShard(26, 2);       // its entry was lost too
        long followee = 26_001;
        long inactiveFollowee = 26_002;     // deactivated; an entry is missing and its count is off
        fixture.following(erased, a(followee), a(OLD));
        fixture.following(deactivated, a(followee), a(OLD + 1));
        fixture.following(active, a(followee, inactiveFollowee), a(OLD + 2, OLD + 3));
        fixture.followerRow(followee, a(), a(), 0);
        fixture.followerRow(inactiveFollowee, a(), a(), 5);
        fixture.accountState(erased, 2);
        fixture.accountState(deactivated, 1);
        fixture.accountState(inactiveFollowee, 1);
        Map<Long, List<Object>> before = fixture.followerSide();
        double skippedBefore = inactiveSkipped();

        ScanStatus status = scanToEnd(26);

        FollowerRow row = fixture.followerRow(followee);
        assertThat(row.followerIds()).containsExactly(active);
        assertThat(row.followerCount()).isEqualTo(1);
        assertThat(without(fixture.followerSide(), followee)).isEqualTo(without(before, followee));
        assertThat(status.divergences()).containsEntry(Divergence.MISSING_FOLLOWER, 1L)
                .containsEntry(Divergence.WRONG_COUNT, 0L);
        assertThat(status.repairs()).isEqualTo(1);
        // erased and deactivated of followee's repair, active of the inactive followee's
        assertThat(inactiveSkipped() - skippedBefore).isEqualTo(3);
    }

    @Test
    void scan_leavesAFollowUnderABlockAlone_whenOneOfTheUsersIsInactive() throws Exception {
        long blocker = inShard(27, 0);
        long deactivated = inShard(200, 0); // followed the blocker before the block, now deactivated
        long active = inShard(200, 1);      // followed the blocker before the block
        blocks.following(blocker, a(deactivated, active), a(OLD, OLD + 1));
        blocks.followerRow(deactivated, a(blocker), a(OLD), 1);
        blocks.followerRow(active, a(blocker), a(OLD + 1), 1);
        fixture.following(deactivated, a(blocker), a(OLD - 2_000));
        fixture.following(active, a(blocker), a(OLD - 1_000));
        fixture.followerRow(blocker, a(deactivated, active), a(OLD - 2_000, OLD - 1_000), 2);
        fixture.accountState(deactivated, 1);
        double skippedBefore = inactiveSkipped();

        ScanStatus status = scanToEnd(27);

        assertThat(fixture.followingRow(deactivated).followingIds()).containsExactly(blocker);
        assertThat(fixture.outboxOf(deactivated)).isEmpty();
        assertThat(fixture.followingRow(active).followingIds()).isEmpty();
        assertThat(status.divergences()).containsEntry(Divergence.FOLLOW_UNDER_BLOCK, 1L);
        assertThat(inactiveSkipped() - skippedBefore).isEqualTo(1);
    }

    private double inactiveSkipped() {
        return meters.counter("reconciler.inactive.skipped").count();
    }

    @Test
    void step_acquiresOnePermitPerRowRead_fromTheRateLimiter() throws Exception {
        for (int i = 0; i < 5; i++) {
            fixture.following(inShard(20, i), a(20_001), a(OLD + i));
        }
        RateLimiter limiter = mock(RateLimiter.class);
        FullScan scan = new FullScan(sources, repairs, blockRepairs,
                new BlockedFollows(sources, new FollowingRepository(), new OutboxRepository()), metrics, limiter,
                List.of(), 3);

        FullScan.Position position = new FullScan.Position(ScanPhase.FOLLOWING, 0, 0);
        long rows = 0;
        while (position.phase() != ScanPhase.DONE) {
            FullScan.Delta delta = new FullScan.Delta();
            position = scan.step(20, 20, position, delta);
            rows += delta.rows;
        }

        ArgumentCaptor<Integer> permits = ArgumentCaptor.forClass(Integer.class);
        verify(limiter, atLeastOnce()).acquire(permits.capture());
        assertThat(permits.getAllValues()).allMatch(p -> p >= 1 && p <= 3);
        assertThat(permits.getAllValues().stream().mapToLong(Integer::longValue).sum()).isEqualTo(rows);
        assertThat(rows).isGreaterThanOrEqualTo(5 + 1); // the five following rows and the repaired follower row
    }

    @Test
    void cancel_stopsAScanAndKeepsItsProgress() throws Exception {
        long id = scans.create(19, 19);
        scans.runPages(id, 1);

        assertThat(scans.cancel(id)).isTrue();
        ScanStatus after = scans.runPages(id, Long.MAX_VALUE);

        assertThat(after.state()).isEqualTo(ScanState.CANCELLED);
        assertThat(after.rowsScanned()).isPositive();
        assertThat(scans.cancel(id)).isFalse();
    }
}
