package dev.socialgraph.store.shard;

import static dev.socialgraph.common.shard.ShardGroup.FOLLOWER;
import static dev.socialgraph.common.shard.ShardGroup.FOLLOWING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.outbox.EventTracing;
import dev.socialgraph.store.outbox.OutboxEntry;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.outbox.OutboxTrace;
import dev.socialgraph.store.sql.SqlErrors;
import dev.socialgraph.store.sql.Transactions;
import dev.socialgraph.testsupport.TestShards;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** The shard schema and repositories against real PostgreSQL with two physical databases per group. */
class ShardStoreIT {

    private static TestShards shards;
    private static ShardDataSources dataSources;

    private final FollowingRepository following = new FollowingRepository();
    private final FollowerRepository followers = new FollowerRepository();
    private final CelebrityPageRepository pages = new CelebrityPageRepository();
    private final OutboxRepository outbox = new OutboxRepository();

    @BeforeAll
    static void migrate() {
        shards = TestShards.create("store");
        dataSources = new ShardDataSources(shards.shardMap(), new ShardDataSources.PoolSettings(
                shards.username(), shards.password(), 4, Duration.ofSeconds(5), "store-it"));
        assertThat(ShardMigrations.migrateAll(dataSources)).isEqualTo(40); // 4 databases, 10 migrations
    }

    @AfterAll
    static void close() {
        dataSources.close();
        shards.close();
    }

    @Test
    void aSocketTimeoutFinerThanSeconds_isEachConnectionsNetworkTimeout_andTheStatementTimeoutTheSessions()
            throws Exception {
        try (ShardDataSources timed = new ShardDataSources(shards.shardMap(), new ShardDataSources.PoolSettings(
                shards.username(), shards.password(), 2, Duration.ofSeconds(5), "store-it-timed", Duration.ZERO,
                Duration.ofMillis(900), Duration.ofMillis(750)))) {
            DataSource db = timed.forRange(shards.shardMap().ranges(ShardGroup.FOLLOWING).get(0));
            for (int i = 0; i < 3; i++) { // handed out again after the pool undid it
                try (Connection c = db.getConnection(); Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("SHOW statement_timeout")) {
                    assertThat(c.getNetworkTimeout()).isEqualTo(900);
                    rs.next();
                    assertThat(rs.getString(1)).isEqualTo("750ms");
                }
            }
        }
    }

    @Test
    void migrateAll_whenAlreadyCurrent_appliesNothing() {
        assertThat(ShardMigrations.migrateAll(dataSources)).isZero();
    }

    @Test
    void followingRows_landInTheDatabaseTheShardMapNames() throws SQLException {
        long lowShardUser = 256L * 1000 + 5;     // logical shard 5   -> first following database
        long highShardUser = 256L * 1000 + 200;  // logical shard 200 -> second following database
        for (long user : new long[] {lowShardUser, highShardUser}) {
            Transactions.inTransaction(dataSources.forUser(FOLLOWING, user), c -> {
                FollowingRow row = following.lockOrCreate(c, user);
                return following.writeNextVersion(c, row, new long[] {7, 9}, new long[] {100, 200});
            });
        }
        ShardRange low = shards.shardMap().ranges(FOLLOWING).get(0);
        ShardRange high = shards.shardMap().ranges(FOLLOWING).get(1);
        assertThat(followerIdsIn(low, "following_adjacency", "follower_id"))
                .contains(lowShardUser).doesNotContain(highShardUser)
                .allSatisfy(id -> assertThat(Math.floorMod(id, 256L)).isBetween(0L, 127L));
        assertThat(followerIdsIn(high, "following_adjacency", "follower_id"))
                .contains(highShardUser).doesNotContain(lowShardUser)
                .allSatisfy(id -> assertThat(Math.floorMod(id, 256L)).isBetween(128L, 255L));
        // Nothing leaked into the follower group.
        for (ShardRange r : shards.shardMap().ranges(FOLLOWER)) {
            assertThat(followerIdsIn(r, "following_adjacency", "follower_id")).isEmpty();
        }
    }

