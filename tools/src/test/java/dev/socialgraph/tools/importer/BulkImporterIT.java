package dev.socialgraph.tools.importer;

import static dev.socialgraph.common.shard.ShardGroup.FOLLOWER;
import static dev.socialgraph.common.shard.ShardGroup.FOLLOWING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.socialgraph.store.CelebrityPage;
import dev.socialgraph.store.CelebrityPageRepository;
import dev.socialgraph.store.FollowerRepository;
import dev.socialgraph.store.FollowerRow;
import dev.socialgraph.store.FollowingRepository;
import dev.socialgraph.store.FollowingRow;
import dev.socialgraph.store.ShardDataSources;
import dev.socialgraph.store.ShardMigrations;
import dev.socialgraph.store.Transactions;
import dev.socialgraph.bloom.BloomSnapshot;
import dev.socialgraph.bloom.SnapshotStore;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import dev.socialgraph.tools.edges.EdgeListFormatException;
import dev.socialgraph.tools.edges.EdgeListReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bulk importer against real PostgreSQL with two databases per group, and real Kafka for its snapshots. */
class BulkImporterIT {

    private static final long T0 = EdgeListReader.BASE_FOLLOWED_AT;

    @TempDir
    Path dir;

    private TestShards shards;
    private ShardDataSources dataSources;
    private final FollowingRepository following = new FollowingRepository();
    private final FollowerRepository followers = new FollowerRepository();
    private final CelebrityPageRepository pages = new CelebrityPageRepository();

    @BeforeEach
    void setUp() {
        shards = TestShards.create("import");
        dataSources = new ShardDataSources(shards.shardMap(), new ShardDataSources.PoolSettings(
                shards.username(), shards.password(), 2, Duration.ofSeconds(5), "import-it"));
        ShardMigrations.migrateAll(dataSources);
    }

    @AfterEach
    void tearDown() {
        dataSources.close();
        shards.close();
    }

    private BulkImporter importer(long celebrityThreshold, int pageSize) {
        return new BulkImporter(dataSources, new BulkImporter.Settings(10_000, celebrityThreshold, pageSize),
                new BulkImporter.Listener() { });
    }

    private Path file(String content) throws IOException {
        Path f = dir.resolve("edges-" + System.nanoTime() + ".txt");
        Files.writeString(f, content);
        return f;
    }

    @Test
    void importFile_buildsBothSidesInTheDatabasesTheShardMapNames() throws Exception {
        // 1 -> 2, 1 -> 300 (shard 44), 300 -> 2, 2 -> 1, a self-loop and a duplicate.
        Path f = file("# test\n1\t300\n300\t2\n1\t2\n2\t1\n5\t5\n1\t300\n");
        ImportSummary summary = importer(1_000_000, 100_000).importFile(f);

        assertThat(summary.edgesRead()).isEqualTo(6);
        assertThat(summary.selfLoopsSkipped()).isEqualTo(1);
        assertThat(summary.duplicatesSkipped()).isEqualTo(1);
        assertThat(summary.edgesImported()).isEqualTo(4);
        assertThat(summary.users()).isEqualTo(3); // 1, 2, 300: user 5 had only a self-loop
        assertThat(summary.followingRows()).isEqualTo(3);
        assertThat(summary.followerRows()).isEqualTo(3);

        FollowingRow row1 = followingRow(1).orElseThrow();
        assertThat(row1.followingIds()).containsExactly(2, 300);
        assertThat(row1.followedAt()).containsExactly(T0 + 2, T0); // line order is arrival order
        assertThat(row1.version()).isEqualTo(1);
        assertThat(followingRow(5)).isEmpty();

        FollowerRow row2 = followerRow(2).orElseThrow();
        assertThat(row2.followerIds()).containsExactly(300, 1); // arrival order
        assertThat(row2.followedAt()).containsExactly(T0 + 1, T0 + 2);
        assertThat(row2.followerCount()).isEqualTo(2);
        assertThat(followerRow(300).orElseThrow().followerIds()).containsExactly(1);

        // Routing: user 300 is logical shard 44, so its rows sit in the first database of each group.
        var low = shards.shardMap().ranges(FOLLOWING).get(0);
        assertThat(shards.shardMap().route(FOLLOWING, 300)).isEqualTo(low);
        List<FollowingRow> inLow = Transactions.inTransaction(dataSources.forRange(low),
                c -> following.findAll(c, new long[] {1, 2, 300}));
        assertThat(inLow).extracting(FollowingRow::followerId).containsExactlyInAnyOrder(1L, 2L, 300L);
        var high = shards.shardMap().ranges(FOLLOWING).get(1);
        List<FollowingRow> inHigh = Transactions.inTransaction(dataSources.forRange(high),
                c -> following.findAll(c, new long[] {1, 2, 300}));
        assertThat(inHigh).isEmpty();
    }

