package dev.socialgraph.write.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.outbox.EventTracing;
import dev.socialgraph.store.outbox.OutboxEntry;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardMigrations;
import dev.socialgraph.store.sql.Transactions;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.PrivateKafkaServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import dev.socialgraph.write.WriteProperties;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The outbox relay against real PostgreSQL and Kafka, without Spring: order and format of the events, one active
 * relay per database with hand-over, republication after a crash between publishing and marking, Kafka outages, and
 * the nudges that wake it after a commit (tested with an hour's poll interval, so only a nudge explains a row
 * published after the first round).
 * Each test uses its own database of the topology (rows are appended directly with the repository) and a fresh topic.
 */
class OutboxRelayIT {

    private static final TestShards SHARDS = TestShards.create("write_relay");
    private static final KafkaServer KAFKA = TestServers.kafka();
    private static final OutboxRepository OUTBOX = new OutboxRepository();
    /** A poll interval no test waits out: what a relay with it publishes after its first round, a nudge made it. */
    private static final Duration AN_HOUR = Duration.ofHours(1);
    private static ShardDataSources dataSources;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private static long nextFollower = 1;

    @BeforeAll
    static void migrate() {
        dataSources = new ShardDataSources(SHARDS.shardMap(), new ShardDataSources.PoolSettings(SHARDS.username(),
                SHARDS.password(), 6, Duration.ofSeconds(2), "relay-it"));
        ShardMigrations.migrateAll(dataSources);
    }

    @AfterAll
    static void dropShards() {
        dataSources.close();
        SHARDS.close();
    }

    @AfterEach
    void closeRelays() throws Exception {
        for (AutoCloseable c : closeables.reversed()) {
            c.close();
        }
    }

    @Test
    void publishesInIdOrder_withEventJsonKeyedByFollowee_andMarksPublished() {
        ShardRange db = database(0);
        String topic = KAFKA.createTopic("relay-order", 1);
        List<OutboxEntry> appended = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            appended.add(append(db, i % 3 != 2));
        }
        markAllPublishedExcept(db, appended);
        MeterRegistry meters = new SimpleMeterRegistry();
        OutboxRelay relay = relay(db, KAFKA.bootstrapServers(), topic, meters, batch -> { });
        TopicReader reader = reader(KAFKA.bootstrapServers(), topic);

        await().atMost(Duration.ofSeconds(30)).until(() -> reader.poll().size() >= appended.size());