    @Test
    void followerRows_landInTheDatabaseOfTheFolloweesShard() throws SQLException {
        long followee = 256L * 77 + 130; // logical shard 130 -> second follower database
        Transactions.inTransaction(dataSources.forUser(FOLLOWER, followee), c -> {
            FollowerRow row = followers.lockOrCreate(c, followee);
            return followers.writeNextVersion(c, row, new long[] {3, 1}, new long[] {10, 10}, 2, false);
        });
        assertThat(followerIdsIn(shards.shardMap().ranges(FOLLOWER).get(1), "follower_adjacency", "followee_id"))
                .contains(followee)
                .allSatisfy(id -> assertThat(Math.floorMod(id, 256L)).isBetween(128L, 255L));
        assertThat(followerIdsIn(shards.shardMap().ranges(FOLLOWER).get(0), "follower_adjacency", "followee_id"))
                .doesNotContain(followee)
                .allSatisfy(id -> assertThat(Math.floorMod(id, 256L)).isBetween(0L, 127L));
    }

    @Test
    void writeNextVersion_storesArraysAndIncrementsTheVersion() throws SQLException {
        long user = 4242;
        var ds = dataSources.forUser(FOLLOWING, user);
        FollowingRow first = Transactions.inTransaction(ds, c ->
                following.writeNextVersion(c, following.lockOrCreate(c, user), new long[] {5}, new long[] {1_700_000_000_000L}));
        FollowingRow second = Transactions.inTransaction(ds, c ->
                following.writeNextVersion(c, following.lockOrCreate(c, user),
                        new long[] {5, Long.MAX_VALUE}, new long[] {1_700_000_000_000L, 1_700_000_000_001L}));
        assertThat(first.version()).isEqualTo(1);
        assertThat(second.version()).isEqualTo(2);
        FollowingRow stored = Transactions.inTransaction(ds, c -> following.find(c, user).orElseThrow());
        assertThat(stored).isEqualTo(second);
        assertThat(stored.followingIds()).containsExactly(5, Long.MAX_VALUE);
        assertThat(stored.followedAt()).containsExactly(1_700_000_000_000L, 1_700_000_000_001L);
        assertThat(stored.followingCount()).isEqualTo(2);
    }

    @Test
    void writeNextVersion_whenTheRowMovedOn_refusesAndChangesNothing() throws SQLException {
        long user = 5151;
        var ds = dataSources.forUser(FOLLOWING, user);
        FollowingRow stale = Transactions.inTransaction(ds, c -> following.lockOrCreate(c, user));
        Transactions.inTransaction(ds, c ->
                following.writeNextVersion(c, following.lockOrCreate(c, user), new long[] {1}, new long[] {1}));
        assertThatThrownBy(() -> Transactions.inTransaction(ds, c ->
                following.writeNextVersion(c, stale, new long[] {2}, new long[] {2})))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("not at version 0");
        long[] stored = Transactions.inTransaction(ds, c -> following.find(c, user).orElseThrow().followingIds());
        assertThat(stored).containsExactly(1);
    }

