package dev.socialgraph.reconciler.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.bloom.BloomSnapshot;
import dev.socialgraph.bloom.SnapshotStore;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.reconciler.ReconcilerApplication;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardMigrations;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import io.micrometer.core.instrument.MeterRegistry;
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
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code POST /admin/snapshots} with real Postgres and Kafka: a snapshot taken when half of the graph exists, plus a
 * replay of {@code follow-events} from the offsets it records, holds every edge of the whole graph (2,000 followers ×
 * 50 followings = 100,000 edges, none missing).
 */
@SpringBootTest(classes = ReconcilerApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SnapshotBuilderIT {

    static final TestShards SHARDS = TestShards.create("reconciler_bloom");
    static final KafkaServer KAFKA = TestServers.kafka();
    static final String TOPIC = KAFKA.createTopic("follow-events", 3);
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final long T0 = 1_700_000_000_000L;
    static final int FOLLOWERS = 2000;
    static final int PER_FOLLOWER = 50;
    static final long[][] FOLLOWING = new long[FOLLOWERS + 1][];
    static final Path SNAPSHOT_DIR;

    static {
        SplittableRandom random = new SplittableRandom(7);
        for (int f = 1; f <= FOLLOWERS; f++) {
            TreeSet<Long> ids = new TreeSet<>();
            while (ids.size() < PER_FOLLOWER) {
                ids.add(random.nextLong(1, 200_000));
            }
            FOLLOWING[f] = ids.stream().mapToLong(Long::longValue).toArray();
        }
        try (ShardDataSources dataSources = dataSources()) {
            ShardMigrations.migrateAll(dataSources);
            SNAPSHOT_DIR = Files.createTempDirectory("reconciler-bloom");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static ShardDataSources dataSources() {
        return new ShardDataSources(SHARDS.shardMap(), new ShardDataSources.PoolSettings(SHARDS.username(),
                SHARDS.password(), 2, Duration.ofSeconds(5), "reconciler-bloom-it"));
    }

    /** Writes the rows of followers {@code first..last} (one transaction per database) and publishes their events. */
    static void followAndPublish(int first, int last) throws Exception {
        FollowingRepository rows = new FollowingRepository();
        try (ShardDataSources dataSources = dataSources()) {
            Map<DataSource, List<Integer>> byDatabase = new IdentityHashMap<>();
            for (int f = first; f <= last; f++) {
                byDatabase.computeIfAbsent(dataSources.forUser(ShardGroup.FOLLOWING, f), d -> new ArrayList<>())
                        .add(f);
            }
            for (Map.Entry<DataSource, List<Integer>> db : byDatabase.entrySet()) {
                try (Connection c = db.getKey().getConnection()) {
                    c.setAutoCommit(false);
                    for (int f : db.getValue()) {
                        long[] times = new long[PER_FOLLOWER];
                        Arrays.fill(times, T0);
                        FollowingRow row = rows.lockOrCreate(c, f);
                        rows.writeNextVersion(c, row, FOLLOWING[f], times);
                    }
                    c.commit();
                }
            }
        }
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            for (int f = first; f <= last; f++) {
                for (long e : FOLLOWING[f]) {
                    producer.send(new ProducerRecord<>(TOPIC, Long.toString(e).getBytes(StandardCharsets.UTF_8),
                            FollowEventJson.toJson(FollowEvent.follow(f, e, T0, 1, T0))));
                }
            }
            producer.flush();
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.reconciler.sampling.enabled", () -> "false");
        registry.add("graph.reconciler.bloom.kafka-bootstrap", KAFKA::bootstrapServers);
        registry.add("graph.reconciler.bloom.topic", () -> TOPIC);
        registry.add("graph.reconciler.bloom.snapshot-dir", SNAPSHOT_DIR::toString);
        registry.add("graph.reconciler.bloom.minimum-expected-edges", () -> "1000");
    }

    @AfterAll
    static void close() {
        SHARDS.close();
    }

    @Autowired
    MeterRegistry registry;

    @LocalServerPort
    int port;

    HttpResponse<String> post(String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/admin/snapshots"))
                .header("X-Service-Token", ServiceProcess.SERVICE_TOKEN)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Replays follows from the snapshot's offsets to the end, as the check service does. */
    static long replay(BloomSnapshot snapshot) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        long replayed = 0;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(config)) {
            List<TopicPartition> tps = new ArrayList<>();
            snapshot.nextOffsets().keySet().forEach(p -> tps.add(new TopicPartition(TOPIC, p)));
            c.assign(tps);
            snapshot.nextOffsets().forEach((p, o) -> c.seek(new TopicPartition(TOPIC, p), o));
            Map<TopicPartition, Long> end = new HashMap<>(c.endOffsets(tps));
            while (!end.isEmpty()) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (FollowEventJson.parse(r.value()) instanceof FollowEvent event) {
                        snapshot.filter().put(event.followerId(), event.followeeId());
                    }
                    replayed++;
                }
                end.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
            }
        }
        return replayed;
    }

    @Test
    @Order(1)
    void snapshot_plusReplayFromItsOffsets_holdsEveryEdge() throws Exception {
        followAndPublish(1, FOLLOWERS / 2);

        HttpResponse<String> built = post("{}");

        assertThat(built.statusCode()).as(built.body()).isEqualTo(201);
        assertThat(built.body()).contains("\"edges\":" + (FOLLOWERS / 2 * PER_FOLLOWER));
        assertThat(registry.get("reconciler.bloom.snapshot.age").gauge().value()).isBetween(0.0, 60.0);
        followAndPublish(FOLLOWERS / 2 + 1, FOLLOWERS); // after the snapshot: only the replay knows these

        BloomSnapshot snapshot = new SnapshotStore(SNAPSHOT_DIR, 3)
                .newestCovering(TestShards.LOGICAL_SHARDS, 0, TestShards.LOGICAL_SHARDS - 1, (f, e) -> { })
                .orElseThrow();
        assertThat(snapshot.topic()).isEqualTo(TOPIC);
        assertThat(snapshot.nextOffsets().values().stream().mapToLong(Long::longValue).sum())
                .isEqualTo(FOLLOWERS / 2 * PER_FOLLOWER); // every event published before the build
        assertThat(replay(snapshot)).isEqualTo(FOLLOWERS / 2 * PER_FOLLOWER);

        int missing = 0;
        for (int f = 1; f <= FOLLOWERS; f++) {
            for (long e : FOLLOWING[f]) {
                missing += snapshot.filter().mightContain(f, e) ? 0 : 1;
            }
        }
        assertThat(missing).isZero(); // 100,000 edges
    }

    @Test
    @Order(2)
    void snapshot_ofAShardRange_holdsOnlyItsFollowers() throws Exception {
        HttpResponse<String> built = post("{\"firstShard\":0,\"lastShard\":127}");
        assertThat(built.statusCode()).as(built.body()).isEqualTo(201);
        assertThat(built.body()).contains("\"firstShard\":0", "\"lastShard\":127");
        BloomSnapshot snapshot = new SnapshotStore(SNAPSHOT_DIR, 3).newestCovering(TestShards.LOGICAL_SHARDS, 0, 127,
                (f, e) -> { }).orElseThrow();
        assertThat(snapshot.lastShard()).isEqualTo(127);
        long expected = 0;
        for (int f = 1; f <= FOLLOWERS; f++) { // every follower exists by now (runs after the first test)
            expected += Math.floorMod(f, TestShards.LOGICAL_SHARDS) <= 127 ? PER_FOLLOWER : 0;
        }
        assertThat(snapshot.edgeCount()).isEqualTo(expected);
        assertThat(snapshot.filter().mightContain(1, FOLLOWING[1][0])).isTrue();
        assertThat(post("{\"firstShard\":0,\"lastShard\":256}").statusCode()).isEqualTo(400);
    }
}
