package dev.socialgraph.testsupport;

import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.event.GraphEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Publishes {@code follow-events} records for tests as the write service's outbox relay does: each event's JSON
 * ({@link FollowEventJson}) keyed by its {@link GraphEvent#partitionKey()}, so a test's events land in the partitions
 * the relay's would. Each publish waits for the broker's acknowledgement. Thread-safe; close it when done.
 */
public final class EventPublisher implements AutoCloseable {

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;

    /**
     * @param bootstrapServers the broker, e.g. {@code TestServers.kafka().bootstrapServers()}
     * @param topic            the topic to publish to
     */
    public EventPublisher(String bootstrapServers, String topic) {
        this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers),
                new ByteArraySerializer(), new ByteArraySerializer());
        this.topic = topic;
    }

    /**
     * Publishes an edge or account event, keyed as the relay keys it.
     *
     * @param event the event
     * @return where it was written
     * @throws IllegalStateException when the broker did not acknowledge it within 30 s
     */
    public RecordMetadata publish(GraphEvent event) {
        return publishRaw(Long.toString(event.partitionKey()), FollowEventJson.toJson(event));
    }

    /**
     * Publishes any bytes, e.g. a record no reader can parse.
     *
     * @param key   the record's key, as the relay writes keys (a decimal user id), or any other
     * @param value the record's value
     * @return where it was written
     * @throws IllegalStateException when the broker did not acknowledge it within 30 s
     */
    public RecordMetadata publishRaw(String key, byte[] value) {
        try {
            return producer.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value))
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("publishing to " + topic + " failed", e);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