    /** The follower side runs the row protocol of the following side ({@code AdjacencyRows}) with its own columns. */
    @Test
    void followerRows_readLockAndWriteAsFollowingRowsDo_withTheirOwnColumnsAndMessages() throws SQLException {
        long a = 256L * 9100 + 3;
        long b = 256L * 9101 + 3; // same logical shard, same database
        var ds = dataSources.forUser(FOLLOWER, a);
        FollowerRow stale = Transactions.inTransaction(ds, c -> followers.lockOrCreate(c, a));
        FollowerRow written = Transactions.inTransaction(ds, c ->
                followers.writeNextVersion(c, followers.lockOrCreate(c, a), new long[] {8, 2}, new long[] {5, 6}, 2,
                        false));
        Transactions.inTransaction(ds, c ->
                followers.writeNextVersion(c, followers.lockOrCreate(c, b), new long[0], new long[0], 300_000, true));

        assertThat(stale).isEqualTo(FollowerRow.empty(a));
        assertThat(written.version()).isEqualTo(1);
        assertThatThrownBy(() -> Transactions.inTransaction(ds, c ->
                followers.writeNextVersion(c, stale, new long[] {9}, new long[] {9}, 1, false)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("follower row " + a + " is not at version 0; was it locked in this transaction?");
        Optional<FollowerRow> found = Transactions.inTransaction(ds, c -> followers.find(c, a));
        Optional<FollowerRow> absent = Transactions.inTransaction(ds, c -> followers.lock(c, 999_999_999L));
        List<FollowerRow> both = Transactions.inTransaction(ds, c -> followers.findAll(c, new long[] {a, b, 999_999_999L}));
        List<FollowerRow> firstPage = Transactions.inTransaction(ds, c -> followers.scan(c, a - 1, 1));
        long count = Transactions.inTransaction(ds, c -> followers.count(c, b));
        assertThat(found).contains(written);
        assertThat(absent).isEmpty();
        assertThat(both).extracting(FollowerRow::followeeId, FollowerRow::followerCount, FollowerRow::celebrity)
                .containsExactlyInAnyOrder(tuple(a, 2L, false), tuple(b, 300_000L, true));
        assertThat(firstPage).extracting(FollowerRow::followeeId).containsExactly(a);
        assertThat(count).isEqualTo(300_000L);
    }

    @Test
    void lockOrCreate_serializesConcurrentWritersOfOneRow() throws Exception {
        long user = 6161;
        var ds = dataSources.forUser(FOLLOWING, user);
        int writers = 8;
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger failures = new AtomicInteger();
        CompletableFuture<?>[] all = new CompletableFuture<?>[writers];
        for (int w = 0; w < writers; w++) {
            long followee = 1000 + w;
            all[w] = CompletableFuture.runAsync(() -> {
                try {
                    start.await();
                    Transactions.inTransaction(ds, c -> {
                        FollowingRow row = following.lockOrCreate(c, user);
                        long[] ids = LongStream.concat(LongStream.of(row.followingIds()), LongStream.of(followee))
                                .sorted().toArray();
                        long[] times = new long[ids.length];
                        return following.writeNextVersion(c, row, ids, times);
                    });
                } catch (Exception e) {
                    failures.incrementAndGet();
                }
            });
        }
        start.countDown();
        CompletableFuture.allOf(all).get(30, TimeUnit.SECONDS);
        FollowingRow row = Transactions.inTransaction(ds, c -> following.find(c, user).orElseThrow());
        assertThat(failures).hasValue(0);
        assertThat(row.version()).isEqualTo(writers);
        assertThat(row.followingIds()).containsExactly(LongStream.range(1000, 1000 + writers).toArray());
    }

    @Test
    void schema_refusesMoreThanTenThousandFollowings() {
        long user = 7171;
        long[] ids = LongStream.rangeClosed(1, 10_001).toArray();
        assertThatThrownBy(() -> Transactions.inTransaction(dataSources.forUser(FOLLOWING, user), c ->
                following.writeNextVersion(c, following.lockOrCreate(c, user), ids, new long[ids.length])))
                .isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(SqlErrors.classify((SQLException) e)).isEqualTo(SqlErrors.Kind.CONSTRAINT));
    }

    @Test
    void findAllAndScan_readRowsOfOneDatabase() throws SQLException {
        long a = 256L * 9000 + 1;
        long b = 256L * 9001 + 1; // same logical shard, same database
        var ds = dataSources.forUser(FOLLOWING, a);
        for (long user : new long[] {a, b}) {
            Transactions.inTransaction(ds, c ->
                    following.writeNextVersion(c, following.lockOrCreate(c, user), new long[] {1}, new long[] {1}));
        }
        List<FollowingRow> found = Transactions.inTransaction(ds, c -> following.findAll(c, new long[] {a, b, 999_999_999L}));
        List<FollowingRow> firstPage = Transactions.inTransaction(ds, c -> following.scan(c, a - 1, 1));
        List<FollowingRow> afterA = Transactions.inTransaction(ds, c -> following.scan(c, a, 10));
        assertThat(found).extracting(FollowingRow::followerId).containsExactlyInAnyOrder(a, b);
        assertThat(firstPage).extracting(FollowingRow::followerId).containsExactly(a);
        assertThat(afterA).extracting(FollowingRow::followerId).contains(b).doesNotContain(a);
    }

    @Test
    void celebrityPages_areFoundByTimeAndWalkedNewestFirst() throws SQLException {
        long celebrity = 8181;
        var ds = dataSources.forUser(FOLLOWER, celebrity);
        Transactions.inTransaction(ds, c -> {
            FollowerRow row = followers.lockOrCreate(c, celebrity);
            pages.upsert(c, new CelebrityPage(celebrity, 0, new long[] {11, 12}, new long[] {100, 200}));
            pages.upsert(c, new CelebrityPage(celebrity, 1, new long[] {13, 14}, new long[] {200, 300}));
            pages.upsert(c, new CelebrityPage(celebrity, 2, new long[] {15}, new long[] {400}));
            return followers.writeNextVersion(c, row, new long[0], new long[0], 5, true);
        });
        Transactions.inTransaction(ds, c -> {
            assertThat(pages.all(c, celebrity)).extracting(CelebrityPage::pageNum).containsExactly(0, 1, 2);
            assertThat(pages.last(c, celebrity).orElseThrow().followerIds()).containsExactly(15);
            // A tie at 200 straddles pages 0 and 1.
            assertThat(pages.containing(c, celebrity, 200)).extracting(CelebrityPage::pageNum).containsExactly(0, 1);
            assertThat(pages.containing(c, celebrity, 300)).extracting(CelebrityPage::pageNum).containsExactly(1);
            assertThat(pages.containing(c, celebrity, 350)).isEmpty();
            assertThat(pages.newestFirst(c, celebrity, Long.MAX_VALUE, 2)).extracting(CelebrityPage::pageNum)
                    .containsExactly(2, 1);
            assertThat(pages.newestFirst(c, celebrity, 150, 5)).extracting(CelebrityPage::pageNum).containsExactly(0);
            pages.upsert(c, new CelebrityPage(celebrity, 2, new long[] {15, 16}, new long[] {400, 500}));
            assertThat(pages.last(c, celebrity).orElseThrow().followerIds()).containsExactly(15, 16);
            assertThat(pages.delete(c, celebrity, 2)).isTrue();
            assertThat(pages.delete(c, celebrity, 2)).isFalse();
            return null;
        });
        FollowerRow row = Transactions.inTransaction(ds, c -> followers.find(c, celebrity).orElseThrow());
        assertThat(row.celebrity()).isTrue();
        assertThat(row.followerCount()).isEqualTo(5);
    }

    @Test
    void schema_refusesFollowerIdsInTheRowOfACelebrity() {
        long celebrity = 9191;
        assertThatThrownBy(() -> Transactions.inTransaction(dataSources.forUser(FOLLOWER, celebrity), c ->
                followers.writeNextVersion(c, followers.lockOrCreate(c, celebrity), new long[] {1}, new long[] {1}, 1, true)))
                .isInstanceOf(SQLException.class);
    }

    /** Blocks and mutes live beside follows in the same tables, each relation in a row of its own. */
    @Test
    void relations_keepRowsOfTheirOwn_andEachIsCappedBySchema() throws SQLException {
        long user = 6161;
        var ds = dataSources.forUser(FOLLOWING, user);
        FollowingRepository blocks = new FollowingRepository(Relation.BLOCK);
        FollowingRepository mutes = new FollowingRepository(Relation.MUTE);
        Transactions.inTransaction(ds, c -> following.writeNextVersion(c, following.lockOrCreate(c, user),
                new long[] {1, 2}, new long[] {10, 20}));
        Transactions.inTransaction(ds, c -> blocks.writeNextVersion(c, blocks.lockOrCreate(c, user),
                new long[] {3}, new long[] {30}));

        Transactions.inTransaction(ds, c -> {
            assertThat(following.find(c, user).orElseThrow().followingIds()).containsExactly(1, 2);
            assertThat(blocks.find(c, user).orElseThrow().followingIds()).containsExactly(3);
            assertThat(blocks.find(c, user).orElseThrow().version()).isEqualTo(1);
            assertThat(mutes.find(c, user)).isEmpty();
            assertThat(following.count(c, user)).isEqualTo(2);
            assertThat(blocks.count(c, user)).isEqualTo(1);
            assertThat(following.scan(c, user - 1, 10)).extracting(FollowingRow::followerId).containsOnlyOnce(user);
            return null;
        });
        long[] overFollowCap = LongStream.rangeClosed(1, Relation.FOLLOW.cap() + 1).toArray();
        Transactions.inTransaction(ds, c -> blocks.writeNextVersion(c, blocks.lockOrCreate(c, user),
                overFollowCap, overFollowCap));
        assertThatThrownBy(() -> Transactions.inTransaction(ds, c -> following.writeNextVersion(c,
                following.lockOrCreate(c, user), overFollowCap, overFollowCap)))
                .isInstanceOf(SQLException.class);
        long[] overBlockCap = LongStream.rangeClosed(1, Relation.BLOCK.cap() + 1).toArray();
        assertThatThrownBy(() -> Transactions.inTransaction(ds, c -> blocks.writeNextVersion(c,
                blocks.lockOrCreate(c, user), overBlockCap, overBlockCap)))
                .isInstanceOf(SQLException.class);
    }

    @Test
    void blockedByRows_andTheirPages_areApartFromFollowers() throws SQLException {
        long user = 7171;
        var ds = dataSources.forUser(FOLLOWER, user);
        FollowerRepository blockedBy = new FollowerRepository(Relation.BLOCK);
        CelebrityPageRepository blockedByPages = new CelebrityPageRepository(Relation.BLOCK);
        Transactions.inTransaction(ds, c -> followers.writeNextVersion(c, followers.lockOrCreate(c, user),
                new long[] {1}, new long[] {10}, 1, false));
        Transactions.inTransaction(ds, c -> {
            blockedBy.writeNextVersion(c, blockedBy.lockOrCreate(c, user), new long[0], new long[0], 2, true);
            blockedByPages.upsert(c, new CelebrityPage(user, 0, new long[] {5, 6}, new long[] {50, 60}));
            return null;
        });

        Transactions.inTransaction(ds, c -> {
            assertThat(followers.find(c, user).orElseThrow().followerIds()).containsExactly(1);
            assertThat(blockedBy.count(c, user)).isEqualTo(2);
            assertThat(pages.all(c, user)).isEmpty();
            assertThat(blockedByPages.all(c, user)).singleElement()
                    .satisfies(page -> assertThat(page.followerIds()).containsExactly(5, 6));
            return null;
        });
    }

    @Test
    void outbox_carriesEveryRelationsChanges() throws SQLException {
        var ds = dataSources.forUser(FOLLOWING, 8181);
        long id = Transactions.inTransaction(ds, c -> outbox.append(c, FollowEvent.Type.BLOCK, 8181, 9, 1000, 1));
        OutboxEntry entry = Transactions.inTransaction(ds, c -> outbox.after(c, id - 1, 1).getFirst());
        assertThat(entry.type()).isEqualTo(FollowEvent.Type.BLOCK);
        assertThat(entry.relation()).isEqualTo(Relation.BLOCK);
        assertThat(entry.follow()).isFalse();
    }

    @Test
    void outbox_storesTheAppendingRequestsTraceContext_andNoneWithoutASpan() throws SQLException {
        SimpleTracer tracer = new SimpleTracer();
        OutboxRepository traced = new OutboxRepository(new EventTracing(tracer));
        var ds = dataSources.forUser(FOLLOWING, 8182);
        Span request = tracer.nextSpan().start();
        long withSpan;
        try (Tracer.SpanInScope ignored = tracer.withSpan(request)) {
            MDC.put(EventTracing.REQUEST_ID, "req-8182");
            withSpan = Transactions.inTransaction(ds, c -> traced.append(c, 8182, 9, true, 1000, 1));
        } finally {
            MDC.remove(EventTracing.REQUEST_ID);
            request.end();
        }
        long without = Transactions.inTransaction(ds, c -> traced.append(c, 8182, 9, false, 1000, 2));

        List<OutboxEntry> rows = Transactions.inTransaction(ds, c -> outbox.after(c, withSpan - 1, 2));
        assertThat(rows).extracting(OutboxEntry::id).containsExactly(withSpan, without);
        assertThat(rows.get(0).trace()).isEqualTo(new OutboxTrace(EventTracing.traceParent(request.context()),
                "req-8182"));
        assertThat(rows.get(0).trace().traceParent()).hasSize(55);
        assertThat(rows.get(1).trace()).isEqualTo(OutboxTrace.NONE);
    }

    /** A row the relay could not turn into an event would block its database's outbox: the schema refuses it. */
    @Test
    void schema_refusesAnOutboxRowOfAUserFollowingThemselves() {
        DataSource ds = dataSources.forUser(FOLLOWING, 5);
        assertThatThrownBy(() -> Transactions.inTransaction(ds, c -> outbox.append(c, 5, 5, true, 1000, 1)))
                .isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(SqlErrors.classify((SQLException) e)).isEqualTo(SqlErrors.Kind.CONSTRAINT));
    }

