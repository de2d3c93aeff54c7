package dev.socialgraph.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.cache.FollowingCacheScripts;
import dev.socialgraph.common.event.AccountEvent;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.keys.RedisKeys;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The consumer end to end on real Postgres, Redis and Kafka: the test publishes events as the relay would and
 * checks the follower side against a model it keeps itself. Each test uses its own followees.
 */
@SpringBootTest(classes = CdcConsumerApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
@DirtiesContext
class FollowEventsIT {

    private static final TestShards SHARDS = TestShards.create("cdc_events");
    private static final CdcHarness KAFKA = new CdcHarness("cdc-events");
    private static final long T0 = 1_700_000_000_000L;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        KAFKA.properties(SHARDS).forEach((k, v) -> registry.add(k, () -> v));
    }

    @AfterAll
    static void close() {
        KAFKA.close();
        SHARDS.close();
    }

    @Autowired
    ShardDataSources dataSources;
    @Autowired
    KafkaListenerEndpointRegistry listeners;
    @Autowired
    CdcProperties properties;
    @Autowired
    CdcMetrics metrics;
    @Autowired
    io.micrometer.core.instrument.MeterRegistry registry;

    /** Following-row versions per follower, as the write service would number them. */
    private final Map<Long, AtomicLong> versions = new HashMap<>();

    @Test
    void removalsOfAFolloweeWithoutARow_createNoRow_whileAFollowStillCreatesOne() {
        long erased = 256L * 3100 + 9; // an erased user's rows are gone; the erasure's unfollows arrive after
        long follower = 256L * 3100 + 141;
        long other = 256L * 3100 + 142;
        KAFKA.publish(FollowEvent.unfollow(follower, erased, T0, 2, T0));
        KAFKA.publish(FollowEvent.of(FollowEvent.Type.UNBLOCK, other, erased, T0, 3, T0));
        KAFKA.publish(FollowEvent.follow(follower, other, T0 + 1, 3, T0));
        KAFKA.awaitCaughtUp();

        assertThat(CdcHarness.row(dataSources, erased)).isEmpty();
        assertThat(CdcHarness.followers(dataSources, other)).extracting(p -> p[0]).containsExactly(follower);
    }

    @Test
    void followUnfollowSequences_onBothDatabases_convergeToExpectedEdges() {
        long[] followees = {256L * 1000 + 5, 256L * 1000 + 77, 256L * 1000 + 130, 256L * 1000 + 250};
        Map<Long, Map<Long, Long>> model = publishRandomSequences(followees, 20, 60, new Random(1));

        KAFKA.awaitCaughtUp();

        for (long followee : followees) {
            assertThat(CdcHarness.followers(dataSources, followee))
                    .as("followers of %d", followee).containsExactlyElementsOf(CdcHarness.expected(model.get(followee)));
            FollowerRow row = CdcHarness.row(dataSources, followee).orElseThrow();
            assertThat(row.followerCount()).isEqualTo(model.get(followee).size());
            assertThat(row.celebrity()).isFalse();
            assertRowOnlyInMappedDatabase(followee);
        }
    }

    @Test
    void thousandFollowersOfOneFollowee_publishedConcurrently_everyEdgeOnceWithFewRewrites() throws Exception {
        long followee = 256L * 2000 + 140;
        int followers = 1200;
        MessageListenerContainer container = pause(); // the events pile up, so the consumer sees full batches
        ExecutorService publishers = Executors.newFixedThreadPool(4);
        List<Future<?>> sent = new ArrayList<>();
        for (int thread = 0; thread < 4; thread++) {
            int first = thread;
            sent.add(publishers.submit(() -> {
                for (long follower = 1 + first; follower <= followers; follower += 4) {
                    KAFKA.publish(FollowEvent.follow(follower, followee, T0 + follower, 1, T0 + follower));
                }
            }));
        }
        for (Future<?> f : sent) {
            f.get();
        }
        publishers.shutdown();
        container.resume();

        KAFKA.awaitCaughtUp();

        Map<Long, Long> model = new HashMap<>();
        for (long follower = 1; follower <= followers; follower++) {
            model.put(follower, T0 + follower);
        }
        assertThat(CdcHarness.followers(dataSources, followee)).containsExactlyElementsOf(CdcHarness.expected(model));
        FollowerRow row = CdcHarness.row(dataSources, followee).orElseThrow();
        assertThat(row.followerCount()).isEqualTo(followers);
        // One rewrite per followee per batch: batches hold up to 100 records, so about 12 rewrites, not 1,200.
        assertThat(row.version()).isBetween(12L, (long) followers / 10);
    }

    @Test
    void replayFromTheStart_leavesStateAndVersionsUnchanged() throws Exception {
        long[] followees = {256L * 3000 + 9, 256L * 3000 + 200};
        Map<Long, Map<Long, Long>> model = publishRandomSequences(followees, 10, 30, new Random(3));
        // follow(t1), unfollow(t1), follow(t3) of one pair: after any replay the edge is present once, at t3.
        long pairFollowee = 256L * 3000 + 100;
        long pairFollower = 42;
        KAFKA.publish(FollowEvent.follow(pairFollower, pairFollowee, T0 + 1, nextVersion(pairFollower), T0 + 1));
        KAFKA.publish(FollowEvent.unfollow(pairFollower, pairFollowee, T0 + 1, nextVersion(pairFollower), T0 + 2));
        KAFKA.publish(FollowEvent.follow(pairFollower, pairFollowee, T0 + 3, nextVersion(pairFollower), T0 + 3));
        KAFKA.awaitCaughtUp();
        Map<Long, Optional<FollowerRow>> before = new HashMap<>();
        for (long followee : new long[] {followees[0], followees[1], pairFollowee}) {
            before.put(followee, CdcHarness.row(dataSources, followee));
        }

        MessageListenerContainer container = listeners.getListenerContainer("cdc-consumer");
        container.stop();
        KAFKA.rewindGroup();
        assertThat(KAFKA.lag()).isPositive();
        container.start();
        KAFKA.awaitCaughtUp();

        for (long followee : followees) {
            assertThat(CdcHarness.followers(dataSources, followee))
                    .containsExactlyElementsOf(CdcHarness.expected(model.get(followee)));
        }
        for (var entry : before.entrySet()) {
            // Same content and count. The version may grow: replaying follow(t1) then unfollow(t1) of an edge
            // that is gone re-adds it for a batch, so a replay converges but need not be write-free.
            FollowerRow was = entry.getValue().orElseThrow();
            FollowerRow is = CdcHarness.row(dataSources, entry.getKey()).orElseThrow();
            assertThat(is.followerIds()).as("followers of %d", entry.getKey()).containsExactly(was.followerIds());
            assertThat(is.followedAt()).containsExactly(was.followedAt());
            assertThat(is.followerCount()).isEqualTo(was.followerCount());
            assertThat(is.version()).isGreaterThanOrEqualTo(was.version());
        }
        assertThat(CdcHarness.followers(dataSources, pairFollowee))
                .containsExactly(new long[] {pairFollower, T0 + 3});
    }

    @Test
    void poisonRecords_goToDeadLetterTopicWithError_andLaterEventsStillApply() {
        long followee = 256L * 4000 + 3;
        String unique = "poison-" + System.nanoTime();
        KAFKA.publish(FollowEvent.follow(1, followee, T0 + 1, 1, T0 + 1));
        RecordMetadata notJson = KAFKA.publishRaw(Long.toString(followee), ("not json " + unique).getBytes(StandardCharsets.UTF_8));
        KAFKA.publishRaw(Long.toString(followee), ("{\"eventId\":\"" + unique + "\",\"type\":\"follow\"}").getBytes(StandardCharsets.UTF_8));
        KAFKA.publishRaw(Long.toString(followee), json(unique + "-self", followee, followee, 1));
        KAFKA.publishRaw(Long.toString(followee), json(unique + "-negative", -5, followee, 1));
        KAFKA.publish(new AccountEvent(unique + "-account", AccountEvent.Type.DEACTIVATE, followee, 1, T0 + 2));
        KAFKA.publish(FollowEvent.follow(2, followee, T0 + 2, 1, T0 + 2));

        KAFKA.awaitCaughtUp();

        assertThat(CdcHarness.followers(dataSources, followee))
                .containsExactly(new long[] {1, T0 + 1}, new long[] {2, T0 + 2});
        List<ConsumerRecord<byte[], byte[]>> dead = readDeadLetters(unique, 4);
        assertThat(dead).hasSize(4);
        ConsumerRecord<byte[], byte[]> first = dead.getFirst();
        assertThat(new String(first.value(), StandardCharsets.UTF_8)).isEqualTo("not json " + unique);
        assertThat(header(first, KafkaHeaders.DLT_ORIGINAL_TOPIC)).isEqualTo(KAFKA.topic.getBytes(StandardCharsets.UTF_8));
        assertThat(ByteBuffer.wrap(header(first, KafkaHeaders.DLT_ORIGINAL_PARTITION)).getInt()).isEqualTo(notJson.partition());
        assertThat(ByteBuffer.wrap(header(first, KafkaHeaders.DLT_ORIGINAL_OFFSET)).getLong()).isEqualTo(notJson.offset());
        assertThat(dead).extracting(r -> new String(header(r, KafkaHeaders.DLT_EXCEPTION_MESSAGE), StandardCharsets.UTF_8))
                .satisfiesExactly(
                        m -> assertThat(m).startsWith("unparseable JSON"),
                        m -> assertThat(m).contains("missing field"),
                        m -> assertThat(m).contains("must differ"),
                        m -> assertThat(m).contains("followerId"));
        assertThat(allDeadLetters(unique + "-account")).as("an account event is skipped, not poison").isEmpty();
    }

    @Test
    void cachedFollowingSet_isRepairedByTheEvent_andDroppedWhenAVersionIsMissing() {
        long follower = 256L * 5000 + 1;
        long followee = 256L * 5000 + 2;
        long other = 256L * 5000 + 3;
        try (RedisClient client = RedisClient.create(properties.redisUri());
             StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            String set = RedisKeys.following(follower);
            String version = RedisKeys.followingVersion(follower);
            Long filled = redis.eval(FollowingCacheScripts.FILL, ScriptOutputType.INTEGER, new String[] {set, version},
                    "4", "3600", Long.toString(other));
            assertThat(filled).isEqualTo(FollowingCacheScripts.FILLED);

            KAFKA.publish(FollowEvent.follow(follower, followee, T0, 5, T0));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(redis.smembers(set)).containsExactlyInAnyOrder("-1", Long.toString(other),
                            Long.toString(followee)));
            assertThat(redis.get(version)).isEqualTo("5");

            // Version 6 never reaches Redis; 7 finds the cache behind and drops it.
            KAFKA.publish(FollowEvent.unfollow(follower, other, T0 - 5, 7, T0 + 1));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(redis.exists(set)).isZero());
            assertThat(redis.get(version)).isEqualTo("7");
        }
    }

    /**
     * One follower database refusing connections holds back only its own followees (DESIGN.md 7). Before, the
     * listener failed the whole batch and the error handler retried it without polling, so every partition, and
     * with it every followee of every database, waited for the one database.
     */
    @Test
    void followeesOnADatabaseThatIsDown_waitInOrder_whileOtherDatabasesFolloweesAreApplied() throws Exception {
        long down = 256L * 6000 + 7; // first follower database
        long up = sharingPartitionWith(down, 256L * 6000 + 131); // second follower database, same partition
        String downDatabase = SHARDS.shardMap().route(ShardGroup.FOLLOWER, down).database();
        String upDatabase = SHARDS.shardMap().route(ShardGroup.FOLLOWER, up).database();
        assertThat(downDatabase).isNotEqualTo(upDatabase);
        DataSource admin = TestServers.postgres().dataSource(upDatabase);
        double failuresBefore = metrics.batchFailures();
        setConnectionsAllowed(admin, downDatabase, false);
        RecordMetadata firstDown;
        try {
            // One producer batch, hence one poll: both followees and a poison record, the down followee first.
            firstDown = KAFKA.publishTogether(List.of(
                    Map.entry(Long.toString(down), FollowEventJson.toJson(FollowEvent.follow(1, down, T0 + 1, 1, T0 + 1))),
                    Map.entry(Long.toString(down), FollowEventJson.toJson(FollowEvent.follow(2, down, T0 + 2, 1, T0 + 2))),
                    Map.entry(Long.toString(down), ("poison during outage " + down).getBytes(StandardCharsets.UTF_8)),
                    Map.entry(Long.toString(up), FollowEventJson.toJson(FollowEvent.follow(1, up, T0 + 1, 2, T0 + 1)))));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(CdcHarness.followers(dataSources, up)).containsExactly(new long[] {1, T0 + 1}));

            // Later polls go on: the healthy followee's next events arrive while the other's keep waiting. An
            // unfollow and a re-follow of the waiting followee go behind its first events, in order.
            KAFKA.publish(FollowEvent.unfollow(1, down, T0 + 1, 3, T0 + 3));
            KAFKA.publish(FollowEvent.follow(1, down, T0 + 4, 4, T0 + 4));
            KAFKA.publish(FollowEvent.follow(3, up, T0 + 5, 1, T0 + 5));
            KAFKA.publish(FollowEvent.unfollow(1, up, T0 + 1, 5, T0 + 6));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(CdcHarness.followers(dataSources, up)).containsExactly(new long[] {3, T0 + 5}));
            assertThat(metrics.batchFailures()).as("no batch fails for a database outage").isEqualTo(failuresBefore);

            // The partition is committed no further than the waiting followee's first event.
            TopicPartition partition = new TopicPartition(firstDown.topic(), firstDown.partition());
            var committed = KAFKA.committed().get(partition);
            assertThat(committed == null ? 0 : committed.offset()).isLessThanOrEqualTo(firstDown.offset());
            assertThat(KAFKA.lag()).isGreaterThanOrEqualTo(7);
            assertThat(parked()).isEqualTo(4);
        } finally {
            setConnectionsAllowed(admin, downDatabase, true);
        }

        // Retried on idle ticks: nothing else is published.
        KAFKA.awaitCaughtUp();
        assertThat(CdcHarness.followers(dataSources, down))
                .containsExactly(new long[] {2, T0 + 2}, new long[] {1, T0 + 4});
        assertThat(CdcHarness.row(dataSources, down).orElseThrow().followerCount()).isEqualTo(2);
        assertThat(CdcHarness.followers(dataSources, up)).containsExactly(new long[] {3, T0 + 5});
        assertThat(CdcHarness.row(dataSources, up).orElseThrow().followerCount()).isEqualTo(1);
        assertThat(parked()).isZero();
        // Dead-lettered once, not once per attempt.
        assertThat(allDeadLetters("poison during outage " + down)).hasSize(1);
    }

    /**
     * An event that parses but that the follower side refuses every time (here a constraint the test adds to the
     * follower table) is dead-lettered after {@code apply-attempts} attempts; it stalled the consumer for good
     * before. The events after it, of the same followee and of others, are applied.
     */
    @Test
    void eventTheFollowerSideRefuses_goesToDeadLetterTopicAfterItsAttempts_andLaterEventsApply() throws Exception {
        long refusing = 256L * 7000 + 20;
        long other = sharingPartitionWith(refusing, 256L * 7000 + 21); // same database and partition
        String database = SHARDS.shardMap().route(ShardGroup.FOLLOWER, refusing).database();
        DataSource admin = TestServers.postgres().dataSource(database);
        double refusedBefore = metrics.refusedEvents();
        try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE follower_adjacency ADD CONSTRAINT refuse_follower_666 "
                    + "CHECK (NOT (666 = ANY (follower_ids)))");
        }
        RecordMetadata refused;
        try {
            KAFKA.publish(FollowEvent.follow(1, refusing, T0 + 1, 1, T0 + 1));
            refused = KAFKA.publish(FollowEvent.follow(666, refusing, T0 + 2, 1, T0 + 2));
            KAFKA.publish(FollowEvent.follow(2, refusing, T0 + 3, 1, T0 + 3));
            KAFKA.publish(FollowEvent.follow(1, other, T0 + 4, 2, T0 + 4));

            KAFKA.awaitCaughtUp();
        } finally {
            try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("ALTER TABLE follower_adjacency DROP CONSTRAINT refuse_follower_666");
            }
        }

        assertThat(CdcHarness.followers(dataSources, refusing))
                .containsExactly(new long[] {1, T0 + 1}, new long[] {2, T0 + 3});
        assertThat(CdcHarness.followers(dataSources, other)).containsExactly(new long[] {1, T0 + 4});
        assertThat(metrics.refusedEvents()).isEqualTo(refusedBefore + 1);
        List<ConsumerRecord<byte[], byte[]>> dead = allDeadLetters("\"followerId\":666,");
        assertThat(dead).hasSize(1);
        assertThat(ByteBuffer.wrap(header(dead.getFirst(), KafkaHeaders.DLT_ORIGINAL_OFFSET)).getLong())
                .isEqualTo(refused.offset());
        assertThat(new String(header(dead.getFirst(), KafkaHeaders.DLT_EXCEPTION_MESSAGE), StandardCharsets.UTF_8))
                .contains("refuse_follower_666");
        assertThat(parked()).isZero();
    }

    /**
     * The followees of one database in one poll are applied in one transaction: one commit for all their rows, not
     * one each. Their rows' {@code xmin} (the id of the transaction that wrote them) is therefore one.
     */
    @Test
    void severalFolloweesOfOneDatabaseInOnePoll_areWrittenByOneTransaction() throws Exception {
        long first = 256L * 8000 + 11; // shards 11 and 12, both on the first follower database
        List<Long> followees = List.of(first, sharingPartitionWith(first, 256L * 8020 + 11),
                sharingPartitionWith(first, 256L * 8040 + 12), sharingPartitionWith(first, 256L * 8060 + 12));
        List<Map.Entry<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < followees.size(); i++) {
            long followee = followees.get(i);
            records.add(Map.entry(Long.toString(followee),
                    FollowEventJson.toJson(FollowEvent.follow(10 + i, followee, T0 + i, 1, T0 + i))));
        }

        KAFKA.publishTogether(records);
        KAFKA.awaitCaughtUp();

        for (int i = 0; i < followees.size(); i++) {
            assertThat(CdcHarness.followers(dataSources, followees.get(i))).containsExactly(new long[] {10 + i, T0 + i});
        }
        assertThat(writers(followees)).as("transactions that wrote the rows").hasSize(1);
    }

    /**
     * A refused event in a poll with other followees of its database fails their common transaction; each followee is
     * then applied alone, so only the refused event waits for its attempts and the dead-letter topic.
     */
    @Test
    void aRefusedEventAmongOtherFolloweesOfItsDatabase_holdsBackOnlyItself() throws Exception {
        long refusing = 256L * 8100 + 30;
        long before = sharingPartitionWith(refusing, 256L * 8101 + 30);
        long after = sharingPartitionWith(refusing, 256L * 8100 + 31);
        String database = SHARDS.shardMap().route(ShardGroup.FOLLOWER, refusing).database();
        DataSource admin = TestServers.postgres().dataSource(database);
        try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE follower_adjacency ADD CONSTRAINT refuse_follower_667 "
                    + "CHECK (NOT (667 = ANY (follower_ids)))");
        }
        try {
            KAFKA.publishTogether(List.of(
                    Map.entry(Long.toString(before), FollowEventJson.toJson(FollowEvent.follow(1, before, T0 + 1, 1, T0 + 1))),
                    Map.entry(Long.toString(refusing), FollowEventJson.toJson(FollowEvent.follow(667, refusing, T0 + 2, 1, T0 + 2))),
                    Map.entry(Long.toString(refusing), FollowEventJson.toJson(FollowEvent.follow(2, refusing, T0 + 3, 1, T0 + 3))),
                    Map.entry(Long.toString(after), FollowEventJson.toJson(FollowEvent.follow(3, after, T0 + 4, 1, T0 + 4)))));
            KAFKA.awaitCaughtUp();
        } finally {
            try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("ALTER TABLE follower_adjacency DROP CONSTRAINT refuse_follower_667");
            }
        }

        assertThat(CdcHarness.followers(dataSources, before)).containsExactly(new long[] {1, T0 + 1});
        assertThat(CdcHarness.followers(dataSources, after)).containsExactly(new long[] {3, T0 + 4});
        assertThat(CdcHarness.followers(dataSources, refusing)).containsExactly(new long[] {2, T0 + 3});
        assertThat(allDeadLetters("\"followerId\":667,")).hasSize(1);
        assertThat(parked()).isZero();
    }

    /** The distinct ids of the transactions that last wrote the follow rows of {@code followees}. */
    private Set<Long> writers(List<Long> followees) throws Exception {
        DataSource database = dataSources.forUser(ShardGroup.FOLLOWER, followees.getFirst());
        try (Connection connection = database.getConnection(); PreparedStatement ps = connection.prepareStatement(
                "SELECT DISTINCT xmin::text::bigint FROM follower_adjacency WHERE followee_id = ANY (?) AND relation = 0")) {
            ps.setArray(1, connection.createArrayOf("bigint", followees.toArray(Long[]::new)));
            Set<Long> out = new HashSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
            return out;
        }
    }

    private double parked() {
        return registry.get("graph.cdc.events.parked").gauge().value();
    }

    /**
     * Publishes random follow/unfollow sequences (with redelivered duplicates) to each followee, interleaved, and
     * returns the model: followee -> (follower -> followedAt).
     */
    private Map<Long, Map<Long, Long>> publishRandomSequences(long[] followees, int followers, int eventsPerFollowee,
                                                              Random random) {
        Map<Long, Map<Long, Long>> model = new HashMap<>();
        Map<Long, FollowEvent> lastEvent = new HashMap<>();
        long clock = T0;
        for (long followee : followees) {
            model.put(followee, new HashMap<>());
        }
        for (int i = 0; i < eventsPerFollowee; i++) {
            for (long followee : followees) {
                Map<Long, Long> edges = model.get(followee);
                if (random.nextInt(8) == 0 && lastEvent.containsKey(followee)) {
                    KAFKA.publish(lastEvent.get(followee)); // at-least-once: the same event again
                    continue;
                }
                long follower = 1 + random.nextInt(followers);
                clock += 1 + random.nextInt(3);
                FollowEvent event;
                if (edges.containsKey(follower)) {
                    event = FollowEvent.unfollow(follower, followee, edges.remove(follower), nextVersion(follower), clock);
                } else {
                    edges.put(follower, clock);
                    event = FollowEvent.follow(follower, followee, clock, nextVersion(follower), clock);
                }
                lastEvent.put(followee, event);
                KAFKA.publish(event);
            }
        }
        return model;
    }

    /** Pauses the listener and waits until it no longer polls records. */
    private MessageListenerContainer pause() {
        MessageListenerContainer container = listeners.getListenerContainer("cdc-consumer");
        container.pause();
        await().atMost(Duration.ofSeconds(30)).until(container::isContainerPaused);
        return container;
    }

    /** The first followee from {@code candidate} on, in steps of 256 (same shard), whose key maps to the same partition. */
    private static long sharingPartitionWith(long followee, long candidate) {
        while (partition(candidate) != partition(followee)) {
            candidate += 256;
        }
        return candidate;
    }

    private static int partition(long followee) {
        byte[] key = Long.toString(followee).getBytes(StandardCharsets.UTF_8);
        return Utils.toPositive(Utils.murmur2(key)) % 4;
    }

    private long nextVersion(long follower) {
        return versions.computeIfAbsent(follower, f -> new AtomicLong()).incrementAndGet();
    }

    private void assertRowOnlyInMappedDatabase(long followee) {
        ShardRange home = SHARDS.shardMap().route(ShardGroup.FOLLOWER, followee);
        for (ShardRange range : SHARDS.shardMap().ranges(ShardGroup.FOLLOWER)) {
            try (Connection connection = TestServers.postgres().dataSource(range.database()).getConnection()) {
                assertThat(new FollowerRepository().find(connection, followee)).as("row of %d in %s", followee, range)
                        .matches(row -> row.isPresent() == range.equals(home));
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static byte[] json(String eventId, long followerId, long followeeId, long version) {
        return ("{\"eventId\":\"" + eventId + "\",\"type\":\"follow\",\"followerId\":" + followerId
                + ",\"followeeId\":" + followeeId + ",\"followedAt\":" + T0 + ",\"version\":" + version
                + ",\"occurredAt\":" + T0 + "}").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] header(ConsumerRecord<byte[], byte[]> record, String name) {
        var header = record.headers().lastHeader(name);
        assertThat(header).as("header %s", name).isNotNull();
        return header.value();
    }

    /** The dead letters whose value mentions {@code marker}, in DLT order (the topic may hold replays too). */
    private List<ConsumerRecord<byte[], byte[]>> readDeadLetters(String marker, int expected) {
        List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestServers.kafka().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "dlt-reader-" + marker,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(KAFKA.dltTopic));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (new String(record.value(), StandardCharsets.UTF_8).contains(marker)) {
                        found.add(record);
                    }
                }
                return found.size() >= expected;
            });
        }
        return found.subList(0, expected);
    }

    /** Every dead letter whose value mentions {@code marker}, reading the DLT (one partition) to its end. */
    private static List<ConsumerRecord<byte[], byte[]>> allDeadLetters(String marker) {
        List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>();
        TopicPartition dlt = new TopicPartition(KAFKA.dltTopic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestServers.kafka().bootstrapServers()),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(dlt));
            consumer.seekToBeginning(List.of(dlt));
            long end = consumer.endOffsets(List.of(dlt)).get(dlt);
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (new String(record.value(), StandardCharsets.UTF_8).contains(marker)) {
                        found.add(record);
                    }
                }
                return consumer.position(dlt) >= end;
            });
        }
        return found;
    }

    private static void setConnectionsAllowed(DataSource admin, String database, boolean allowed) throws Exception {
        try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("ALTER DATABASE \"" + database + "\" ALLOW_CONNECTIONS " + allowed);
            if (!allowed) {
                statement.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
                        + database + "' AND pid <> pg_backend_pid()");
            }
        }
    }
}
