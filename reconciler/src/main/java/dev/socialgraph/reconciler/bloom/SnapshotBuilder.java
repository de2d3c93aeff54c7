package dev.socialgraph.reconciler.bloom;

import dev.socialgraph.bloom.BloomSnapshot;
import dev.socialgraph.bloom.EdgeFilter;
import dev.socialgraph.bloom.SnapshotStore;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.reconciler.config.ReconcilerProperties;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a bloom snapshot of the follow edges whose follower is in logical shards {@code first..last}
 * (DESIGN.md 5 step 1). Order matters: the end offsets of {@code follow-events} are read <em>before</em> the
 * following databases are scanned, so every edge committed after them has its event at or after those offsets and
 * a replay from them adds it; edges the scan also saw are added twice, which is harmless. The file is written with
 * graph-bloom's {@link SnapshotStore} (atomic, newest {@code keep} kept per range).
 *
 * <p>The scan reads rows in pages of {@code pageSize} without locks and without the full scan's rate limit: it
 * reads each following row once, far less than a reconciliation. One build at a time.
 */
public final class SnapshotBuilder {

    private static final Logger log = LoggerFactory.getLogger(SnapshotBuilder.class);

    /** What a build wrote. */
    public record Built(Path file, int firstShard, int lastShard, long edges, long createdAt,
                        Map<Integer, Long> nextOffsets) {
    }

    private final ShardDataSources dataSources;
    private final FollowingRepository following;
    private final ReconcilerProperties.Bloom settings;
    private final SnapshotStore store;
    private final Clock clock;
    private final int pageSize;
    private final ReentrantLock building = new ReentrantLock();
    private volatile long lastCreatedAt = Long.MIN_VALUE;

    /**
     * @param dataSources the shard databases
     * @param following   following rows
     * @param settings    {@code graph.reconciler.bloom}
     * @param pageSize    rows per query
     * @param clock       creation times
     * @param registry    for {@code reconciler_bloom_snapshot_age_seconds}
     */
    public SnapshotBuilder(ShardDataSources dataSources, FollowingRepository following,
                           ReconcilerProperties.Bloom settings, int pageSize, Clock clock, MeterRegistry registry) {
        this.dataSources = dataSources;
        this.following = following;
        this.settings = settings;
        this.store = new SnapshotStore(Path.of(settings.snapshotDir()), settings.keep());
        this.pageSize = pageSize;
        this.clock = clock;
        Gauge.builder("reconciler.bloom.snapshot.age", this,
                        b -> b.lastCreatedAt == Long.MIN_VALUE ? Double.NaN
                                : (b.clock.millis() - b.lastCreatedAt) / 1000.0)
                .description("Age of the newest bloom snapshot this process wrote (NaN: none yet)")
                .baseUnit("seconds").register(registry);
    }

    /** Another build of this instance is running; the caller may ask again once it is done (409 on the admin API). */
    public static final class BuildRunningException extends IllegalStateException {

        public BuildRunningException(String message) {
            super(message);
        }
    }

    /**
     * Builds and writes the snapshot of {@code first..last}.
     *
     * @param first first logical shard
     * @param last  last logical shard
     * @return what was written
     * @throws IllegalArgumentException when the range is not within the logical shards
     * @throws BuildRunningException    when another build is running
     * @throws SQLException             from the shards
     * @throws IOException              when the snapshot cannot be written
     */
    public Built build(int first, int last) throws SQLException, IOException {
        ShardMap map = dataSources.shardMap();
        if (first < 0 || first > last || last >= map.logicalShardCount()) {
            throw new IllegalArgumentException("shard range " + first + ".." + last + " not within 0.."
                    + (map.logicalShardCount() - 1));
        }
        if (!building.tryLock()) {
            throw new BuildRunningException("a bloom snapshot is already being built");
        }
        try {
            long createdAt = clock.millis();
            long start = System.nanoTime();
            Map<Integer, Long> offsets = endOffsets(); // before the scan: replay from here misses nothing
            List<DataSource> databases = databases(first, last);
            long counted = 0;
            for (DataSource ds : databases) {
                counted += edgeCount(ds);
            }
            long expected = EdgeFilter.expectedEdges(counted, settings.growth(), settings.minimumExpectedEdges());
            EdgeFilter filter = EdgeFilter.create(expected, settings.fpp());
            long edges = 0;
            for (DataSource ds : databases) {
                edges += scan(ds, map, first, last, filter);
            }
            BloomSnapshot snapshot = new BloomSnapshot(map.logicalShardCount(), first, last, edges, createdAt,
                    settings.topic(), offsets, filter);
            Path file = store.write(snapshot);
            lastCreatedAt = createdAt;
            log.info("Bloom snapshot of shards {}..{} written: {} edges, sized for {}, {} partitions, in {} ms: {}",
                    first, last, edges, expected, offsets.size(), (System.nanoTime() - start) / 1_000_000, file);
            return new Built(file, first, last, edges, createdAt, snapshot.nextOffsets());
        } finally {
            building.unlock();
        }
    }

    /** Logical shard count of the deployment. */
    public int logicalShardCount() {
        return dataSources.shardMap().logicalShardCount();
    }

    /** Next offset to read of every partition of the topic, now. */
    Map<Integer, Long> endOffsets() {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.kafkaBootstrap());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(config)) {
            List<PartitionInfo> partitions = c.partitionsFor(settings.topic(), settings.kafkaTimeout());
            if (partitions == null || partitions.isEmpty()) {
                throw new IllegalStateException("topic " + settings.topic() + " has no partitions");
            }
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo p : partitions) {
                tps.add(new TopicPartition(p.topic(), p.partition()));
            }
            Map<Integer, Long> out = new TreeMap<>();
            c.endOffsets(tps, settings.kafkaTimeout()).forEach((tp, offset) -> out.put(tp.partition(), offset));
            return out;
        }
    }

    private List<DataSource> databases(int first, int last) {
        Map<DataSource, Boolean> seen = new IdentityHashMap<>();
        List<DataSource> out = new ArrayList<>();
        for (ShardRange range : dataSources.shardMap().ranges(ShardGroup.FOLLOWING)) {
            if (range.lastShard() >= first && range.firstShard() <= last) {
                DataSource ds = dataSources.forRange(range);
                if (seen.put(ds, Boolean.TRUE) == null) {
                    out.add(ds);
                }
            }
        }
        return out;
    }

    private long edgeCount(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return following.edgeCount(c);
        }
    }

    private long scan(DataSource ds, ShardMap map, int first, int last, EdgeFilter filter) throws SQLException {
        long edges = 0;
        long after = 0;
        while (true) {
            List<FollowingRow> rows;
            try (Connection c = ds.getConnection()) {
                rows = following.scan(c, after, pageSize);
            }
            for (FollowingRow row : rows) {
                after = row.followerId();
                int shard = map.logicalShard(row.followerId());
                if (shard < first || shard > last) {
                    continue;
                }
                for (long followee : row.followingIds()) {
                    filter.put(row.followerId(), followee);
                }
                edges += row.followingIds().length;
            }
            if (rows.size() < pageSize) {
                return edges;
            }
        }
    }
}