    @Test
    void outbox_appendsListsInIdOrderMarksAndPrunes() throws SQLException {
        var ds = dataSources.forUser(FOLLOWING, 3);
        long first = Transactions.inTransaction(ds, c -> outbox.append(c, 3, 4, true, 1000, 1));
        long second = Transactions.inTransaction(ds, c -> outbox.append(c, 3, 4, false, 1000, 2));
        assertThat(second).isGreaterThan(first);
        Transactions.inTransaction(ds, c -> {
            assertThat(outbox.backlog(c).unpublished()).isGreaterThanOrEqualTo(2);
            assertThat(outbox.backlog(c).oldestCreatedAt()).isNotNull();
            var batch = outbox.unpublished(c, 1000).stream().filter(e -> e.followerId() == 3).toList();
            assertThat(batch).extracting(OutboxEntry::id).containsExactly(first, second);
            assertThat(batch).extracting(OutboxEntry::follow).containsExactly(true, false);
            assertThat(batch.get(1).followedAt()).isEqualTo(1000);
            assertThat(batch.get(1).version()).isEqualTo(2);
            assertThat(outbox.markPublished(c, new long[] {first, second})).isEqualTo(2);
            assertThat(outbox.markPublished(c, new long[] {first})).isZero();
            assertThat(outbox.unpublished(c, 1000)).extracting(OutboxEntry::id).doesNotContain(first, second);
            assertThat(outbox.after(c, first, 10)).extracting(OutboxEntry::id).contains(second).doesNotContain(first);
            assertThat(outbox.prunePublishedBefore(c, Instant.now().minusSeconds(3600))).isZero();
            assertThat(outbox.prunePublishedBefore(c, Instant.now().plusSeconds(60))).isGreaterThanOrEqualTo(2);
            assertThat(outbox.after(c, first - 1, 10)).extracting(OutboxEntry::id).doesNotContain(first, second);
            return null;
        });
    }

