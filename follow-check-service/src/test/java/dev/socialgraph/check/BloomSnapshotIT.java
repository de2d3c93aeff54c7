package dev.socialgraph.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.bloom.BloomSnapshot;
import dev.socialgraph.bloom.EdgeFilter;
import dev.socialgraph.bloom.SnapshotStore;
import dev.socialgraph.check.bloom.EdgeBloom;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardMigrations;
import dev.socialgraph.testsupport.ActuatorProbe;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Start-up from a bloom snapshot that covers only the first half of {@code follow-events} (DESIGN.md 5 step 1):
 * the rest must come from the replay, since no shard scan runs. Then a rebuilt snapshot is swapped in while the
 * service keeps answering. 2,000 followers × 50 followings = 100,000 edges, all checked for false negatives.
 */
@SpringBootTest(classes = FollowCheckServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BloomSnapshotIT {

    static final TestShards SHARDS = TestShards.create("check_snap");
    static final KafkaServer KAFKA = TestServers.kafka();
    static final String TOPIC = KAFKA.createTopic("follow-events", 3);
    static final String REDIS_URI = TestServers.redis().uri(TestServers.redis().freshDatabase());
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final long T0 = 1_700_000_000_000L;
    static final int FOLLOWERS = 2000;
    static final int PER_FOLLOWER = 50;
    /** Edge only in events (no row), published after the first snapshot's offsets: only the replay can add it. */
    static final long[] EVENT_ONLY = {5_000_001, 9};
    /** Edge in the first snapshot but in no row (as if unfollowed): a rebuilt snapshot no longer has it. */
    static final long[] GHOST = {7_000_001, 3};
    static final Path SNAPSHOT_DIR;
    static final long[][] FOLLOWING = new long[FOLLOWERS + 1][];
    static final long FIRST_SNAPSHOT_AT = System.currentTimeMillis() - 3_600_000;

    static final Map<Integer, Long> NEXT = new HashMap<>();
    static final List<Future<RecordMetadata>> SENT = new ArrayList<>();

    static {
        try (ShardDataSources dataSources = new ShardDataSources(SHARDS.shardMap(),
                new ShardDataSources.PoolSettings(SHARDS.username(), SHARDS.password(), 2, Duration.ofSeconds(5),
                        "bloom-snapshot-it"))) {
            ShardMigrations.migrateAll(dataSources);
            SplittableRandom random = new SplittableRandom(2026);
            for (int f = 1; f <= FOLLOWERS; f++) {
                TreeSet<Long> ids = new TreeSet<>();
                while (ids.size() < PER_FOLLOWER) {
                    ids.add(random.nextLong(1, 200_000));
                }
                FOLLOWING[f] = ids.stream().mapToLong(Long::longValue).toArray();
            }
            writeRows(dataSources);
            SNAPSHOT_DIR = Files.createTempDirectory("bloom-snapshots");
            try (KafkaProducer<byte[], byte[]> producer = producer()) {
                publish(producer, 1, FOLLOWERS / 2);
                Map<Integer, Long> half = endOffsets(producer);
                EdgeFilter filter = EdgeFilter.create(EdgeFilter.expectedEdges(FOLLOWERS * PER_FOLLOWER, 1.5, 1000),
                        0.001);
                for (int f = 1; f <= FOLLOWERS / 2; f++) {
                    for (long e : FOLLOWING[f]) {
                        filter.put(f, e);
                    }
                }
                filter.put(GHOST[0], GHOST[1]);
                new SnapshotStore(SNAPSHOT_DIR, 3).write(new BloomSnapshot(TestShards.LOGICAL_SHARDS, 0,
                        TestShards.LOGICAL_SHARDS - 1, FOLLOWERS / 2 * PER_FOLLOWER + 1, FIRST_SNAPSHOT_AT, TOPIC,
                        half, filter));
                publish(producer, FOLLOWERS / 2 + 1, FOLLOWERS);
                send(producer, FollowEvent.follow(EVENT_ONLY[0], EVENT_ONLY[1], T0, 1, T0));
                producer.flush();
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** One transaction per database: 2,000 rows in a few seconds. */
    static void writeRows(ShardDataSources dataSources) throws Exception {
        FollowingRepository rows = new FollowingRepository();
        Map<DataSource, List<Integer>> byDatabase = new IdentityHashMap<>();
        for (int f = 1; f <= FOLLOWERS; f++) {
            byDatabase.computeIfAbsent(dataSources.forUser(ShardGroup.FOLLOWING, f), d -> new ArrayList<>()).add(f);
        }
        for (Map.Entry<DataSource, List<Integer>> db : byDatabase.entrySet()) {
            try (Connection c = db.getKey().getConnection()) {
                c.setAutoCommit(false);
                for (int f : db.getValue()) {
                    long[] times = new long[PER_FOLLOWER];
                    java.util.Arrays.fill(times, T0);
                    FollowingRow row = rows.lockOrCreate(c, f);
                    rows.writeNextVersion(c, row, FOLLOWING[f], times);
                }
                c.commit();
            }
        }
    }

    static KafkaProducer<byte[], byte[]> producer() {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        return new KafkaProducer<>(config);
    }

    static void send(KafkaProducer<byte[], byte[]> producer, FollowEvent event) {
        SENT.add(producer.send(new ProducerRecord<>(TOPIC,
                Long.toString(event.followeeId()).getBytes(StandardCharsets.UTF_8), FollowEventJson.toJson(event))));
    }

    static void publish(KafkaProducer<byte[], byte[]> producer, int firstFollower, int lastFollower) {
        for (int f = firstFollower; f <= lastFollower; f++) {
            for (long e : FOLLOWING[f]) {
                send(producer, FollowEvent.follow(f, e, T0, 1, T0));
            }
        }
    }

    /** Next offset per partition after everything sent so far (partitions without records: 0). */
    static Map<Integer, Long> endOffsets(KafkaProducer<byte[], byte[]> producer) throws Exception {
        producer.flush();
        for (Future<RecordMetadata> f : SENT) {
            RecordMetadata m = f.get();
            NEXT.merge(m.partition(), m.offset() + 1, Math::max);
        }
        SENT.clear();
        Map<Integer, Long> out = new HashMap<>(Map.of(0, 0L, 1, 0L, 2, 0L));
        out.putAll(NEXT);
        return out;
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.check.redis-uri", () -> REDIS_URI);
        registry.add("graph.check.bloom.kafka-bootstrap", KAFKA::bootstrapServers);
        registry.add("graph.check.bloom.topic", () -> TOPIC);
        registry.add("graph.check.bloom.minimum-expected-edges", () -> "1000");
        registry.add("graph.check.bloom.snapshot-dir", SNAPSHOT_DIR::toString);
        registry.add("graph.check.bloom.swap-check-interval", () -> "500ms");
    }

    @AfterAll
    static void close() {
        SHARDS.close();
    }

    @Autowired
    EdgeBloom bloom;

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    HttpResponse<String> call(String method, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("X-Service-Token", ServiceProcess.SERVICE_TOKEN)
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    int falseNegatives() {
        int missing = 0;
        for (int f = 1; f <= FOLLOWERS; f++) {
            for (long e : FOLLOWING[f]) {
                missing += bloom.mightFollow(f, e) ? 0 : 1;
            }
        }
        return missing;
    }

    @Test
    @Order(1)
    void startUp_fromASnapshotOfHalfTheEvents_replaysTheRest_beforeReadiness() throws Exception {
        assertThat(bloom.isReady()).isTrue();
        assertThat(ActuatorProbe.get(managementPort, "/actuator/health/readiness").body()).contains("\"UP\"");
        assertThat(bloom.snapshotCreatedAt()).isEqualTo(FIRST_SNAPSHOT_AT); // loaded, not scanned

        assertThat(falseNegatives()).isZero(); // 100,000 edges, half of them only in the replayed events
        assertThat(bloom.mightFollow(EVENT_ONLY[0], EVENT_ONLY[1])).isTrue(); // no row: only the replay has it
        assertThat(bloom.mightFollow(GHOST[0], GHOST[1])).isTrue();
        int falsePositives = 0;
        for (int f = 1; f <= FOLLOWERS; f++) {
            falsePositives += bloom.mightFollow(f, 300_000 + f) ? 1 : 0;
        }
        assertThat(falsePositives).isLessThan(20); // 0.1 % of 2,000 expected
    }

    @Test
    @Order(2)
    void swap_toARebuiltSnapshot_keepsEveryEdge_andForgetsRemovedOnes() throws Exception {
        long rebuiltAt = System.currentTimeMillis();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            Map<Integer, Long> now = endOffsets(producer);
            EdgeFilter filter = EdgeFilter.create(EdgeFilter.expectedEdges(FOLLOWERS * PER_FOLLOWER, 1.5, 1000),
                    0.001);
            for (int f = 1; f <= FOLLOWERS; f++) { // rebuilt from the rows: no ghost, no event-only edge
                for (long e : FOLLOWING[f]) {
                    filter.put(f, e);
                }
            }
            new SnapshotStore(SNAPSHOT_DIR, 3).write(new BloomSnapshot(TestShards.LOGICAL_SHARDS, 0,
                    TestShards.LOGICAL_SHARDS - 1, FOLLOWERS * PER_FOLLOWER, rebuiltAt, TOPIC, now, filter));
            send(producer, FollowEvent.follow(5_000_002, 9, T0, 1, T0)); // after the rebuilt snapshot's offsets
            producer.flush();
        }
        assertThat(bloom.mightFollow(GHOST[0], GHOST[1])).isTrue();

        HttpResponse<String> swapped = call("POST", "/internal/v1/bloom/swap");

        assertThat(swapped.statusCode()).as(swapped.body()).isEqualTo(200); // by this call or by the directory check
        assertThat(swapped.body()).contains("\"snapshotCreatedAt\":" + rebuiltAt);
        assertThat(bloom.snapshotCreatedAt()).isEqualTo(rebuiltAt);
        assertThat(bloom.isReady()).isTrue();
        assertThat(falseNegatives()).isZero();
        assertThat(bloom.mightFollow(5_000_002, 9)).isTrue();
        assertThat(bloom.mightFollow(GHOST[0], GHOST[1])).isFalse();
        assertThat(call("GET", "/internal/v1/users/1/following/" + FOLLOWING[1][0]).body())
                .isEqualTo("{\"following\":true}");

        HttpResponse<String> again = call("POST", "/internal/v1/bloom/swap");
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.body()).contains("\"swapped\":false", "\"snapshotCreatedAt\":" + rebuiltAt);
        REBUILT_AT[0] = rebuiltAt;
    }

    static final long[] REBUILT_AT = {0};

    @Test
    @Order(3)
    void aNewerSnapshotInTheDirectory_goesLiveWithoutBeingAsked() throws Exception {
        long at = Math.max(System.currentTimeMillis(), REBUILT_AT[0] + 1);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            Map<Integer, Long> now = endOffsets(producer);
            EdgeFilter filter = EdgeFilter.create(EdgeFilter.expectedEdges(FOLLOWERS * PER_FOLLOWER, 1.5, 1000),
                    0.001);
            for (int f = 1; f <= FOLLOWERS; f++) {
                for (long e : FOLLOWING[f]) {
                    filter.put(f, e);
                }
            }
            new SnapshotStore(SNAPSHOT_DIR, 3).write(new BloomSnapshot(TestShards.LOGICAL_SHARDS, 0,
                    TestShards.LOGICAL_SHARDS - 1, FOLLOWERS * PER_FOLLOWER, at, TOPIC, now, filter));
        }

        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> bloom.snapshotCreatedAt() == at);

        assertThat(bloom.isReady()).isTrue();
        assertThat(falseNegatives()).isZero();
    }
}
