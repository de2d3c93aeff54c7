package dev.socialgraph.tools.shards;

import static dev.socialgraph.common.shard.ShardGroup.FOLLOWER;
import static dev.socialgraph.common.shard.ShardGroup.FOLLOWING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.adjacency.Adjacency;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardDirectory;
import dev.socialgraph.store.shard.ShardFence;
import dev.socialgraph.store.shard.ShardMapPoller;
import dev.socialgraph.store.shard.ShardMigrations;
import dev.socialgraph.store.shard.ShardMovedException;
import dev.socialgraph.testsupport.PostgresServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The mover against real PostgreSQL: a {@link TestShards} topology, a directory database and a third database per
 * test, writers that route through {@link ShardDataSources} with a {@link ShardMapPoller} (as the services do), and an
 * outbox relay stand-in that "publishes" each database's outbox in id order into one list.
 */
class ShardMoverIT {

    private static final Duration POLL = Duration.ofMillis(50);

    private final FollowingRepository following = new FollowingRepository();
    private final FollowerRepository followers = new FollowerRepository();
    private final CelebrityPageRepository pages = new CelebrityPageRepository();
    private final OutboxRepository outbox = new OutboxRepository();

    private PostgresServer postgres;
    private TestShards shards;
    private final List<String> extraDatabases = new ArrayList<>();
    private ShardDirectory directory;
    private ShardDataSources writers;
    private ShardMapPoller poller;
    private ExecutorService threads;
    private final AtomicBoolean stop = new AtomicBoolean();

