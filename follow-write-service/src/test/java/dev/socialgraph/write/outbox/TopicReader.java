package dev.socialgraph.write.outbox;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.FollowEventJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a whole topic from the beginning, without a group: every edge event published so far, per partition in order
 * (account events, which the same topic carries, are left out).
 */
public final class TopicReader implements AutoCloseable {

    /** A record as read: its key and decoded event. */
    public record Received(String key, FollowEvent event, int partition) {
    }

    private final KafkaConsumer<String, byte[]> consumer;
    private final List<Received> received = new ArrayList<>();

    public TopicReader(String bootstrapServers, String topic) {
        consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new StringDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** Polls once briefly and returns every edge event received so far. */
    public List<Received> poll() {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            if (FollowEventJson.parse(r.value()) instanceof FollowEvent event) {
                received.add(new Received(r.key(), event, r.partition()));
            }
        }
        return List.copyOf(received);
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(1));
    }
}