    @Test
    void inTransaction_retriesASerializationFailureAndRollsBackTheFailedAttempt() throws SQLException {
        long user = 2323;
        var ds = dataSources.forUser(FOLLOWING, user);
        AtomicInteger attempts = new AtomicInteger();
        FollowingRow row = Transactions.inTransaction(ds, c -> {
            FollowingRow locked = following.lockOrCreate(c, user);
            FollowingRow written = following.writeNextVersion(c, locked, new long[] {attempts.get() + 1L}, new long[] {0});
            if (attempts.incrementAndGet() == 1) {
                throw new SQLException("could not serialize access", "40001");
            }
            return written;
        });
        assertThat(attempts).hasValue(2);
        assertThat(row.version()).isEqualTo(1); // the first attempt's version 1 was rolled back
        assertThat(row.followingIds()).containsExactly(2);
    }

    @Test
    void inTransaction_doesNotRetryOtherErrors() {
        AtomicInteger attempts = new AtomicInteger();
        assertThatThrownBy(() -> Transactions.inTransaction(dataSources.forUser(FOLLOWING, 1), c -> {
            attempts.incrementAndGet();
            throw new SQLException("bad", "22003");
        })).isInstanceOf(SQLException.class);
        assertThat(attempts).hasValue(1);
    }

