package dev.socialgraph.cdc.listener;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.cdc.CdcMetrics;
import dev.socialgraph.cdc.CdcProperties;
import dev.socialgraph.cdc.follower.FollowerSide;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.shard.ShardMovedException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The lanes' bookkeeping with a fake follower side: which events wait, what is committed, what is read again. */
class DatabaseLanesTest {

    private static final String TOPIC = "follow-events";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    /** Followees below 1,000 live on database A, the others on B. */
    private static final DataSource A = dataSource();
    private static final DataSource B = dataSource();

    private final AtomicLong nanos = new AtomicLong();
    private final FakeSide side = new FakeSide();
    private final DatabaseLanes lanes = new DatabaseLanes(side, new DeadLetterPublisher(null, properties()),
            new CdcMetrics(new SimpleMeterRegistry()), properties(), nanos::get);

    @Test
    void applyDue_whenOneDatabaseIsDown_appliesTheOther_andCommitsUpToTheFirstWaitingEvent() {
        side.down.add(A);
        List<ConsumerRecord<byte[], byte[]>> batch = List.of(record(P0, 10), record(P0, 11), record(P0, 12));
        lanes.take(List.of(pending(batch.get(0), 5, 1), pending(batch.get(1), 2_000, 1), pending(batch.get(2), 5, 2)));
        lanes.applyDue();
        lanes.finish(batch);

        assertThat(side.applied).containsExactly("2000:1");
        assertThat(lanes.parked()).isEqualTo(2);
        assertThat(lanes.toCommit(Map.of())).containsExactly(Map.entry(P0, new OffsetAndMetadata(10)));

        side.down.clear();
        lanes.applyDue();
        assertThat(side.applied).as("backing off").containsExactly("2000:1");
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        lanes.applyDue();

        assertThat(side.applied).containsExactly("2000:1", "5:1,2");
        assertThat(lanes.parked()).isZero();
        assertThat(lanes.toCommit(Map.of())).containsExactly(Map.entry(P0, new OffsetAndMetadata(13)));
    }

    @Test
    void take_ofABatchRedeliveredAfterAFailure_doesNotParkItTwice() {
        side.down.add(A);
        ConsumerRecord<byte[], byte[]> record = record(P0, 7);
        lanes.take(List.of(pending(record, 5, 1)));
        lanes.take(List.of(pending(record, 5, 1)));
        assertThat(lanes.parked()).isEqualTo(1);
        assertThat(lanes.toCommit(Map.of())).as("not finished: its cache update failed").isEmpty();
    }

    @Test
    void forget_dropsTheRevokedPartitionsEvents_andRewindsItIfItComesBack() {
        side.down.add(A);
        List<ConsumerRecord<byte[], byte[]>> batch = List.of(record(P0, 3), record(P1, 8), record(P1, 9));
        lanes.take(List.of(pending(batch.get(0), 5, 1), pending(batch.get(1), 6, 1), pending(batch.get(2), 2_000, 1)));
        lanes.applyDue();
        lanes.finish(batch);

        lanes.forget(List.of(P1), Map.of());

        assertThat(lanes.parked()).isEqualTo(1);
        assertThat(lanes.toCommit(Map.of())).containsOnlyKeys(P0);
        assertThat(lanes.rewinds(List.of(P0, P1))).containsExactly(Map.entry(P1, 8L));
        assertThat(lanes.rewinds(List.of(P1))).as("used once").isEmpty();
    }

    @Test
    void take_ofAFolloweeThatMovedWhileItsEventsWait_keepsItsOrder_andAppliesItOnTheNewDatabase() {
        side.down.add(A);
        List<ConsumerRecord<byte[], byte[]>> batch = List.of(record(P0, 20), record(P0, 21), record(P0, 22));
        lanes.take(List.of(pending(batch.get(0), 6, 1), pending(batch.get(1), 5, 1)));
        lanes.applyDue();
        assertThat(side.applied).isEmpty();

        side.moved.put(5L, B); // a newer shard map routes followee 5 to B, which is up
        lanes.take(List.of(pending(batch.get(2), 5, 2)));
        lanes.applyDue();
        assertThat(side.applied).as("5:2 waits behind 5:1").isEmpty();

        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        lanes.applyDue();

        assertThat(side.applied).as("A is still down, 5 lives on B now").containsExactly("5:1,2");
        assertThat(lanes.parked()).isEqualTo(1);
        lanes.finish(batch);
        assertThat(lanes.toCommit(Map.of())).containsExactly(Map.entry(P0, new OffsetAndMetadata(20)));
    }

