package dev.socialgraph.store.account;

import static dev.socialgraph.common.shard.ShardGroup.FOLLOWER;
import static dev.socialgraph.common.shard.ShardGroup.FOLLOWING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardMigrations;
import dev.socialgraph.store.sql.Transactions;
import dev.socialgraph.testsupport.TestShards;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The account lifecycle's repositories against real PostgreSQL (shard migration V6). */
class AccountRepositoriesIT {

    private static TestShards shards;
    private static ShardDataSources dataSources;

    private final AccountStateRepository states = new AccountStateRepository();
    private final AccountJobRepository jobs = new AccountJobRepository();
    private final CountExclusionRepository exclusions = new CountExclusionRepository();
    private final AccountRowsRepository accountRows = new AccountRowsRepository();

    @BeforeAll
    static void migrate() {
        shards = TestShards.create("store_account");
        dataSources = new ShardDataSources(shards.shardMap(), new ShardDataSources.PoolSettings(
                shards.username(), shards.password(), 4, Duration.ofSeconds(5), "account-it"));
        ShardMigrations.migrateAll(dataSources);
    }

    @AfterAll
    static void close() {
        dataSources.close();
        shards.close();
    }

    private static <T> T tx(DataSource ds, Transactions.Work<T> work) {
        try {
            return Transactions.inTransaction(ds, work);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static DataSource following(long userId) {
        return dataSources.forUser(FOLLOWING, userId);
    }

    private static DataSource follower(long userId) {
        return dataSources.forUser(FOLLOWER, userId);
    }

    @Test
    void state_ofAUserWithoutARow_isActiveVersionZero() {
        var read1 = tx(following(1001), c -> states.find(c, 1001));
        assertThat(read1).isEqualTo(AccountStatus.never(1001));
        var read2 = tx(following(1001), c -> states.state(c, 1001));
        assertThat(read2).isEqualTo(AccountState.ACTIVE);
    }

    @Test
    void write_storesTheNextVersion_andRefusesAVersionThatSkips() {
        long user = 1002;
        tx(following(user), c -> {
            states.write(c, new AccountStatus(user, AccountState.DEACTIVATED, 1, 1000, user + "-1", false));
            return null;
        });
        tx(following(user), c -> {
            states.write(c, new AccountStatus(user, AccountState.ACTIVE, 2, 2000, user + "-2", false));
            return null;
        });

        var read3 = tx(following(user), c -> states.find(c, user));
        assertThat(read3)
                .isEqualTo(new AccountStatus(user, AccountState.ACTIVE, 2, 2000, user + "-2", false));
        assertThatThrownBy(() -> tx(following(user), c -> {
            states.write(c, new AccountStatus(user, AccountState.ERASED, 4, 3000, user + "-4", false));
            return null;
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("not at version 3");
        var read4 = tx(following(user), c -> states.state(c, user));
        assertThat(read4).isEqualTo(AccountState.ACTIVE);
    }

    @Test
    void protection_isAColumnOfTheStateRow_readWithTheFolloweesStateAndPolledIntoTheView() {
        long user = 1005;
        tx(following(user), c -> {
            states.write(c, new AccountStatus(user, AccountState.ACTIVE, 1, 10, null, true));
            return null;
        });
        AccountStatus stored = tx(following(user), c -> states.find(c, user));
        assertThat(stored).isEqualTo(new AccountStatus(user, AccountState.ACTIVE, 1, 10, null, true));
        AccountStateRepository.TargetState read = tx(following(user), c -> states.stateAndBlock(c, user, 77));
        assertThat(read).isEqualTo(new AccountStateRepository.TargetState(AccountState.ACTIVE, false, true));
        InactiveUsers view = new InactiveUsers();
        try (AccountStateFeed feed = new AccountStateFeed(dataSources, view, Duration.ofHours(1), Duration.ZERO)) {
            feed.loadNow();
        }
        assertThat(view.isProtected(user)).isTrue();
        assertThat(view.isInactive(user)).as("protected is not inactive").isFalse();

        tx(following(user), c -> {
            states.write(c, new AccountStatus(user, AccountState.ACTIVE, 2, 30, user + "-2", false));
            return null;
        });
        AccountStateRepository.TargetState public_ = tx(following(user), c -> states.stateAndBlock(c, user, 77));
        assertThat(public_.protectedAccount()).isFalse();
        AccountStateRepository.TargetState noRow = tx(following(1099), c -> states.stateAndBlock(c, 1099, 77));
        assertThat(noRow).as("a user without a row").isEqualTo(new AccountStateRepository.TargetState(AccountState.ACTIVE,
                        false, false));
    }

    @Test
    void stateAndBlock_readsTheTargetsStateAndItsBlockOfTheOther() throws SQLException {
        long target = 1003;
        tx(following(target), c -> {
            FollowingRepository blocks = new FollowingRepository(Relation.BLOCK);
            blocks.writeNextVersion(c, blocks.lockOrCreate(c, target), new long[] {77}, new long[] {5});
            states.write(c, new AccountStatus(target, AccountState.DEACTIVATED, 1, 1, target + "-1", false));
            return null;
        });

        var read5 = tx(following(target), c -> states.stateAndBlock(c, target, 77));
        assertThat(read5)
                .isEqualTo(new AccountStateRepository.TargetState(AccountState.DEACTIVATED, true, false));
        var read6 = tx(following(target), c -> states.stateAndBlock(c, target, 78));
        assertThat(read6)
                .isEqualTo(new AccountStateRepository.TargetState(AccountState.DEACTIVATED, false, false));
        var read7 = tx(following(1004), c -> states.stateAndBlock(c, 1004, 77));
        assertThat(read7)
                .isEqualTo(new AccountStateRepository.TargetState(AccountState.ACTIVE, false, false));
    }

    @Test
    void lockUserRows_createsTheThreeRelationRowsEmpty_andLeavesExistingOnes() {
        long user = 1005;
        FollowingRepository follows = new FollowingRepository();
        tx(following(user), c -> follows.writeNextVersion(c, follows.lockOrCreate(c, user), new long[] {9},
                new long[] {1}));
        tx(following(user), c -> {
            states.lockUserRows(c, user, false);
            return null;
        });
        var blockRowBefore = tx(following(user), c -> new FollowingRepository(Relation.BLOCK).find(c, user));
        assertThat(blockRowBefore).as("not created without createAbsent").isEmpty();

        tx(following(user), c -> {
            states.lockUserRows(c, user, true);
            return null;
        });

        var read8 = tx(following(user), c -> follows.find(c, user));
        assertThat(read8.orElseThrow().followingIds()).containsExactly(9);
        var read9 = tx(following(user), c -> new FollowingRepository(Relation.BLOCK).find(c, user));
        assertThat(read9.orElseThrow()
                .version()).isZero();
        var read10 = tx(following(user), c -> new FollowingRepository(Relation.MUTE).find(c, user));
        assertThat(read10.orElseThrow()
                .followingCount()).isZero();
    }

    @Test
    void job_isNotDueUntilTheStartDelayHasPassed() {
        DataSource db = following(2003);
        long a = 2003;
        long b = 2003 + 256; // same database
        tx(db, c -> {
            jobs.insert(c, a + "-1", a, 1, JobKind.ERASE, 1_000);
            jobs.insert(c, b + "-1", b, 1, JobKind.DEACTIVATE, 2_000);
            return null;
        });
        Duration delay = Duration.ofSeconds(5);

        Optional<AccountJob> tooEarly = tx(db, c -> jobs.lease(c, "w1", Duration.ofSeconds(30), 5_999, delay));
        Optional<AccountJob> erase = tx(db, c -> jobs.lease(c, "w1", Duration.ofSeconds(30), 6_000, delay));
        Optional<AccountJob> notYet = tx(db, c -> jobs.lease(c, "w2", Duration.ofSeconds(30), 6_999, delay));
        Optional<AccountJob> deactivation = tx(db, c -> jobs.lease(c, "w2", Duration.ofSeconds(30), 7_000, delay));

        assertThat(tooEarly).isEmpty();
        assertThat(erase.orElseThrow().jobId()).isEqualTo(a + "-1");
        assertThat(notYet).isEmpty();
        assertThat(deactivation.orElseThrow().jobId()).isEqualTo(b + "-1");
    }

    @Test
    void jobs_leaseInCreationOrder_oneUsersJobsInVersionOrder_andALeaseHoldsUntilItExpires() {
        DataSource db = following(2001);
        long a = 2001;
        long b = 2001 + 256; // same shard, same database
        tx(db, c -> {
            jobs.insert(c, a + "-1", a, 1, JobKind.DEACTIVATE, 100);
            jobs.insert(c, a + "-2", a, 2, JobKind.REACTIVATE, 101);
            jobs.insert(c, b + "-1", b, 1, JobKind.ERASE, 102);
            return null;
        });

        Optional<AccountJob> first = tx(db, c -> jobs.lease(c, "w1", Duration.ofSeconds(30), 500, Duration.ZERO));
        Optional<AccountJob> second = tx(db, c -> jobs.lease(c, "w2", Duration.ofSeconds(30), 501, Duration.ZERO));
        Optional<AccountJob> none = tx(db, c -> jobs.lease(c, "w3", Duration.ofSeconds(30), 502, Duration.ZERO));

        assertThat(first.orElseThrow().jobId()).isEqualTo(a + "-1");
        assertThat(first.orElseThrow().status()).isEqualTo(JobStatus.RUNNING);
        assertThat(first.orElseThrow().startedAt()).isEqualTo(500L);
        // a's second job waits for its first; b's job is free.
        assertThat(second.orElseThrow().jobId()).isEqualTo(b + "-1");
        assertThat(none).isEmpty();

        var read11 = tx(db, c -> jobs.progress(c, a + "-1", "w2", Duration.ofSeconds(30), 1, 7, 3, 10, "{}"));
        assertThat(read11)
                .isFalse();
        var read12 = tx(db, c -> jobs.progress(c, a + "-1", "w1", Duration.ofSeconds(30), 1, 7, 3, 10, "{\"x\":1}"));
        assertThat(read12)
                .isTrue();
        var read13 = tx(db, c -> jobs.finish(c, a + "-1", "w1", 2, 0, 10, 10, "{\"x\":2}", 900));
        assertThat(read13).isTrue();

        AccountJob done = tx(db, c -> jobs.find(c, a + "-1")).orElseThrow();
        assertThat(done).isEqualTo(new AccountJob(a + "-1", a, 1, JobKind.DEACTIVATE, JobStatus.DONE, 2, 0, 10, 10,
                100, 500L, 900L, "{\"x\":2}"));
        AccountJob next = tx(db, c -> jobs.lease(c, "w3", Duration.ofSeconds(30), 950, Duration.ZERO)).orElseThrow();
        assertThat(next.jobId()).isEqualTo(a + "-2");
        var read14 = tx(db, c -> jobs.find(c, "9-9"));
        assertThat(read14).isEmpty();
    }

    @Test
    void aReleasedLease_isTakenOver_withItsRecordedPosition() {
        long user = 2002;
        DataSource db = following(user);
        tx(db, c -> {
            jobs.insert(c, user + "-1", user, 1, JobKind.ERASE, 100);
            return null;
        });
        tx(db, c -> jobs.lease(c, "dead", Duration.ofSeconds(60), 200, Duration.ZERO)).orElseThrow();
        tx(db, c -> jobs.progress(c, user + "-1", "dead", Duration.ofSeconds(60), 3, 4242, 17, 40, "{}"));
        var read15 = tx(db, c -> jobs.lease(c, "alive", Duration.ofSeconds(60), 300, Duration.ZERO));
        assertThat(read15).isEmpty();

        tx(db, c -> jobs.release(c, user + "-1", "dead"));
        AccountJob resumed = tx(db, c -> jobs.lease(c, "alive", Duration.ofSeconds(60), 300, Duration.ZERO)).orElseThrow();

        assertThat(resumed.phase()).isEqualTo(3);
        assertThat(resumed.position()).isEqualTo(4242);
        assertThat(resumed.done()).isEqualTo(17);
        assertThat(resumed.startedAt()).isEqualTo(200L);
        var read16 = tx(db, c -> jobs.progress(c, user + "-1", "dead", Duration.ofSeconds(60), 3, 5000, 18, 40, "{}"));
        assertThat(read16)
                .isFalse();
    }

    @Test
    void exclusions_areIdempotent_andTheOffsetIsTheirCount() {
        long user = 3001;
        DataSource db = follower(user);

        var read17 = tx(db, c -> exclusions.exclude(c, user, Counted.FOLLOWERS, 11));
        assertThat(read17).isTrue();
        var read18 = tx(db, c -> exclusions.exclude(c, user, Counted.FOLLOWERS, 11));
        assertThat(read18).isFalse();
        var read19 = tx(db, c -> exclusions.exclude(c, user, Counted.FOLLOWERS, 12));
        assertThat(read19).isTrue();
        var read20 = tx(db, c -> exclusions.exclude(c, user, Counted.FOLLOWING, 12));
        assertThat(read20).isTrue();
        var read21 = tx(db, c -> exclusions.offset(c, user, Counted.FOLLOWERS));
        assertThat(read21).isEqualTo(2);
        var read22 = tx(db, c -> exclusions.offset(c, user, Counted.FOLLOWING));
        assertThat(read22).isEqualTo(1);

        var read23 = tx(db, c -> exclusions.include(c, user, Counted.FOLLOWERS, 11));
        assertThat(read23).isTrue();
        var read24 = tx(db, c -> exclusions.include(c, user, Counted.FOLLOWERS, 11));
        assertThat(read24).isFalse();
        var read25 = tx(db, c -> exclusions.include(c, user, Counted.FOLLOWERS, 99));
        assertThat(read25).isFalse();
        var read26 = tx(db, c -> exclusions.offset(c, user, Counted.FOLLOWERS));
        assertThat(read26).isEqualTo(1);
        var read27 = tx(db, c -> exclusions.excludes(c, user, Counted.FOLLOWERS, 12));
        assertThat(read27).isTrue();
        var read28 = tx(db, c -> exclusions.excludes(c, user, Counted.FOLLOWERS, 11));
        assertThat(read28).isFalse();

        var read29 = tx(db, c -> exclusions.deleteAll(c, user, Counted.FOLLOWERS));
        assertThat(read29).isEqualTo(2); // one row, offset
        var read30 = tx(db, c -> exclusions.offset(c, user, Counted.FOLLOWERS));
        assertThat(read30).isZero();
        var read31 = tx(db, c -> exclusions.offset(c, user, Counted.FOLLOWING));
        assertThat(read31).isEqualTo(1);
        var read32 = tx(db, c -> exclusions.offset(c, 3002, Counted.FOLLOWING));
        assertThat(read32).isZero();
    }

    @Test
    void followerSide_removesOneFollowerFromARow_once() {
        long followee = 4001;
        FollowerRepository rows = new FollowerRepository();
        tx(follower(followee), c -> rows.writeNextVersion(c, rows.lockOrCreate(c, followee),
                new long[] {30, 10, 20}, new long[] {1, 2, 3}, 3, false));
        FollowerSideRemoval side = new FollowerSideRemoval(Relation.FOLLOW);

        var read33 = tx(follower(followee), c -> side.followers(c, followee));
        assertThat(read33).containsExactly(10, 20, 30);
        var read34 = tx(follower(followee), c -> side.remove(c, followee, 10));
        assertThat(read34).isTrue();
        var read35 = tx(follower(followee), c -> side.remove(c, followee, 10));
        assertThat(read35).isFalse();
        var read36 = tx(follower(followee), c -> side.remove(c, 4002, 10));
        assertThat(read36).isFalse();

        FollowerRow row = tx(follower(followee), c -> rows.find(c, followee)).orElseThrow();
        assertThat(row.followerIds()).containsExactly(30, 20);
        assertThat(row.followedAt()).containsExactly(1, 3);
        assertThat(row.followerCount()).isEqualTo(2);
        assertThat(row.version()).isEqualTo(2);
    }

    @Test
    void followerSide_removesFromACelebrityPage_andDeletesAPageItEmpties() {
        long followee = 4003;
        FollowerRepository rows = new FollowerRepository(Relation.BLOCK);
        CelebrityPageRepository pages = new CelebrityPageRepository(Relation.BLOCK);
        tx(follower(followee), c -> {
            rows.writeNextVersion(c, rows.lockOrCreate(c, followee), new long[0], new long[0], 3, true);
            pages.upsert(c, new CelebrityPage(followee, 0, new long[] {50, 40}, new long[] {1, 2}));
            pages.upsert(c, new CelebrityPage(followee, 1, new long[] {60}, new long[] {3}));
            return null;
        });
        FollowerSideRemoval side = new FollowerSideRemoval(Relation.BLOCK);

        var read37 = tx(follower(followee), c -> side.followers(c, followee));
        assertThat(read37).containsExactly(40, 50, 60);
        var read38 = tx(follower(followee), c -> side.remove(c, followee, 60));
        assertThat(read38).isTrue();
        var read39 = tx(follower(followee), c -> side.remove(c, followee, 40));
        assertThat(read39).isTrue();
        var read40 = tx(follower(followee), c -> side.remove(c, followee, 40));
        assertThat(read40).isFalse();

        List<CelebrityPage> left = tx(follower(followee), c -> pages.all(c, followee));
        assertThat(left).hasSize(1);
        assertThat(left.getFirst().followerIds()).containsExactly(50);
        var read41 = tx(follower(followee), c -> rows.find(c, followee));
        assertThat(read41.orElseThrow().followerCount()).isEqualTo(1);
        assertThatThrownBy(() -> new FollowerSideRemoval(Relation.MUTE)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void accountRows_deleteEveryRowOfTheUser_andFindItsMuters() {
        long user = 5001;
        long muter = 5001 + 256;
        FollowingRepository mutes = new FollowingRepository(Relation.MUTE);
        tx(following(user), c -> {
            states.lockUserRows(c, user, true);
            mutes.writeNextVersion(c, mutes.lockOrCreate(c, muter), new long[] {user}, new long[] {1});
            return null;
        });
        FollowerRepository rows = new FollowerRepository();
        tx(follower(user), c -> rows.writeNextVersion(c, rows.lockOrCreate(c, user), new long[0], new long[0], 1,
                true));
        tx(follower(user), c -> {
            new CelebrityPageRepository().upsert(c, new CelebrityPage(user, 0, new long[] {7}, new long[] {1}));
            return null;
        });

        long[] muters = tx(following(user), c -> accountRows.muters(c, user));
        int followingDeleted = tx(following(user), c -> accountRows.deleteFollowingRows(c, user));
        int followerDeleted = tx(follower(user), c -> accountRows.deleteFollowerRows(c, user));
        int deletedAgain = tx(follower(user), c -> accountRows.deleteFollowerRows(c, user));

        assertThat(muters).containsExactly(muter);
        assertThat(followingDeleted).isEqualTo(3);
        assertThat(followerDeleted).isEqualTo(2);
        assertThat(deletedAgain).isZero();
        Optional<?> ownRow = tx(following(user), c -> new FollowingRepository().find(c, user));
        Optional<?> mutersRow = tx(following(muter), c -> mutes.find(c, muter));
        assertThat(ownRow).isEmpty();
        assertThat(mutersRow).isPresent();
    }
}
