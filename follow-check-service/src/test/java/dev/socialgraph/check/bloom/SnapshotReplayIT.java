package dev.socialgraph.check.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.bloom.BloomSnapshot;
import dev.socialgraph.bloom.EdgeFilter;
import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * {@link SnapshotReplay} against a real broker: it replays from a snapshot's offsets, and refuses (so that start-up
 * scans instead) a snapshot it cannot replay completely.
 */
class SnapshotReplayIT {

    static final KafkaServer KAFKA = TestServers.kafka();

    static CheckProperties.Bloom settings(String topic) {
        return new CheckProperties.Bloom(true, 0.001, 1.5, 1000, KAFKA.bootstrapServers(), topic, "replay-it",
                Duration.ofSeconds(10), "target/no-snapshots", Duration.ofSeconds(30),
                Duration.ZERO);
    }

    static BloomSnapshot snapshot(String topic, Map<Integer, Long> offsets) {
        return new BloomSnapshot(256, 0, 255, 0, 1L, topic, offsets, EdgeFilter.create(1000, 0.001));
    }

    /** Publishes follows {@code i -> i + 1} for i in {@code 1..n} to partition 0. */
    static void publish(String topic, int n) throws Exception {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            for (long i = 1; i <= n; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k".getBytes(StandardCharsets.UTF_8),
                        FollowEventJson.toJson(FollowEvent.follow(i, i + 1, 1, 1, 1))));
            }
            producer.flush();
        }
    }

    @Test
    void replay_fromTheSnapshotOffsets_addsExactlyTheLaterFollows() throws Exception {
        String topic = KAFKA.createTopic("replay", 2);
        publish(topic, 10);
        BloomSnapshot snapshot = snapshot(topic, Map.of(0, 4L, 1, 0L));

        OptionalLong replayed = new SnapshotReplay(settings(topic)).replay(snapshot, snapshot.filter()::put,
                Duration.ofSeconds(30));

        assertThat(replayed).hasValue(6);
        for (long i = 5; i <= 10; i++) {
            assertThat(snapshot.filter().mightContain(i, i + 1)).isTrue();
        }
        assertThat(snapshot.filter().mightContain(1, 2)).isFalse(); // before the offsets: the snapshot's job
    }

    @Test
    void replay_whenTheOffsetsAreNoLongerRetained_refuses() throws Exception {
        String topic = KAFKA.createTopic("replay", 1);
        publish(topic, 10);
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        try (Admin admin = Admin.create(config)) {
            admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(5))).all().get();
        }
        BloomSnapshot snapshot = snapshot(topic, Map.of(0, 2L));

        assertThat(new SnapshotReplay(settings(topic)).replay(snapshot, snapshot.filter()::put, Duration.ofSeconds(30)))
                .isEmpty();
    }

    @Test
    void replay_ofOffsetsPastTheEnd_orAnotherTopic_refuses() throws Exception {
        String topic = KAFKA.createTopic("replay", 1);
        publish(topic, 3);
        SnapshotReplay replay = new SnapshotReplay(settings(topic));

        BloomSnapshot ahead = snapshot(topic, Map.of(0, 1_000L)); // the topic was re-created since
        assertThat(replay.replay(ahead, ahead.filter()::put, Duration.ofSeconds(30))).isEmpty();
        BloomSnapshot other = snapshot("other-topic", Map.of(0, 0L));
        assertThat(replay.replay(other, other.filter()::put, Duration.ofSeconds(30))).isEmpty();
    }
}
