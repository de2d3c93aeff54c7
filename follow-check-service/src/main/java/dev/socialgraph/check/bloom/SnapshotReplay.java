package dev.socialgraph.check.bloom;

import dev.socialgraph.bloom.BloomSnapshot;
import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.event.GraphEvent;
import dev.socialgraph.common.event.MalformedEventException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays the follows of {@code follow-events} from a snapshot's offsets into a filter, up to the end offsets read
 * when the replay starts. The caller starts the live feed ({@link EventFeed}, reading from the then
 * end) <em>before</em> calling this, so replay up to an end read afterwards and the live feed together miss no
 * event. A short-lived consumer without a group ({@code assign}, no commits), with
 * {@code auto.offset.reset=none}: an offset that retention already deleted fails the replay instead of silently
 * skipping to the end.
 */
final class SnapshotReplay {

    private static final Logger log = LoggerFactory.getLogger(SnapshotReplay.class);
    private static final Duration POLL = Duration.ofMillis(200);

    private final CheckProperties.Bloom settings;

    SnapshotReplay(CheckProperties.Bloom settings) {
        this.settings = settings;
    }

    /**
     * Replays into {@code into}.
     *
     * @param snapshot where to start (its topic must be the configured one)
     * @param into     receives every follow from the snapshot's offsets to the end (the snapshot's filter, or the
     *                 {@link EdgeBloom} method that puts into it and counts)
     * @param timeout  longest the replay may take
     * @return events replayed, or empty when the snapshot cannot be replayed (other topic, offsets no longer
     *         retained, broker unreachable, timeout); the reason is logged
     */
    OptionalLong replay(BloomSnapshot snapshot, EdgeSink into, Duration timeout) {
        if (!snapshot.topic().equals(settings.topic())) {
            log.warn("Bloom snapshot of topic {} cannot be replayed from {}", snapshot.topic(), settings.topic());
            return OptionalLong.empty();
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.kafkaBootstrap());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(config)) {
            List<PartitionInfo> partitions = c.partitionsFor(settings.topic(), timeout);
            List<TopicPartition> assigned = new ArrayList<>();
            for (PartitionInfo p : partitions) {
                assigned.add(new TopicPartition(p.topic(), p.partition()));
            }
            c.assign(assigned);
            Map<TopicPartition, Long> begin = c.beginningOffsets(assigned, timeout);
            Map<TopicPartition, Long> end = c.endOffsets(assigned, timeout);
            Map<TopicPartition, Long> remaining = new HashMap<>();
            for (TopicPartition tp : assigned) {
                // A partition the snapshot does not know was added after it: all of it is newer.
                long from = snapshot.nextOffsets().getOrDefault(tp.partition(), 0L);
                if (from < begin.get(tp) || from > end.get(tp)) {
                    log.warn("Bloom snapshot offset {} of {} is outside the retained {}..{}", from, tp,
                            begin.get(tp), end.get(tp));
                    return OptionalLong.empty();
                }
                c.seek(tp, from);
                if (from < end.get(tp)) {
                    remaining.put(tp, end.get(tp));
                }
            }
            long replayed = 0;
            while (!remaining.isEmpty()) {
                if (System.nanoTime() > deadline) {
                    log.warn("Bloom snapshot replay did not catch up within {}", timeout);
                    return OptionalLong.empty();
                }
                for (ConsumerRecord<byte[], byte[]> record : c.poll(POLL)) {
                    GraphEvent parsed;
                    try {
                        parsed = FollowEventJson.parse(record.value());
                    } catch (MalformedEventException | NullPointerException e) {
                        continue; // counted by the live listener's metric when it sees it; nothing to add here
                    }
                    if (parsed instanceof FollowEvent event && event.isFollow()) { // never a block, mute or account
                        into.accept(event.followerId(), event.followeeId());
                    }
                    replayed++;
                }
                remaining.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
            }
            return OptionalLong.of(replayed);
        } catch (KafkaException e) {
            log.warn("Bloom snapshot replay failed: {}", e.toString());
            return OptionalLong.empty();
        }
    }
}
