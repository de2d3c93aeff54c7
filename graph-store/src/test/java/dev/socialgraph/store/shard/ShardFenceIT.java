package dev.socialgraph.store.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.testsupport.TestShards;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pieces of an online shard move on real PostgreSQL with two databases per group: the directory's versions,
 * the fence a writer waits behind, the tombstone that sends it to the new owner, readers of a frozen old owner.
 * The directory lives in the first following database (its tables are apart from the shard tables).
 */
class ShardFenceIT {

    private static final int SHARD = 130; // in graph_following_1 of the test topology
    private static final long USER = 256L * 7 + SHARD;

    private static TestShards shards;
    private static ShardDataSources dataSources;
    private static ShardDirectory directory;
    private static ShardRange source;
    private static ShardRange other;

    @BeforeAll
    static void start() throws SQLException {
        shards = TestShards.create("fence");
        dataSources = new ShardDataSources(shards.shardMap(), new ShardDataSources.PoolSettings(
                shards.username(), shards.password(), 4, Duration.ofSeconds(5), "fence-it"));
        ShardMigrations.migrateAll(dataSources);
        source = shards.shardMap().rangeOfShard(ShardGroup.FOLLOWING, SHARD);
        other = shards.shardMap().rangeOfShard(ShardGroup.FOLLOWING, 0);
        assertThat(other.jdbcUrl()).isNotEqualTo(source.jdbcUrl());
        directory = new ShardDirectory(dataSources.forRange(other));
        directory.install();
    }

    @AfterAll
    static void stop() {
        dataSources.close();
        shards.close();
    }

    @AfterEach
    void clearTombstones() throws SQLException {
        for (DataSource ds : dataSources.all().values()) {
            try (Connection c = ds.getConnection()) {
                ShardFence.clearMoved(c, ShardGroup.FOLLOWING, 0, 255);
            }
        }
    }

    private static String database(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT current_database()"); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void directory_bootstrapsOnce_publishesByCompareAndSet_andRoundTripsTheMap() throws SQLException {
        ShardDirectory.Versioned first = directory.bootstrap(shards.shardMap());
        assertThat(directory.bootstrap(shards.shardMap().reassign(ShardGroup.FOLLOWER, 0, 0, "x",
                "jdbc:postgresql://h/x")).map()).as("a second bootstrap changes nothing").isEqualTo(first.map());
        assertThat(first.map()).isEqualTo(shards.shardMap());

        ShardMap next = first.map().reassign(ShardGroup.FOLLOWING, SHARD, SHARD, other.database(), other.jdbcUrl());
        assertThat(directory.publish(first.version(), next)).isTrue();
        assertThat(directory.publish(first.version(), next)).as("the same version twice").isFalse();
        assertThat(directory.latest()).isEqualTo(new ShardDirectory.Versioned(first.version() + 1, next));

        directory.report("check@test:1", first.version() + 1);
        assertThat(directory.readers(0)).extracting(ShardDirectory.Reader::reader, ShardDirectory.Reader::version)
                .contains(org.assertj.core.groups.Tuple.tuple("check@test:1", first.version() + 1));
    }

    @Test
    void aWriterOfAMovedShard_withoutTheNewerMap_isRefused_andRunsNothing() throws SQLException {
        try (Connection c = dataSources.forRange(source).getConnection()) {
            ShardFence.markMoved(c, ShardGroup.FOLLOWING, SHARD, SHARD, dataSources.version() + 5, "elsewhere", 1L);
        }
        AtomicBoolean ran = new AtomicBoolean();
        assertThatThrownBy(() -> dataSources.inUserTransaction(ShardGroup.FOLLOWING, USER, c -> {
            ran.set(true);
            return null;
        })).isInstanceOf(ShardUnavailableException.class).hasMessageContaining("moved to elsewhere");
        assertThat(ran).isFalse();
        // Another shard of the same database is written as before.
        assertThat(dataSources.inUserTransaction(ShardGroup.FOLLOWING, USER + 1, ShardFenceIT::database))
                .isEqualTo(source.database());
    }

    @Test
    void aWriterOfAMovedShard_refreshesTheMap_andWritesAtTheNewOwner() throws SQLException {
        ShardMap moved = shards.shardMap().reassign(ShardGroup.FOLLOWING, SHARD, SHARD, other.database(),
                other.jdbcUrl());
        long newer = dataSources.version() + 1;
        try (Connection c = dataSources.forRange(source).getConnection()) {
            ShardFence.markMoved(c, ShardGroup.FOLLOWING, SHARD, SHARD, newer, other.database(), 1L);
        }
        AtomicInteger refreshes = new AtomicInteger();
        try (ShardDataSources routed = new ShardDataSources(shards.shardMap(), dataSources.version(),
                new ShardDataSources.PoolSettings(shards.username(), shards.password(), 2, Duration.ofSeconds(5),
                        "fence-it-routed"))) {
            routed.refresher(() -> {
                refreshes.incrementAndGet();
                routed.apply(newer, moved);
            });
            assertThat(routed.inUserTransaction(ShardGroup.FOLLOWING, USER, ShardFenceIT::database))
                    .isEqualTo(other.database());
            assertThat(routed.readUser(ShardGroup.FOLLOWING, USER, ShardFenceIT::database))
                    .isEqualTo(other.database());
            assertThat(refreshes).hasValue(1);
        }
    }

    @Test
    void aReaderOfAShardMarkedMoved_beforeItsMapIsPublished_readsTheFrozenOldOwner() throws SQLException {
        try (Connection c = dataSources.forRange(source).getConnection()) {
            ShardFence.markMoved(c, ShardGroup.FOLLOWING, SHARD, SHARD, dataSources.version() + 5, "elsewhere", 1L);
        }
        assertThat(dataSources.readUser(ShardGroup.FOLLOWING, USER, ShardFenceIT::database))
                .isEqualTo(source.database());
    }

    @Test
    void theFence_holdsAWriterBack_untilTheMoverLetsGo() throws Exception {
        AtomicBoolean ran = new AtomicBoolean();
        CompletableFuture<String> writer;
        try (Connection mover = dataSources.forRange(source).getConnection()) {
            ShardFence.fence(mover, ShardGroup.FOLLOWING, SHARD, SHARD);
            writer = CompletableFuture.supplyAsync(() -> {
                try {
                    return dataSources.inUserTransaction(ShardGroup.FOLLOWING, USER, c -> {
                        ran.set(true);
                        return database(c);
                    });
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> waitersOnAdvisoryLocks(mover) > 0);
            assertThat(ran).as("the writer's work while the shard is fenced").isFalse();
            assertThat(writer).isNotDone();
            ShardFence.unfence(mover, ShardGroup.FOLLOWING, SHARD, SHARD);
        }
        assertThat(writer.get()).isEqualTo(source.database());
        assertThat(ran).isTrue();
    }

    /** Sessions of this database waiting for an advisory lock now. */
    private static int waitersOnAdvisoryLocks(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())""");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