    @Test
    void take_afterAMovedFolloweesWaitingEventsWereApplied_usesItsNewDatabasesLane() {
        side.down.add(A);
        lanes.take(List.of(pending(record(P0, 30), 6, 1), pending(record(P0, 31), 5, 1)));
        lanes.applyDue();
        side.moved.put(5L, B);
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        lanes.applyDue();
        assertThat(side.applied).containsExactly("5:1");

        lanes.take(List.of(pending(record(P0, 32), 5, 2)));
        lanes.applyDue();

        assertThat(side.applied).as("not held back by A's lane, which backs off").containsExactly("5:1", "5:2");
        assertThat(lanes.parked()).isEqualTo(1);
    }

    @Test
    void applyDue_ofSeveralFolloweesOfOneDatabase_appliesThemInOneTransaction() {
        List<ConsumerRecord<byte[], byte[]>> batch = List.of(record(P0, 40), record(P1, 41), record(P0, 42),
                record(P1, 43), record(P0, 44));
        lanes.take(List.of(pending(batch.get(0), 7, 1), pending(batch.get(1), 2_000, 1), pending(batch.get(2), 5, 1),
                pending(batch.get(3), 7, 2), pending(batch.get(4), 6, 1)));
        lanes.applyDue();
        lanes.finish(batch);

        assertThat(side.transactions).containsExactlyInAnyOrder(List.of(7L, 5L, 6L), List.of(2_000L));
        assertThat(side.applied).containsExactlyInAnyOrder("7:1,2", "5:1", "6:1", "2000:1");
        assertThat(lanes.parked()).isZero();
        assertThat(lanes.toCommit(Map.of())).containsOnly(Map.entry(P0, new OffsetAndMetadata(45)),
                Map.entry(P1, new OffsetAndMetadata(44)));
    }

    @Test
    void applyDue_whenTheTransactionOfSeveralIsRefused_appliesEachAlone_andHoldsBackOnlyTheRefusedFollowee() {
        side.refusing.add(6L);
        List<ConsumerRecord<byte[], byte[]>> batch = List.of(record(P0, 50), record(P0, 51), record(P0, 52),
                record(P0, 53));
        lanes.take(List.of(pending(batch.get(0), 5, 1), pending(batch.get(1), 6, 1), pending(batch.get(2), 7, 1),
                pending(batch.get(3), 6, 2)));
        lanes.applyDue();
        lanes.finish(batch);

        assertThat(side.transactions).containsExactly(List.of(5L), List.of(7L));
        assertThat(lanes.parked()).as("both of 6's events, in order").isEqualTo(2);
        assertThat(lanes.toCommit(Map.of())).containsExactly(Map.entry(P0, new OffsetAndMetadata(51)));

        side.refusing.clear();
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        lanes.applyDue();

        assertThat(side.applied).containsExactly("5:1", "7:1", "6:1,2");
        assertThat(lanes.parked()).isZero();
    }

    @Test
    void applyDue_whenTheTransactionOfSeveralFindsItsDatabaseDown_triesNoFolloweeAlone() {
        side.down.add(A);
        List<ConsumerRecord<byte[], byte[]>> batch = List.of(record(P0, 60), record(P0, 61), record(P0, 62));
        lanes.take(List.of(pending(batch.get(0), 5, 1), pending(batch.get(1), 6, 1), pending(batch.get(2), 7, 1)));
        lanes.applyDue();

        assertThat(side.attemptsAlone).isZero();
        assertThat(side.applied).isEmpty();
        assertThat(lanes.parked()).isEqualTo(3);

        side.down.clear();
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        lanes.applyDue();
        assertThat(side.transactions).containsExactly(List.of(5L, 6L, 7L));
        assertThat(lanes.parked()).isZero();
    }

    @Test
    void applyDue_whenAShardOfSeveralMovedAway_appliesEachAlone_whichFollowsTheMove() {
        side.movedAway.add(6L);
        List<ConsumerRecord<byte[], byte[]>> batch = List.of(record(P0, 70), record(P0, 71));
        lanes.take(List.of(pending(batch.get(0), 5, 1), pending(batch.get(1), 6, 1)));
        lanes.applyDue();

        assertThat(side.transactions).containsExactly(List.of(5L), List.of(6L));
        assertThat(lanes.parked()).isZero();
    }