    @Test
    void createMissing_createsAbsentDatabasesOnceAndThenNothing() throws SQLException {
        String url = shards.shardMap().ranges(ShardGroup.FOLLOWING).get(0).jdbcUrl();
        String newDb = "store_created_" + Long.toHexString(System.nanoTime());
        String newUrl = url.replaceFirst("/[a-z0-9_]+(\\?|$)", "/" + newDb + "$1");
        try {
            assertThat(ShardDatabases.createMissing(java.util.Map.of(newUrl, newDb), shards.username(), shards.password()))
                    .isEqualTo(1);
            assertThat(ShardDatabases.createMissing(java.util.Map.of(newUrl, newDb), shards.username(), shards.password()))
                    .isZero();
        } finally {
            try (Connection c = connect(ShardDatabases.maintenanceUrl(url))) {
                c.createStatement().execute("DROP DATABASE IF EXISTS " + newDb);
            }
        }
    }

    private static java.util.List<Long> followerIdsIn(ShardRange range, String table, String key) throws SQLException {
        try (Connection c = connect(range.jdbcUrl());
             PreparedStatement ps = c.prepareStatement("SELECT " + key + " FROM " + table + " ORDER BY 1");
             ResultSet rs = ps.executeQuery()) {
            java.util.List<Long> out = new java.util.ArrayList<>();
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
            return out;
        }
    }

    private static Connection connect(String url) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", shards.username());
        if (!shards.password().isEmpty()) {
            p.setProperty("password", shards.password());
        }
        return DriverManager.getConnection(url, p);
    }
}
