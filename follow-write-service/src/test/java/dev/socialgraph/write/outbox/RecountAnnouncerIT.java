package dev.socialgraph.write.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.event.RecountEvent;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.write.WriteProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
import org.junit.jupiter.api.Test;

/**
 * The account jobs' recounts against a real Kafka broker: what a check instance reads, and a failure the job sees.
 */
class RecountAnnouncerIT {

    private static final KafkaServer KAFKA = TestServers.kafka();

    private static WriteProperties properties(String bootstrapServers, String topic, boolean enabled) {
        return new WriteProperties(10_000, "a-test-secret-of-at-least-32-bytes!!", topic,
                new WriteProperties.Redis("redis://127.0.0.1:1", null, Duration.ofMillis(250), Duration.ofHours(1)),
                new WriteProperties.Relay(enabled, bootstrapServers, 500, Duration.ofMillis(200), Duration.ofSeconds(2),
                        Duration.ofDays(7)),
                new WriteProperties.Accounts(true, 1000, Duration.ofSeconds(10), Duration.ofMillis(500),
                        Duration.ofSeconds(5)));
    }

    @Test
    void aRecount_isOneRecordKeyedByTheAccount_thatParsesBackToIt() {
        String topic = KAFKA.createTopic("recounts", 3);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        RecountAnnouncer announcer = new RecountAnnouncer(properties(KAFKA.bootstrapServers(), topic, true), meters);
        RecountEvent event = RecountEvent.of(42, 3, new long[] {9, 12, 77}, 1_700_000_000_001L);
        try {
            announcer.announce(event);
        } finally {
            announcer.destroy();
        }

        List<ConsumerRecord<String, byte[]>> records = readAll(topic, 1);
        assertThat(records).hasSize(1);
        assertThat(records.get(0).key()).isEqualTo("42");
        assertThat(FollowEventJson.parse(records.get(0).value())).isEqualTo(event);
        assertThat(meters.get("graph.write.accounts.recounts").counter().count()).isEqualTo(3);
    }

    @Test
    void anUnreachableBroker_failsTheAnnouncement_soTheJobDoesTheBatchAgain() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        RecountAnnouncer announcer = new RecountAnnouncer(properties("127.0.0.1:1", "recounts-nowhere", true), meters);
        try {
            assertThatThrownBy(() -> announcer.announce(RecountEvent.of(42, 3, new long[] {9}, 1)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("could not announce 42-account-3-recount-9");
        } finally {
            announcer.destroy();
        }
        assertThat(meters.get("graph.write.accounts.recounts").counter().count()).isZero();
    }

    private static List<ConsumerRecord<String, byte[]>> readAll(String topic, int expected) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
            // Bounded by polls, not time: the record was acknowledged before this reads.
            for (int poll = 0; poll < 50 && out.size() < expected; poll++) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            // One more poll: a second record would show here.
            consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            return out;
        }
    }
}