    /** Events as the relay stand-in published them, across databases, in publication order: {follower, version}. */
    private final List<long[]> published = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws SQLException {
        postgres = TestServers.postgres();
        shards = TestShards.create("mover");
        try (ShardDataSources ds = new ShardDataSources(shards.shardMap(), settings("migrate"))) {
            ShardMigrations.migrateAll(ds);
        }
        String dir = database("mover_directory");
        directory = new ShardDirectory(postgres.dataSource(dir));
        directory.install();
        directory.bootstrap(shards.shardMap());
        writers = new ShardDataSources(shards.shardMap(), 1, settings("writers"));
        poller = new ShardMapPoller(directory, writers, "mover-it", POLL);
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown() throws Exception {
        stop.set(true);
        threads.shutdownNow();
        poller.close();
        writers.close();
        extraDatabases.forEach(postgres::dropDatabase);
        shards.close();
    }

    private String database(String prefix) {
        String db = postgres.createDatabase(prefix);
        extraDatabases.add(db);
        return db;
    }

    private ShardDataSources.PoolSettings settings(String name) {
        return new ShardDataSources.PoolSettings(shards.username(), shards.password(), 8, Duration.ofSeconds(10),
                name, Duration.ZERO, Duration.ZERO, Duration.ofSeconds(5));
    }

    private ShardMover mover(ShardMover.Settings settings) {
        return new ShardMover(directory, shards.username(), shards.password(), settings);
    }

    private ShardRange range(ShardGroup group, int half) {
        return shards.shardMap().ranges(group).get(half);
    }

    /** A user of logical shard {@code shard}: {@code shard + 256 k}, {@code k >= 1}. */
    private static long user(int shard, int k) {
        return shard + 256L * k;
    }

    // ---------------------------------------------------------------------------------------------------------------

    /** An acknowledged change of a following row: its version and the followings after it. */
    private record Ack(long version, long[] ids) {
    }

    @Test
    void move_andBack_underConcurrentWritesAndRelay_losesNoWriteAndKeepsEventOrderPerFollower() throws Exception {
        String third = database("mover_following_2");
        ShardRange f1 = range(FOLLOWING, 1);
        List<Long> users = new ArrayList<>();
        for (int k = 1; k <= 6; k++) {
            for (int shard = 100; shard < 220; shard += 7) { // in f0, in the moved range 128..191, and after it
                users.add(user(shard, k));
            }
        }
        Map<Long, List<Ack>> acks = new ConcurrentHashMap<>();
        AtomicLong failures = new AtomicLong();
        threads.submit(this::relay);
        List<Future<?>> clients = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            clients.add(threads.submit(() -> writeRandomly(users, acks, failures)));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> acks.values().stream().mapToInt(List::size).sum() >= 300);

        MoveSummary away = mover(ShardMover.Settings.defaults()).move(new ShardMover.Request(FOLLOWING, 128, 191,
                third, postgres.jdbcUrl(third), false));
        long acked = acks.values().stream().mapToInt(List::size).sum();
        await().atMost(Duration.ofSeconds(30)).until(() -> acks.values().stream().mapToInt(List::size).sum()
                >= acked + 300);
        MoveSummary back = mover(ShardMover.Settings.defaults()).move(new ShardMover.Request(FOLLOWING, 128, 191,
                f1.database(), f1.jdbcUrl(), false));
        long ackedBack = acks.values().stream().mapToInt(List::size).sum();
        await().atMost(Duration.ofSeconds(30)).until(() -> acks.values().stream().mapToInt(List::size).sum()
                >= ackedBack + 300);
        stop.set(true);
        for (Future<?> client : clients) {
            client.get();
        }
        System.out.print(away.report());
        System.out.print(back.report());

        assertThat(away.newVersion()).isEqualTo(2);
        assertThat(back.newVersion()).isEqualTo(3);
        assertThat(away.rounds()).isNotEmpty();
        assertThat(away.rounds().getFirst().upserted()).isPositive();
        assertThat(away.stragglers()).isEmpty();
        assertThat(away.rowsCleaned()).isPositive();
        assertThat(back.rowsCleaned()).isPositive();
        assertThat(directory.latest().map()).isEqualTo(shards.shardMap());
        assertThat(failures.get()).as("writes refused or timed out").isZero();

        // Every acknowledged write is in the owner's row, no version was acknowledged twice (one writer per row).
        for (Map.Entry<Long, List<Ack>> e : acks.entrySet()) {
            long[] versions = e.getValue().stream().mapToLong(Ack::version).sorted().toArray();
            assertThat(versions).as("versions of %d", e.getKey()).doesNotHaveDuplicates();
            Ack last = e.getValue().stream().max((a, b) -> Long.compare(a.version(), b.version())).orElseThrow();
            FollowingRow row = readFollowing(e.getKey());
            assertThat(row.version()).as("version of %d", e.getKey()).isEqualTo(last.version());
            assertThat(row.followingIds()).as("followings of %d", e.getKey()).containsExactly(last.ids());
        }
        // Events: every acknowledged change published once, in version order per follower, across three databases.
        await().atMost(Duration.ofSeconds(10)).until(() -> published.size() == acks.values().stream()
                .mapToInt(List::size).sum());
        Map<Long, List<Long>> eventVersions = new HashMap<>();
        for (long[] event : published) {
            eventVersions.computeIfAbsent(event[0], k -> new ArrayList<>()).add(event[1]);
        }
        for (Map.Entry<Long, List<Ack>> e : acks.entrySet()) {
            long[] expected = e.getValue().stream().mapToLong(Ack::version).sorted().toArray();
            assertThat(eventVersions.get(e.getKey())).as("event versions of %d", e.getKey())
                    .containsExactly(Arrays.stream(expected).boxed().toArray(Long[]::new));
        }
        // The old owners: no rows of the range left; the third database recorded that the range went back.
        try (Connection c = postgres.dataSource(third).getConnection()) {
            assertThat(count(c, "following_adjacency", "follower_id", 128, 191)).isZero();
            assertThat(ShardFence.moved(c, FOLLOWING)).hasSize(64).first().isEqualTo(128);
            assertThat(ShardFence.movedIn(c, FOLLOWING, 150)).isEqualTo(3);
        }
        try (Connection c = postgres.dataSource(f1.database()).getConnection()) {
            assertThat(ShardFence.moved(c, FOLLOWING)).isEmpty();
            assertThat(count(c, "following_adjacency", "follower_id", 128, 191)).isPositive();
        }
    }