    @Test
    void isDown_ofAnUnreachableDatabase_isTrue_butNotOfAConflictOrAMove() {
        assertThat(DatabaseLanes.isDown(new SQLTransientConnectionException("pool timeout", "08001"))).isTrue();
        assertThat(DatabaseLanes.isDown(new SQLException("deadlock detected", "40P01"))).isFalse();
        assertThat(DatabaseLanes.isDown(new ShardMovedException(ShardGroup.FOLLOWER, 5, 2, "elsewhere"))).isFalse();
        assertThat(DatabaseLanes.isDown(new IllegalStateException("refused"))).isFalse();
    }

    @Test
    void isOutage_ofAShardThatMovedToAMapNotKnownYet_isTrue() {
        assertThat(DatabaseLanes.isOutage(new ShardUnavailableException("follower shard 5 moved",
                new ShardMovedException(ShardGroup.FOLLOWER, 5, 2, "graph_follower_1")))).isTrue();
        assertThat(DatabaseLanes.isOutage(new IllegalStateException("refused"))).isFalse();
    }

    private static DatabaseLanes.Pending pending(ConsumerRecord<byte[], byte[]> record, long followee, long follower) {
        return new DatabaseLanes.Pending(record, FollowEvent.follow(follower, followee, 1_000, 1, 1_000), 0);
    }

    private static ConsumerRecord<byte[], byte[]> record(TopicPartition partition, long offset) {
        return new ConsumerRecord<>(partition.topic(), partition.partition(), offset, new byte[0], new byte[0]);
    }

    private static DataSource dataSource() {
        return (DataSource) Proxy.newProxyInstance(DatabaseLanesTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static CdcProperties properties() {
        return new CdcProperties("t", "t.DLT", "g", 1, 500, 1_000_000, 100_000, "redis://127.0.0.1:1",
                dev.socialgraph.cache.RedisMode.STANDALONE,
                Duration.ofMillis(100), Duration.ofHours(1), Duration.ofSeconds(1), Duration.ofSeconds(10), 3, 1000);
    }

    /**
     * Applies by recording "followee:followers"; a database in {@code down} fails as an unreachable one does, a
     * followee in {@code refusing} as a row the adjacency rules refuse, one in {@code movedAway} as a shard that
     * moved (only when applied together: alone, the real side follows the move). {@code transactions} records the
     * followees of each transaction that committed.
     */
    private static final class FakeSide extends FollowerSide {
        final Set<DataSource> down = new HashSet<>();
        /** Followees a newer shard map routes elsewhere. */
        final Map<Long, DataSource> moved = new HashMap<>();
        final Set<Long> refusing = new HashSet<>();
        final Set<Long> movedAway = new HashSet<>();
        final List<String> applied = new ArrayList<>();
        final List<List<Long>> transactions = new ArrayList<>();
        int attemptsAlone;

        FakeSide() {
            super(null, null, null, null, properties());
        }

        @Override
        public DataSource database(long followeeId) {
            return moved.getOrDefault(followeeId, followeeId < 1_000 ? A : B);
        }

        @Override
        public void apply(long followeeId, List<FollowEvent> events) throws SQLException {
            attemptsAlone++;
            refuseOrFail(database(followeeId), List.of(followeeId));
            record(followeeId, events);
            transactions.add(List.of(followeeId));
        }

        @Override
        public void applyTogether(DataSource database, Map<Long, List<FollowEvent>> byFollowee) throws SQLException {
            refuseOrFail(database, byFollowee.keySet());
            if (byFollowee.keySet().stream().anyMatch(movedAway::contains)) {
                throw new ShardMovedException(ShardGroup.FOLLOWER, 5, 2, "elsewhere");
            }
            byFollowee.forEach(this::record);
            transactions.add(List.copyOf(byFollowee.keySet()));
        }

        private void refuseOrFail(DataSource database, Collection<Long> followees) throws SQLException {
            if (down.contains(database)) {
                throw new SQLTransientConnectionException("pool timeout", "08001");
            }
            if (followees.stream().anyMatch(refusing::contains)) {
                throw new IllegalStateException("follower row refused");
            }
        }

        private void record(long followeeId, List<FollowEvent> events) {
            applied.add(followeeId + ":" + String.join(",",
                    events.stream().map(e -> Long.toString(e.followerId())).toList()));
        }
    }
}