    @Test
    void importFile_twice_changesNothing() throws Exception {
        Path f = file("1\t2\n2\t3\n3\t1\n1\t3\n");
        importer(1_000_000, 100_000).importFile(f);
        ImportSummary again = importer(1_000_000, 100_000).importFile(f);
        assertThat(again.followingChanged()).isZero();
        assertThat(again.followerChanged()).isZero();
        assertThat(followingRow(1).orElseThrow().version()).isEqualTo(1);
        assertThat(followerRow(3).orElseThrow().version()).isEqualTo(1);
    }

    @Test
    void importFile_ofAnotherGraph_replacesItAndOnlyRaisesVersions() throws Exception {
        importer(1_000_000, 100_000).importFile(file("1\t2\n3\t2\n"));
        ImportSummary second = importer(1_000_000, 100_000).importFile(file("1\t4\n"));
        assertThat(second.followingChanged()).isEqualTo(2); // 1 changed, 3 emptied
        FollowingRow row3 = followingRow(3).orElseThrow();
        assertThat(row3.followingIds()).isEmpty();
        assertThat(row3.version()).isEqualTo(2); // emptied, never deleted: versions only grow
        assertThat(followingRow(1).orElseThrow().followingIds()).containsExactly(4);
        FollowerRow row2 = followerRow(2).orElseThrow();
        assertThat(row2.followerIds()).isEmpty();
        assertThat(row2.followerCount()).isZero();
        assertThat(followerRow(4).orElseThrow().followerIds()).containsExactly(1);
    }

    @Test
    void importFile_withAMalformedLine_writesNothing() throws Exception {
        importer(1_000_000, 100_000).importFile(file("1\t2\n"));
        Path bad = file("7\t8\n9\tx\n");
        assertThatThrownBy(() -> importer(1_000_000, 100_000).importFile(bad))
                .isInstanceOf(EdgeListFormatException.class).hasMessageContaining(":2:");
        assertThat(followingRow(7)).isEmpty();
        assertThat(followingRow(1).orElseThrow().followingIds()).containsExactly(2);
    }

    @Test
    void importFile_aboveTheFollowingCap_writesNothing() throws Exception {
        StringBuilder sb = new StringBuilder();
        for (int i = 2; i <= 10_002; i++) {
            sb.append(1).append('\t').append(i).append('\n');
        }
        Path f = file(sb.toString());
        assertThatThrownBy(() -> importer(1_000_000, 100_000).importFile(f))
                .isInstanceOf(ImportException.class).hasMessageContaining("user 1 follows 10001");
        assertThat(followingRow(1)).isEmpty();
    }

    @Test
    void importFile_putsTheFollowersOfACelebrityIntoPagesInArrivalOrder() throws Exception {
        long celebrity = 1000;
        StringBuilder sb = new StringBuilder();
        for (long follower = 20; follower >= 1; follower--) {  // arrival order is descending ids
            sb.append(follower).append('\t').append(celebrity).append('\n');
        }
        sb.append("1\t2\n");
        ImportSummary summary = importer(5, 6).importFile(file(sb.toString()));
        assertThat(summary.celebrities()).isEqualTo(1);
        assertThat(summary.celebrityPages()).isEqualTo(4); // 20 followers in pages of 6

        FollowerRow row = followerRow(celebrity).orElseThrow();
        assertThat(row.celebrity()).isTrue();
        assertThat(row.followerIds()).isEmpty();
        assertThat(row.followerCount()).isEqualTo(20);
        List<CelebrityPage> all = Transactions.inTransaction(dataSources.forUser(FOLLOWER, celebrity),
                c -> pages.all(c, celebrity));
        List<Long> ids = new ArrayList<>();
        for (CelebrityPage p : all) {
            for (long id : p.followerIds()) {
                ids.add(id);
            }
        }
        List<Long> expected = new ArrayList<>();
        for (long follower = 20; follower >= 1; follower--) {
            expected.add(follower);
        }
        assertThat(ids).containsExactlyElementsOf(expected);
        assertThat(all.get(3).followerIds()).hasSize(2);
        // A small user stays a plain row.
        assertThat(followerRow(2).orElseThrow().celebrity()).isFalse();

        // Re-import below the threshold: pages go away, the row holds everyone again.
        importer(1_000, 6).importFile(file(sb.toString()));
        assertThat(followerRow(celebrity).orElseThrow().followerIds()).hasSize(20);
        List<CelebrityPage> after = Transactions.inTransaction(dataSources.forUser(FOLLOWER, celebrity),
                c -> pages.all(c, celebrity));
        assertThat(after).isEmpty();
    }