    /** Follows and unfollows random pairs through the routed pools, as the write service does. */
    private void writeRandomly(List<Long> users, Map<Long, List<Ack>> acks, AtomicLong failures) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop.get()) {
            long follower = users.get(random.nextInt(users.size()));
            long followee = users.get(random.nextInt(users.size()));
            if (follower == followee) {
                continue;
            }
            boolean follow = random.nextInt(3) > 0;
            try {
                Ack ack = writers.inUserTransaction(FOLLOWING, follower, c -> {
                    FollowingRow locked = following.lockOrCreate(c, follower);
                    long now = System.currentTimeMillis();
                    Adjacency next = follow
                            ? AdjacencyArray.insert(locked.followingIds(), locked.followedAt(), followee, now)
                            : AdjacencyArray.remove(locked.followingIds(), locked.followedAt(), followee);
                    if (!next.changed()) {
                        return null;
                    }
                    FollowingRow row = following.writeNextVersion(c, locked, next.ids(), next.followedAt());
                    outbox.append(c, follower, followee, follow, follow ? now : next.removedFollowedAt(),
                            row.version());
                    return new Ack(row.version(), row.followingIds());
                });
                if (ack != null) {
                    acks.computeIfAbsent(follower, k -> new CopyOnWriteArrayList<>()).add(ack);
                }
            } catch (SQLException | RuntimeException e) {
                failures.incrementAndGet();
                System.err.println("write failed: " + e);
            }
        }
    }

    /** The outbox relay stand-in: each database's unpublished rows in id order, one database after another. */
    private void relay() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                for (DataSource db : writers.all().values()) {
                    try (Connection c = db.getConnection()) {
                        c.setAutoCommit(false);
                        List<Long> ids = new ArrayList<>();
                        try (PreparedStatement ps = c.prepareStatement("""
                                SELECT id, follower_id, version FROM follow_outbox WHERE published_at IS NULL
                                ORDER BY id FOR UPDATE""");
                             ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                ids.add(rs.getLong(1));
                                published.add(new long[] {rs.getLong(2), rs.getLong(3)});
                            }
                        }
                        try (PreparedStatement ps = c.prepareStatement(
                                "UPDATE follow_outbox SET published_at = now() WHERE id = ANY (?)")) {
                            ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
                            ps.executeUpdate();
                        }
                        c.commit();
                    }
                }
                Thread.sleep(5);
            } catch (InterruptedException e) {
                return;
            } catch (SQLException e) {
                System.err.println("relay: " + e);
            }
        }
    }

    private FollowingRow readFollowing(long follower) throws SQLException {
        ShardDirectory.Versioned latest = directory.latest();
        ShardRange owner = latest.map().route(FOLLOWING, follower);
        try (Connection c = postgres.dataSource(owner.database()).getConnection()) {
            return following.find(c, follower).orElseThrow();
        }
    }

    private static long count(Connection c, String table, String column, int first, int last) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + table + " WHERE mod(" + column
                + ", 256) BETWEEN ? AND ?")) {
            ps.setInt(1, first);
            ps.setInt(2, last);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    @Test
    void move_followingRange_carriesAccountStatesJobsAndCountExclusions() throws Exception {
        String third = database("mover_following_2");
        ShardRange f1 = range(FOLLOWING, 1);
        long moved = user(130, 1);
        long stays = user(200, 1);
        try (Connection c = postgres.dataSource(f1.database()).getConnection(); Statement st = c.createStatement()) {
            for (long u : new long[] {moved, stays}) {
                st.execute("INSERT INTO account_states (user_id, state, version, changed_at, job_id) VALUES (" + u
                        + ", 1, 1, 5, '" + u + "-1')");
                st.execute("INSERT INTO account_jobs (job_id, user_id, version, kind, status, created_at, done, total)"
                        + " VALUES ('" + u + "-1', " + u + ", 1, 'deactivate', 'done', 5, 7, 7)");
                st.execute("INSERT INTO count_exclusions (user_id, counted, other_id) VALUES (" + u + ", 0, 99)");
                st.execute("INSERT INTO count_offsets (user_id, counted, excluded) VALUES (" + u + ", 0, 1)");
            }
        }

        mover(ShardMover.Settings.defaults()).move(new ShardMover.Request(FOLLOWING, 128, 191, third,
                postgres.jdbcUrl(third), false));

        try (Connection c = postgres.dataSource(third).getConnection()) {
            assertThat(rows(c, "SELECT user_id, state, version, job_id FROM account_states"))
                    .containsExactly(moved + " 1 1 " + moved + "-1");
            assertThat(rows(c, "SELECT job_id, status, done, total FROM account_jobs"))
                    .containsExactly(moved + "-1 done 7 7");
            assertThat(rows(c, "SELECT user_id, counted, other_id FROM count_exclusions"))
                    .containsExactly(moved + " 0 99");
            assertThat(rows(c, "SELECT user_id, counted, excluded FROM count_offsets")).containsExactly(moved + " 0 1");
        }
        try (Connection c = postgres.dataSource(f1.database()).getConnection()) {
            assertThat(rows(c, "SELECT user_id FROM account_states")).as("the old owner keeps only its own")
                    .containsExactly(Long.toString(stays));
            assertThat(rows(c, "SELECT user_id FROM count_offsets")).containsExactly(Long.toString(stays));
        }
    }

    /** Every row of {@code sql} as its columns joined by spaces. */
    private static List<String> rows(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    row.append(i == 1 ? "" : " ").append(rs.getString(i));
                }
                out.add(row.toString());
            }
        }
        return out;
    }

    @Test
    void move_followerRange_withCelebrityPages_copiesRowsAndPagesExactly() throws Exception {
        String name = "mover_created_" + Long.toString(System.nanoTime() % 1_000_000_000L, 36);
        extraDatabases.add(name);
        String url = postgres.jdbcUrl(name);
        List<Long> followees = new ArrayList<>();
        for (int shard = 0; shard < 64; shard += 3) {
            followees.add(user(shard, 1));
        }
        long celebrity = user(10, 2);
        AtomicLong failures = new AtomicLong();
        List<Future<?>> clients = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            clients.add(threads.submit(() -> writeFollowers(followees, celebrity, failures)));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> pageCount(celebrity) >= 3);

        MoveSummary summary = mover(ShardMover.Settings.defaults()).move(new ShardMover.Request(FOLLOWER, 0, 63, name,
                url, true));
        await().atMost(Duration.ofSeconds(30)).until(() -> pageCount(celebrity) >= 6);
        stop.set(true);
        for (Future<?> client : clients) {
            client.get();
        }
        System.out.print(summary.report());

        assertThat(failures.get()).isZero();
        assertThat(summary.drainMillis()).isZero();
        assertThat(directory.latest().map().route(FOLLOWER, celebrity).database()).isEqualTo(name);
        assertThat(directory.latest().map().route(FOLLOWER, user(64, 1)).database())
                .isEqualTo(range(FOLLOWER, 0).database());
        try (Connection c = postgres.dataSource(name).getConnection()) {
            FollowerRow row = followers.find(c, celebrity).orElseThrow();
            List<CelebrityPage> all = pages.all(c, celebrity);
            assertThat(row.celebrity()).isTrue();
            assertThat(all.stream().mapToLong(p -> p.followerIds().length).sum()).isEqualTo(row.followerCount());
            assertThat(all.getLast().followerIds()).hasSizeLessThanOrEqualTo(5);
            for (long followee : followees) {
                FollowerRow r = followers.find(c, followee).orElseThrow();
                assertThat(r.followerIds()).hasSize((int) r.followerCount());
            }
        }
        try (Connection c = postgres.dataSource(range(FOLLOWER, 0).database()).getConnection()) {
            assertThat(count(c, "follower_adjacency", "followee_id", 0, 63)).isZero();
            assertThat(count(c, "celebrity_followers_page", "followee_id", 0, 63)).isZero();
        }
    }

    /**
     * Appends followers to follower rows, and to the celebrity's pages of five (the row holds the count only), each
     * change checked against the previous version: a row written twice at one version would fail here.
     */
    private void writeFollowers(List<Long> followees, long celebrity, AtomicLong failures) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop.get()) {
            boolean toCelebrity = random.nextInt(4) == 0;
            long followee = toCelebrity ? celebrity : followees.get(random.nextInt(followees.size()));
            long follower = 1 + random.nextLong(1_000_000_000L);
            try {
                writers.inUserTransaction(FOLLOWER, followee, c -> {
                    FollowerRow locked = followers.lockOrCreate(c, followee);
                    long now = System.currentTimeMillis();
                    if (followee == celebrity) {
                        int pageNum = (int) (locked.followerCount() / 5);
                        CelebrityPage page = pages.all(c, followee).stream().filter(p -> p.pageNum() == pageNum)
                                .findFirst().orElse(new CelebrityPage(followee, pageNum, new long[0], new long[0]));
                        long[] ids = Arrays.copyOf(page.followerIds(), page.followerIds().length + 1);
                        long[] at = Arrays.copyOf(page.followedAt(), page.followedAt().length + 1);
                        ids[ids.length - 1] = follower;
                        at[at.length - 1] = now;
                        pages.upsert(c, new CelebrityPage(followee, pageNum, ids, at));
                        followers.writeNextVersion(c, locked, new long[0], new long[0], locked.followerCount() + 1,
                                true);
                    } else {
                        long[] ids = Arrays.copyOf(locked.followerIds(), locked.followerIds().length + 1);
                        long[] at = Arrays.copyOf(locked.followedAt(), locked.followedAt().length + 1);
                        ids[ids.length - 1] = follower;
                        at[at.length - 1] = Math.max(now, at.length > 1 ? at[at.length - 2] : 0);
                        followers.writeNextVersion(c, locked, ids, at, locked.followerCount() + 1, false);
                    }
                    return null;
                });
            } catch (SQLException | RuntimeException e) {
                failures.incrementAndGet();
                System.err.println("follower write failed: " + e);
            }
        }
    }

    private int pageCount(long celebrity) throws SQLException {
        ShardRange owner = directory.latest().map().route(FOLLOWER, celebrity);
        try (Connection c = postgres.dataSource(owner.database()).getConnection()) {
            return pages.all(c, celebrity).size();
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    @Test
    void move_ofARangeAlreadyThere_doesNothing() throws Exception {
        ShardRange f1 = range(FOLLOWING, 1);
        MoveSummary summary = mover(ShardMover.Settings.defaults()).move(new ShardMover.Request(FOLLOWING, 130, 140,
                f1.database(), f1.jdbcUrl(), false));
        assertThat(summary.alreadyThere()).isTrue();
        assertThat(summary.report()).contains("already live in " + f1.database());
        assertThat(directory.latest().version()).isEqualTo(1);
    }

    @Test
    void move_whileTheRelayPublishesNothing_abortsBeforeTheFenceAndSwitchesNothing() throws Exception {
        String third = database("mover_following_2");
        long follower = user(130, 1);
        writers.inUserTransaction(FOLLOWING, follower, c -> {
            FollowingRow row = following.writeNextVersion(c, following.lockOrCreate(c, follower), new long[] {2},
                    new long[] {1});
            return outbox.append(c, follower, 2, true, 1, row.version());
        });
        ShardMover.Settings settings = new ShardMover.Settings(5, 100, 500, Duration.ofSeconds(2),
                Duration.ofSeconds(2), Duration.ofMillis(300), Duration.ofSeconds(10), Duration.ofSeconds(30), true);

        assertThatThrownBy(() -> mover(settings).move(new ShardMover.Request(FOLLOWING, 128, 191, third,
                postgres.jdbcUrl(third), false)))
                .isInstanceOf(ShardMoveException.class).hasMessageContaining("step b: 1 outbox rows")
                .hasMessageContaining("Nothing was switched");
        assertThat(directory.latest().version()).isEqualTo(1);
        try (Connection c = postgres.dataSource(range(FOLLOWING, 1).database()).getConnection()) {
            assertThat(ShardFence.moved(c, FOLLOWING)).isEmpty();
        }
    }

    @Test
    void move_whenAWriterHoldsTheFenceTooLong_abortsAtTheFenceAndSwitchesNothing() throws Exception {
        String third = database("mover_following_2");
        ShardMover.Settings settings = new ShardMover.Settings(5, 100, 500, Duration.ofMillis(300),
                Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(30), true);
        try (Connection writer = postgres.dataSource(range(FOLLOWING, 1).database()).getConnection()) {
            writer.setAutoCommit(false);
            ShardFence.enter(writer, FOLLOWING, 150); // a write transaction in flight that does not end

            assertThatThrownBy(() -> mover(settings).move(new ShardMover.Request(FOLLOWING, 128, 191, third,
                    postgres.jdbcUrl(third), false)))
                    .isInstanceOf(ShardMoveException.class).hasMessageContaining("step c")
                    .hasMessageContaining("was not granted within 300 ms");
            writer.rollback();
        }
        assertThat(directory.latest().version()).isEqualTo(1);
        // The fence is gone with the mover's session: a writer enters at once.
        writers.inUserTransaction(FOLLOWING, user(150, 1), c -> following.lockOrCreate(c, user(150, 1)));
    }

    @Test
    void move_whenAnotherVersionIsPublishedMeanwhile_undoesItsRecordAndAborts() throws Exception {
        String third = database("mover_following_2");
        ShardRange f1 = range(FOLLOWING, 1);
        CompletableFuture<MoveSummary> move;
        try (Connection writer = postgres.dataSource(f1.database()).getConnection()) {
            writer.setAutoCommit(false);
            ShardFence.enter(writer, FOLLOWING, 191); // holds the mover in step c
            ShardMover.Settings patient = new ShardMover.Settings(5, 100, 500, Duration.ofSeconds(30),
                    Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(30), true);
            move = CompletableFuture.supplyAsync(() -> {
                try {
                    return mover(patient).move(new ShardMover.Request(FOLLOWING, 128, 191,
                            third, postgres.jdbcUrl(third), false));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }, threads);
            await().atMost(Duration.ofSeconds(20)).until(() -> fenceWaiters(writer) > 0);
            ShardMap other = shards.shardMap().reassign(FOLLOWER, 0, 0, range(FOLLOWER, 1).database(),
                    range(FOLLOWER, 1).jdbcUrl());
            assertThat(directory.publish(1, other)).isTrue();
            writer.rollback();
        }
        assertThatThrownBy(move::join).hasCauseInstanceOf(ShardMoveException.class)
                .hasMessageContaining("another shard map version 2 was published");
        try (Connection c = postgres.dataSource(f1.database()).getConnection()) {
            assertThat(ShardFence.moved(c, FOLLOWING)).isEmpty();
        }
        assertThat(directory.latest().map().route(FOLLOWING, user(150, 1)).database()).isEqualTo(f1.database());
    }

    @Test
    void move_afterAMoveThatNeverPublished_clearsItsRecordAndMoves() throws Exception {
        String third = database("mover_following_2");
        ShardRange f1 = range(FOLLOWING, 1);
        try (Connection c = postgres.dataSource(f1.database()).getConnection()) {
            ShardFence.markMoved(c, FOLLOWING, 128, 191, 2, third, System.currentTimeMillis());
        }
        MoveSummary summary = mover(ShardMover.Settings.defaults()).move(new ShardMover.Request(FOLLOWING, 128, 191,
                third, postgres.jdbcUrl(third), false));
        assertThat(summary.newVersion()).isEqualTo(2);
        assertThat(directory.latest().map().route(FOLLOWING, user(150, 1)).database()).isEqualTo(third);
    }

    @Test
    void cleanup_ofShardsStillLivingThere_isRefused() throws Exception {
        ShardRange f1 = range(FOLLOWING, 1);
        assertThatThrownBy(() -> mover(ShardMover.Settings.defaults()).cleanup(FOLLOWING, 128, 191, f1.database(),
                f1.jdbcUrl())).isInstanceOf(ShardMoveException.class)
                .hasMessageContaining("lives in " + f1.database());
    }

    @Test
    void move_withoutCleanup_leavesTheRowsForACleanupLater() throws Exception {
        String third = database("mover_following_2");
        ShardRange f1 = range(FOLLOWING, 1);
        long follower = user(140, 1);
        writers.inUserTransaction(FOLLOWING, follower, c -> following.writeNextVersion(c,
                following.lockOrCreate(c, follower), new long[] {9}, new long[] {1}));
        MoveSummary summary = mover(ShardMover.Settings.defaults().withCleanup(false)).move(new ShardMover.Request(
                FOLLOWING, 128, 191, third, postgres.jdbcUrl(third), false));
        assertThat(summary.rowsCleaned()).isEqualTo(-1);
        assertThat(summary.report()).contains("run 'shards cleanup'");

        long rows = mover(ShardMover.Settings.defaults()).cleanup(FOLLOWING, 128, 191, f1.database(), f1.jdbcUrl());
        assertThat(rows).isEqualTo(1);
        try (Connection c = postgres.dataSource(third).getConnection()) {
            assertThat(following.find(c, follower).orElseThrow().followingIds()).containsExactly(9);
        }
    }

    /**
     * A writer held back by the fence must see the move recorded while it waited: {@code ShardFence.enter} reads
     * {@code shard_moves} in a statement after the lock's, whose READ COMMITTED snapshot includes the record committed
     * meanwhile (a check in the lock's own statement would miss it and write to the old owner).
     */
    @Test
    void enter_heldBackByTheFence_seesTheMoveRecordedMeanwhile() throws Exception {
        ShardRange f1 = range(FOLLOWING, 1);
        try (Connection mover = postgres.dataSource(f1.database()).getConnection();
             Connection writer = postgres.dataSource(f1.database()).getConnection()) {
            ShardFence.fence(mover, FOLLOWING, 150, 150);
            writer.setAutoCommit(false);
            CompletableFuture<Void> entered = CompletableFuture.runAsync(() -> {
                try {
                    ShardFence.enter(writer, FOLLOWING, 150);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }, threads);
            await().atMost(Duration.ofSeconds(10)).until(() -> fenceWaiters(mover) > 0);
            ShardFence.markMoved(mover, FOLLOWING, 150, 150, 2, "elsewhere", System.currentTimeMillis());
            ShardFence.unfence(mover, FOLLOWING, 150, 150);
            assertThatThrownBy(entered::join).hasCauseInstanceOf(ShardMovedException.class);
            writer.rollback();
        }
    }

    /** Sessions waiting for an advisory lock on the database of {@code connection}. */
    private static int fenceWaiters(Connection connection) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
