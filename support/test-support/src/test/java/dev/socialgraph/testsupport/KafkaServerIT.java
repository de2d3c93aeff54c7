package dev.socialgraph.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;

class KafkaServerIT {

    private final KafkaServer kafka = TestServers.kafka();

    @Test
    void kafka_withoutEnvironmentVariable_isInProcessBrokerOnLoopback() {
        assumeTrue(System.getenv(TestServers.KAFKA_BOOTSTRAP) == null, "external Kafka configured");

        assertThat(kafka.source()).isEqualTo(Source.EMBEDDED);
        assertThat(kafka.bootstrapServers()).matches("127\\.0\\.0\\.1:\\d+");
    }

    @Test
    void kafka_calledAgain_returnsSameServer() {
        assertThat(TestServers.kafka()).isSameAs(kafka);
    }

    @Test
    void createTopic_returnsUniqueTopicWithRequestedPartitions() throws Exception {
        String first = kafka.createTopic("follow-events", 3);
        String second = kafka.createTopic("follow-events", 3);

        assertThat(first).matches("follow-events-[a-z0-9]{10}").isNotEqualTo(second);
        try (Admin admin = KafkaClients.admin(kafka.bootstrapServers())) {
            TopicDescription description = admin.describeTopics(List.of(first)).allTopicNames()
                    .get(30, TimeUnit.SECONDS).get(first);
            assertThat(description.partitions()).hasSize(3)
                    .allSatisfy(partition -> assertThat(partition.leader()).isNotNull());
        }
    }

    @Test
    void createTopic_thenProduceWithAcksAllAndIdempotence_consumerReadsEveryRecord() throws Exception {
        String topic = kafka.createTopic("produce-consume", 3);
        Map<String, String> sent = new LinkedHashMap<>();
        List<Future<RecordMetadata>> acknowledgements = new ArrayList<>();
        try (KafkaProducer<String, String> producer = KafkaClients.durableProducer(kafka.bootstrapServers())) {
            for (int followee = 1; followee <= 30; followee++) {
                String key = Integer.toString(followee);
                String value = "{\"type\":\"follow\",\"followeeId\":" + followee + "}";
                sent.put(key, value);
                acknowledgements.add(producer.send(new ProducerRecord<>(topic, key, value)));
            }
            for (Future<RecordMetadata> acknowledgement : acknowledgements) {
                assertThat(acknowledgement.get(30, TimeUnit.SECONDS).hasOffset()).isTrue();
            }
        }

        List<ConsumerRecord<String, String>> received = KafkaClients.consume(kafka.bootstrapServers(), topic, 30);

        assertThat(received).hasSize(30);
        assertThat(received.stream().collect(Collectors.toMap(ConsumerRecord::key, ConsumerRecord::value)))
                .isEqualTo(sent);
        Set<Integer> partitions = received.stream().map(ConsumerRecord::partition).collect(Collectors.toSet());
        assertThat(partitions).isSubsetOf(0, 1, 2).hasSizeGreaterThan(1);
    }

    @Test
    void createTopicIfAbsent_calledTwice_createsTopicOnce() throws Exception {
        String name = "exact-" + System.nanoTime();

        kafka.createTopicIfAbsent(name, 2);
        kafka.createTopicIfAbsent(name, 2);

        try (Admin admin = KafkaClients.admin(kafka.bootstrapServers())) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(name);
            assertThat(admin.describeTopics(List.of(name)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(name).partitions()).hasSize(2);
        }
    }

    @Test
    void createTopicIfAbsent_existingWithOtherPartitionCount_throws() {
        String name = "mismatch-" + System.nanoTime();
        kafka.createTopicIfAbsent(name, 1);

        assertThatThrownBy(() -> kafka.createTopicIfAbsent(name, 4))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exists with 1 partitions, not 4");
    }

    @Test
    void createTopic_zeroPartitions_throws() {
        assertThatThrownBy(() -> kafka.createTopic("empty", 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