    @Test
    void importFile_ofAGeneratedGraph_storesExactlyItsEdges() throws Exception {
        var graph = dev.socialgraph.tools.generate.RmatGenerator.generate(2_000, 20_000, 10_000, 5, T0);
        StringBuilder sb = new StringBuilder();
        TreeMap<Long, TreeSet<Long>> model = new TreeMap<>();
        for (int i = 0; i < graph.size(); i++) {
            sb.append(graph.follower(i)).append('\t').append(graph.followee(i)).append('\n');
            model.computeIfAbsent(graph.follower(i), k -> new TreeSet<>()).add(graph.followee(i));
        }
        ImportSummary summary = importer(1_000_000, 100_000).importFile(file(sb.toString()));
        assertThat(summary.edgesImported()).isEqualTo(20_000);
        long stored = 0;
        for (var e : model.entrySet()) {
            FollowingRow row = followingRow(e.getKey()).orElseThrow();
            assertThat(row.followingIds()).containsExactly(e.getValue().stream().mapToLong(Long::longValue).toArray());
            stored += row.followingCount();
        }
        assertThat(stored).isEqualTo(20_000);
    }

    // ---- bloom snapshot --------------------------------------------------------------------------------

    /** Settings as the command line builds them, but sized for exactly this graph so the fpp bound is meaningful. */
    private SnapshotSettings snapshotSettings(Path snapshots, double fpp, String bootstrap, String topic) {
        // Minimum 1 instead of the services' 1,000,000: 20,000 edges in a filter sized for a million would show
        // no false positives at all, and the bound below could not fail.
        return new SnapshotSettings(new SnapshotStore(snapshots, 3), fpp, SnapshotSettings.DEFAULT_GROWTH, 1,
                new TopicOffsets(bootstrap, topic, 12, Duration.ofSeconds(30)));
    }

    @Test
    void importFile_withASnapshot_writesAFilterOfEveryEdgeAtTheTopicsEndOffsetsBeforeTheImport() throws Exception {
        KafkaServer kafka = TestServers.kafka();
        String topic = kafka.createTopic("follow-events", 3);
        try (KafkaProducer<String, String> producer = producer(kafka)) {
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k", "before-" + i)).get();
            }
            for (int i = 0; i < 2; i++) {
                producer.send(new ProducerRecord<>(topic, 2, "k", "before-" + i)).get();
            }
        }
        assertThat(endOffsets(kafka, topic)).containsExactly(entry(0, 3L), entry(1, 0L), entry(2, 2L));

        var graph = dev.socialgraph.tools.generate.RmatGenerator.generate(2_000, 20_000, 10_000, 7, T0);
        StringBuilder sb = new StringBuilder();
        Set<Long> present = new HashSet<>();
        for (int i = 0; i < graph.size(); i++) {
            sb.append(graph.follower(i)).append('\t').append(graph.followee(i)).append('\n');
            present.add(graph.follower(i) * 1_000_000L + graph.followee(i));
        }
        sb.append("9\t9\n"); // a self-loop: not an edge, not in the filter's count
        Path snapshots = dir.resolve("snapshots");
        double fpp = 0.01;
        ImportSummary summary = importer(1_000_000, 100_000).importFile(file(sb.toString()),
                snapshotSettings(snapshots, fpp, kafka.bootstrapServers(), topic));

        ImportSummary.Snapshot written = summary.snapshot().orElseThrow();
        assertThat(written.file()).exists().hasParent(snapshots);
        assertThat(written.bytes()).isEqualTo(Files.size(written.file()));
        assertThat(written.edges()).isEqualTo(20_000);
        assertThat(written.expectedEdges()).isEqualTo(30_000); // 20,000 x growth 1.5
        assertThat(written.nextOffsets()).containsExactly(entry(0, 3L), entry(1, 0L), entry(2, 2L));
        assertThat(written.eventsBefore()).isEqualTo(5);
        // The offsets are read after validating the file and before the first database commits.
        assertThat(List.copyOf(summary.phases().keySet())).containsExactly("read", "sort", "event offsets",
                "following shards", "follower shards", "bloom snapshot");
        assertThat(summary.report()).contains("bloom snapshot       " + written.file())
                .contains(String.format("%,d bytes", written.bytes()));