        List<TopicReader.Received> received = reader.poll();
        assertThat(received).hasSize(appended.size());
        for (int i = 0; i < appended.size(); i++) {
            OutboxEntry e = appended.get(i);
            assertThat(received.get(i).key()).isEqualTo(Long.toString(e.followeeId()));
            assertThat(received.get(i).event()).isEqualTo(new FollowEvent(e.followerId() + "-" + e.version(),
                    e.follow() ? FollowEvent.Type.FOLLOW : FollowEvent.Type.UNFOLLOW, e.followerId(), e.followeeId(),
                    e.followedAt(), e.version(), e.createdAt().toEpochMilli()));
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(outbox(db)).allSatisfy(e -> assertThat(e.publishedAt()).isNotNull());
            assertThat(meters.get("graph.outbox.backlog").tag("database", db.database()).gauge().value()).isZero();
        });
        assertThat(meters.get("graph.outbox.published").tag("database", db.database()).counter().count())
                .isEqualTo(appended.size());
        assertThat(relay.isActive()).isTrue();
    }

    @Test
    void twoRelaysOnOneDatabase_onlyOnePublishes_andClosingItHandsOver() throws Exception {
        ShardRange db = database(1);
        String topic = KAFKA.createTopic("relay-twin", 3);
        markAllPublishedExcept(db, List.of());
        MeterRegistry metersA = new SimpleMeterRegistry();
        MeterRegistry metersB = new SimpleMeterRegistry();
        OutboxRelay a = relay(db, KAFKA.bootstrapServers(), topic, metersA, batch -> { });
        await().atMost(Duration.ofSeconds(10)).until(a::isActive);
        OutboxRelay b = relay(db, KAFKA.bootstrapServers(), topic, metersB, batch -> { });
        TopicReader reader = reader(KAFKA.bootstrapServers(), topic);

        for (int i = 0; i < 20; i++) {
            append(db, true);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> reader.poll().size() >= 20);
        // The relay counts a batch once the broker has acknowledged it, which a reader may see first.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(published(metersA, db)).isEqualTo(20));
        assertThat(published(metersB, db)).isZero();
        assertThat(b.isActive()).isFalse();

        a.close();
        await().atMost(Duration.ofSeconds(10)).until(b::isActive);
        for (int i = 0; i < 10; i++) {
            append(db, false);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> reader.poll().size() >= 30);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(published(metersB, db)).isEqualTo(10));
        assertThat(reader.poll()).extracting(r -> r.event().eventId()).doesNotHaveDuplicates().hasSize(30);
    }

    @Test
    void activeRelaysSessionKilled_exactlyOneRelayResumes_andNothingIsLost() {
        ShardRange db = database(1);
        String topic = KAFKA.createTopic("relay-kill", 2);
        markAllPublishedExcept(db, List.of());
        OutboxRelay a = relay(db, KAFKA.bootstrapServers(), topic, new SimpleMeterRegistry(), batch -> { });
        await().atMost(Duration.ofSeconds(10)).until(a::isActive);
        OutboxRelay b = relay(db, KAFKA.bootstrapServers(), topic, new SimpleMeterRegistry(), batch -> { });
        TopicReader reader = reader(KAFKA.bootstrapServers(), topic);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            OutboxEntry e = append(db, true);
            expected.add(e.followerId() + "-" + e.version());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> reader.poll().size() >= 5);

        // What a crashed or partitioned instance looks like to PostgreSQL: its session ends and the lock with it.
        long killed = tx(db, c -> {
            try (var ps = c.prepareStatement("SELECT count(pg_terminate_backend(pid)) FROM pg_locks"
                    + " WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database"
                    + " WHERE datname = current_database())"); var rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
        assertThat(killed).isEqualTo(1);
        for (int i = 0; i < 5; i++) {
            OutboxEntry e = append(db, false);
            expected.add(e.followerId() + "-" + e.version());
        }

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(reader.poll())
                .extracting(r -> r.event().eventId()).containsAll(expected));
        await().atMost(Duration.ofSeconds(10)).until(() -> a.isActive() ^ b.isActive());
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(outbox(db)).allSatisfy(e -> assertThat(e.publishedAt()).isNotNull()));
    }

    @Test
    void crashAfterPublishingBeforeMarking_republishes_soConsumersSeeDuplicatesNeverLoss() {
        ShardRange db = database(0);
        String topic = KAFKA.createTopic("relay-crash", 1);
        List<OutboxEntry> appended = new ArrayList<>();
        for (int i = 0; i < 7; i++) { // exactly one batch of the relay's 7
            appended.add(append(db, true));
        }
        // Drain rows of earlier tests on this database first, so the crash hits exactly our batch.
        markAllPublishedExcept(db, appended);
        AtomicBoolean crashed = new AtomicBoolean();
        relay(db, KAFKA.bootstrapServers(), topic, new SimpleMeterRegistry(), batch -> {
            if (crashed.compareAndSet(false, true)) {
                throw new IllegalStateException("simulated crash between publishing and marking");
            }
        });
        TopicReader reader = reader(KAFKA.bootstrapServers(), topic);

        await().atMost(Duration.ofSeconds(30)).until(() -> reader.poll().size() >= 2 * appended.size());

        List<String> expected = appended.stream().map(e -> e.followerId() + "-" + e.version()).toList();
        List<String> ids = reader.poll().stream().map(r -> r.event().eventId()).toList();
        assertThat(ids).hasSize(2 * expected.size());
        assertThat(ids.subList(0, expected.size())).containsExactlyElementsOf(expected);
        assertThat(ids.subList(expected.size(), ids.size())).containsExactlyElementsOf(expected);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(outbox(db)).allSatisfy(e -> assertThat(e.publishedAt()).isNotNull()));
    }

    @Test
    void kafkaDown_nothingIsMarked_andEverythingArrivesAfterRestart() throws Exception {
        ShardRange db = database(1);
        PrivateKafkaServer kafka = TestServers.privateKafka();
        closeables.add(kafka);
        String topic = kafka.createTopic("relay-outage", 2);
        markAllPublishedExcept(db, List.of());
        MeterRegistry meters = new SimpleMeterRegistry();
        relay(db, kafka.bootstrapServers(), topic, meters, batch -> { });
        append(db, true);
        TopicReader before = reader(kafka.bootstrapServers(), topic);
        await().atMost(Duration.ofSeconds(30)).until(() -> before.poll().size() == 1);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(outbox(db)).allSatisfy(e -> assertThat(e.publishedAt()).isNotNull()));

        kafka.stop();
        List<OutboxEntry> whileDown = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            whileDown.add(append(db, i % 2 == 0));
        }
        await().atMost(Duration.ofSeconds(30)).until(() ->
                meters.get("graph.outbox.relay.failures").tag("database", db.database()).counter().count() >= 1);
        assertThat(outbox(db)).filteredOn(e -> e.publishedAt() == null).hasSize(whileDown.size());
        await().atMost(Duration.ofSeconds(30)).until(() ->
                meters.get("graph.outbox.backlog").tag("database", db.database()).gauge().value() == whileDown.size());
        assertThat(meters.get("graph.outbox.oldest.age").tag("database", db.database()).gauge().value())
                .isGreaterThanOrEqualTo(0);

        kafka.start();
        TopicReader after = reader(kafka.bootstrapServers(), topic);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(after.poll())
                .extracting(r -> r.event().eventId())
                .containsAll(whileDown.stream().map(e -> e.followerId() + "-" + e.version()).toList()));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(outbox(db)).allSatisfy(e -> assertThat(e.publishedAt()).isNotNull()));
    }

    @Test
    void publishedRowsOlderThanTheRetention_arePruned() {
        ShardRange db = database(0);
        String topic = KAFKA.createTopic("relay-prune", 1);
        markAllPublishedExcept(db, List.of());
        for (int i = 0; i < 5; i++) {
            append(db, true);
        }
        TopicReader reader = reader(KAFKA.bootstrapServers(), topic);
        // Retention zero: the first round publishes, marks, then prunes what it marked.
        relay(db, KAFKA.bootstrapServers(), topic, new SimpleMeterRegistry(), batch -> { }, Duration.ZERO);

        await().atMost(Duration.ofSeconds(30)).until(() -> reader.poll().size() >= 5);
        await().atMost(Duration.ofSeconds(10)).until(() -> outbox(db).isEmpty());
    }

    @Test
    void nudge_afterACommit_publishesTheRow_thoughThePollIntervalIsAnHour() {
        ShardRange db = database(0);
        String topic = KAFKA.createTopic("relay-nudge", 1);
        markAllPublishedExcept(db, List.of());
        OutboxEntry first = append(db, true);
        MeterRegistry meters = new SimpleMeterRegistry();
        OutboxRelay relay = relayPollingHourly(db, topic, meters);
        TopicReader reader = reader(KAFKA.bootstrapServers(), topic);
        // The first round publishes what was there at the start; marked means that round has read the outbox.
        await().atMost(Duration.ofSeconds(30)).until(() -> outbox(db).stream()
                .allMatch(e -> e.publishedAt() != null));

        OutboxEntry second = append(db, false);
        relay.nudge();

        await().atMost(Duration.ofSeconds(30)).until(() -> reader.poll().size() >= 2);
        assertThat(reader.poll()).extracting(r -> r.event().eventId()).containsExactly(eventId(first), eventId(second));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(outbox(db)).allSatisfy(e -> assertThat(e.publishedAt()).isNotNull()));
        assertThat(published(meters, db)).isEqualTo(2);
    }

    @Test
    void nudge_afterTheDatabaseCameBack_endsTheBackOff_thoughThePollIntervalIsAnHour() {
        ShardRange db = database(0);
        String topic = KAFKA.createTopic("relay-db-back", 1);
        markAllPublishedExcept(db, List.of());
        AtomicBoolean down = new AtomicBoolean(true);
        MeterRegistry meters = new SimpleMeterRegistry();
        // The back-off after a failed round is never shorter than the poll interval: an hour here.
        OutboxRelay relay = relay(db, failingWhile(down, dataSources.forRange(db)), topic, meters, AN_HOUR);
        TopicReader reader = reader(KAFKA.bootstrapServers(), topic);
        await().atMost(Duration.ofSeconds(30)).until(() ->
                meters.get("graph.outbox.relay.failures").tag("database", db.database()).counter().count() >= 1);

        down.set(false);
        OutboxEntry row = append(db, true);
        relay.nudge();

        await().atMost(Duration.ofSeconds(30)).until(() -> reader.poll().size() >= 1);
        assertThat(reader.poll()).extracting(r -> r.event().eventId()).containsExactly(eventId(row));
        await().atMost(Duration.ofSeconds(10)).until(relay::isActive);
    }

    @Test
    void concurrentCommitsEachNudging_publishEveryRowOnce_inEachFollowersOrder() throws Exception {
        ShardRange db = database(1);
        String topic = KAFKA.createTopic("relay-nudges", 1);
        markAllPublishedExcept(db, List.of());
        MeterRegistry meters = new SimpleMeterRegistry();
        OutboxRelay relay = relayPollingHourly(db, topic, meters);
        await().atMost(Duration.ofSeconds(10)).until(relay::isActive);
        TopicReader reader = reader(KAFKA.bootstrapServers(), topic);
        int writers = 8;
        int perWriter = 40; // batches of 7: full and partial rounds, with nudges arriving during each
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<Future<List<String>>> written = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            long follower = 256L * (10_000 + w) + db.firstShard() + 1;
            written.add(pool.submit(() -> {
                List<String> ids = new ArrayList<>();
                for (int v = 1; v <= perWriter; v++) {
                    ids.add(eventId(append(db, follower, 77, v % 2 == 1, 1_700_000_000_000L + v, v)));
                    relay.nudge();
                }
                return ids;
            }));
        }
        List<List<String>> expected = new ArrayList<>();
        for (Future<List<String>> f : written) {
            expected.add(f.get(60, TimeUnit.SECONDS));
        }
        pool.shutdown();

        // With an hour's poll interval, a nudge lost between two rounds would leave its row here for the hour.
        await().atMost(Duration.ofSeconds(60)).until(() -> reader.poll().size() >= writers * perWriter);
        List<String> received = reader.poll().stream().map(r -> r.event().eventId()).toList();
        assertThat(received).hasSize(writers * perWriter).doesNotHaveDuplicates();
        for (List<String> ofOneFollower : expected) {
            assertThat(received.stream().filter(ofOneFollower::contains).toList())
                    .containsExactlyElementsOf(ofOneFollower);
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(outbox(db)).allSatisfy(e -> assertThat(e.publishedAt()).isNotNull()));
        assertThat(published(meters, db)).as("each row marked by one round").isEqualTo(writers * perWriter);
        assertThat(meters.get("graph.outbox.relay.failures").tag("database", db.database()).counter().count())
                .isZero();
    }

    @Test
    void nudgesToAStandingByRelay_publishNothing_andItTakesOverOnceTheLockIsFree() throws Exception {
        ShardRange db = database(0);
        String topic = KAFKA.createTopic("relay-standby-nudge", 1);
        markAllPublishedExcept(db, List.of());
        MeterRegistry meters = new SimpleMeterRegistry();
        List<OutboxEntry> appended = new ArrayList<>();
        try (Connection holder = dataSources.forRange(db).getConnection()) {
            assertThat(lock(holder, "pg_try_advisory_lock")).isTrue(); // as another instance's active relay
            OutboxRelay relay = relay(db, KAFKA.bootstrapServers(), topic, meters, batch -> { }, Duration.ofDays(7),
                    Duration.ofMillis(100));
            for (int i = 0; i < 5; i++) {
                appended.add(append(db, true));
                for (int n = 0; n < 100; n++) {
                    relay.nudge();
                }
            }

            assertThat(relay.isActive()).isFalse();
            assertThat(published(meters, db)).isZero();
            assertThat(outbox(db)).allSatisfy(e -> assertThat(e.publishedAt()).isNull());
            assertThat(lock(holder, "pg_advisory_unlock")).isTrue();
        }

        TopicReader reader = reader(KAFKA.bootstrapServers(), topic);
        await().atMost(Duration.ofSeconds(30)).until(() -> reader.poll().size() >= appended.size());
        assertThat(reader.poll()).extracting(r -> r.event().eventId())
                .containsExactlyElementsOf(appended.stream().map(OutboxRelayIT::eventId).toList());
        assertThat(meters.get("graph.outbox.relay.failures").tag("database", db.database()).counter().count())
                .isZero();
    }

    @Test
    void close_ofARelayPausingForAnHour_activeOrStandingBy_endsItsThread() throws Exception {
        ShardRange db = database(1);
        String topic = KAFKA.createTopic("relay-close", 1);
        markAllPublishedExcept(db, List.of());
        append(db, true);
        OutboxRelay active = relayPollingHourly(db, topic, new SimpleMeterRegistry());
        await().atMost(Duration.ofSeconds(30)).until(() -> outbox(db).stream()
                .allMatch(e -> e.publishedAt() != null)); // its first round is over: it pauses for the hour
        OutboxRelay standingBy = relayPollingHourly(db, topic, new SimpleMeterRegistry());
        standingBy.nudge();

        // close() waits at most the send timeout plus 5 s; a pause that stop did not end would outlast that.
        standingBy.close();
        active.nudge();
        active.close();

        assertThat(standingBy.isRunning()).isFalse();
        assertThat(active.isRunning()).isFalse();
        assertThat(active.isActive()).as("the lock was released").isFalse();
        try (Connection c = dataSources.forRange(db).getConnection()) {
            assertThat(lock(c, "pg_try_advisory_lock")).as("nobody holds the lock any more").isTrue();
            assertThat(lock(c, "pg_advisory_unlock")).isTrue();
        }
    }

    private static boolean lock(Connection c, String function) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + function + "(?)")) {
            ps.setLong(1, OutboxRelay.LOCK_KEY);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static double published(MeterRegistry meters, ShardRange db) {
        return meters.get("graph.outbox.published").tag("database", db.database()).counter().count();
    }

    private static ShardRange database(int index) {
        return SHARDS.shardMap().ranges(ShardGroup.FOLLOWING).get(index);
    }

    private OutboxRelay relay(ShardRange db, String bootstrap, String topic, MeterRegistry meters,
                              OutboxRelay.AfterPublish afterPublish) {
        return relay(db, bootstrap, topic, meters, afterPublish, Duration.ofDays(7));
    }

    private OutboxRelay relay(ShardRange db, String bootstrap, String topic, MeterRegistry meters,
                              OutboxRelay.AfterPublish afterPublish, Duration retention) {
        return relay(db, bootstrap, topic, meters, afterPublish, retention, Duration.ofMillis(50));
    }

    /** A relay that only a nudge can make publish a row committed after its first round. */
    private OutboxRelay relayPollingHourly(ShardRange db, String topic, MeterRegistry meters) {
        return relay(db, KAFKA.bootstrapServers(), topic, meters, batch -> { }, Duration.ofDays(7), AN_HOUR);
    }

    private OutboxRelay relay(ShardRange db, String bootstrap, String topic, MeterRegistry meters,
                              OutboxRelay.AfterPublish afterPublish, Duration retention, Duration pollInterval) {
        return relay(db, dataSources.forRange(db), bootstrap, topic, meters, afterPublish, retention, pollInterval);
    }

    private OutboxRelay relay(ShardRange db, DataSource dataSource, String topic, MeterRegistry meters,
                              Duration pollInterval) {
        return relay(db, dataSource, KAFKA.bootstrapServers(), topic, meters, batch -> { }, Duration.ofDays(7),
                pollInterval);
    }

    private OutboxRelay relay(ShardRange db, DataSource dataSource, String bootstrap, String topic,
                              MeterRegistry meters, OutboxRelay.AfterPublish afterPublish, Duration retention,
                              Duration pollInterval) {
        WriteProperties.Relay settings = new WriteProperties.Relay(true, bootstrap, 7, pollInterval,
                Duration.ofSeconds(2), retention);
        OutboxRelay relay = new OutboxRelay(db.database(), dataSource, OUTBOX,
                () -> OutboxRelays.producer(settings, db.database()),
                new OutboxRelay.Settings(topic, settings.batchSize(), settings.pollInterval(), settings.sendTimeout(),
                        settings.retention()), meters, afterPublish, EventTracing.NONE, Clock.systemUTC());
        closeables.add(relay);
        relay.start();
        return relay;
    }

    /** {@code real}, except that asking it for a connection fails as a database that is down does while {@code down}. */
    private static DataSource failingWhile(AtomicBoolean down, DataSource real) {
        return (DataSource) Proxy.newProxyInstance(OutboxRelayIT.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && down.get()) {
                        throw new SQLException("the database is down", "08001");
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private TopicReader reader(String bootstrap, String topic) {
        TopicReader reader = new TopicReader(bootstrap, topic);
        closeables.add(reader);
        return reader;
    }

    /** Appends one outbox row as the write path would, with a fresh follower of this database. */
    private OutboxEntry append(ShardRange db, boolean follow) {
        long follower = 256L * (nextFollower++) + db.firstShard() + 1;
        long followee = 900_000 + nextFollower % 5;
        long followedAt = 1_700_000_000_000L + nextFollower;
        return append(db, follower, followee, follow, followedAt, 1);
    }

    /** Appends one outbox row in a transaction of its own and returns it as stored, once committed. */
    private static OutboxEntry append(ShardRange db, long follower, long followee, boolean follow, long followedAt,
                                      long version) {
        return tx(db, c -> {
            long id = OUTBOX.append(c, follower, followee, follow, followedAt, version);
            return OUTBOX.after(c, id - 1, 1).getFirst();
        });
    }

    private static String eventId(OutboxEntry e) {
        return e.followerId() + "-" + e.version();
    }

    private List<OutboxEntry> outbox(ShardRange db) {
        return tx(db, c -> OUTBOX.after(c, 0, Integer.MAX_VALUE));
    }

    private void markAllPublishedExcept(ShardRange db, List<OutboxEntry> keep) {
        tx(db, c -> OUTBOX.markPublished(c, OUTBOX.unpublished(c, Integer.MAX_VALUE).stream()
                .filter(e -> keep.stream().noneMatch(k -> k.id() == e.id())).mapToLong(OutboxEntry::id).toArray()));
    }

    private static <T> T tx(ShardRange db, Transactions.Work<T> work) {
        DataSource ds = dataSources.forRange(db);
        try {
            return Transactions.inTransaction(ds, work);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

}