        // Read back as the check service does: the newest valid snapshot covering every shard.
        BloomSnapshot read = new SnapshotStore(snapshots, 3)
                .newestCovering(256, 0, 255, (f, e) -> { throw new AssertionError(f + ": " + e); }).orElseThrow();
        assertThat(SnapshotStore.read(written.file()).createdAt()).isEqualTo(read.createdAt());
        assertThat(read.logicalShards()).isEqualTo(256);
        assertThat(read.firstShard()).isZero();
        assertThat(read.lastShard()).isEqualTo(255);
        assertThat(read.edgeCount()).isEqualTo(20_000);
        assertThat(read.topic()).isEqualTo(topic);
        assertThat(read.nextOffsets()).containsExactly(entry(0, 3L), entry(1, 0L), entry(2, 2L));
        assertThat(read.filter().fpp()).isEqualTo(fpp);
        for (int i = 0; i < graph.size(); i++) {
            if (!read.filter().mightContain(graph.follower(i), graph.followee(i))) {
                throw new AssertionError("edge " + graph.follower(i) + " -> " + graph.followee(i) + " missing");
            }
        }
        // False positives on absent pairs among the same users: at 2/3 of its size the filter's theoretical rate
        // is ~0.0013 (k = 7 hashes, 14.4 bits per edge), so the target fpp is a loose upper bound.
        SplittableRandom random = new SplittableRandom(11);
        int samples = 0;
        int falsePositives = 0;
        while (samples < 100_000) {
            long a = 1 + random.nextLong(2_000);
            long b = 1 + random.nextLong(2_000);
            if (a == b || present.contains(a * 1_000_000L + b)) {
                continue;
            }
            samples++;
            if (read.filter().mightContain(a, b)) {
                falsePositives++;
            }
        }
        assertThat((double) falsePositives / samples).isLessThan(fpp);
    }

    @Test
    void importFile_withASnapshotOfAMissingTopic_createsItWithThePartitionsAsked() throws Exception {
        KafkaServer kafka = TestServers.kafka();
        String topic = "follow-events-absent-" + System.nanoTime();
        SnapshotSettings settings = new SnapshotSettings(new SnapshotStore(dir.resolve("s"), 3), 0.001, 1.5,
                1_000_000, new TopicOffsets(kafka.bootstrapServers(), topic, 4, Duration.ofSeconds(30)));
        ImportSummary summary = importer(1_000_000, 100_000).importFile(file("1\t2\n2\t1\n"), settings);

        ImportSummary.Snapshot written = summary.snapshot().orElseThrow();
        assertThat(written.nextOffsets()).containsExactly(entry(0, 0L), entry(1, 0L), entry(2, 0L), entry(3, 0L));
        assertThat(written.expectedEdges()).isEqualTo(1_000_000); // the services' minimum
        assertThat(endOffsets(kafka, topic)).hasSize(4);
        BloomSnapshot read = SnapshotStore.read(written.file());
        assertThat(read.filter().mightContain(1, 2)).isTrue();
        assertThat(read.filter().mightContain(2, 1)).isTrue();
    }

    @Test
    void importFile_withASnapshotAndKafkaUnreachable_writesNothing() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        String bootstrap = "127.0.0.1:" + closedPort;
        Path snapshots = dir.resolve("none");
        SnapshotSettings settings = new SnapshotSettings(new SnapshotStore(snapshots, 3), 0.001, 1.5, 1_000_000,
                new TopicOffsets(bootstrap, "follow-events", 12, Duration.ofSeconds(2)));
        Path f = file("1\t2\n");
        assertThatThrownBy(() -> importer(1_000_000, 100_000).importFile(f, settings))
                .isInstanceOf(ImportException.class)
                .hasMessageContaining("'follow-events'").hasMessageContaining(bootstrap);
        assertThat(followingRow(1)).isEmpty();
        assertThat(snapshots).doesNotExist();
    }

    private static KafkaProducer<String, String> producer(KafkaServer kafka) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(config);
    }

    /** The topic's end offsets as a consumer sees them, partition → next offset. */
    private static Map<Integer, Long> endOffsets(KafkaServer kafka, String topic) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            Map<Integer, Long> out = new TreeMap<>();
            consumer.endOffsets(partitions, Duration.ofSeconds(30)).forEach((tp, o) -> out.put(tp.partition(), o));
            return out;
        }
    }

    private Optional<FollowingRow> followingRow(long user) throws SQLException {
        return Transactions.inTransaction(dataSources.forUser(FOLLOWING, user), c -> following.find(c, user));
    }

    private Optional<FollowerRow> followerRow(long user) throws SQLException {
        return Transactions.inTransaction(dataSources.forUser(FOLLOWER, user), c -> followers.find(c, user));
    }
}
