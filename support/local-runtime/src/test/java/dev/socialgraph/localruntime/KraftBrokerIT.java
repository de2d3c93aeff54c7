package dev.socialgraph.localruntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker as a launcher uses it: fixed ports, a log directory of its own, custom settings. */
class KraftBrokerIT {

    @TempDir
    Path logDir;

    @Test
    void closeThenNewBrokerOnSameLogDirAndPorts_keepsData_andBrokerConfigApplies() throws Exception {
        int[] ports = FreePorts.pick(2);
        String topic = "auto-created";
        try (KraftBroker broker = launcherBroker(ports).start()) {
            assertThat(broker.bootstrapServers()).isEqualTo("127.0.0.1:" + ports[0]);
            try (KafkaProducer<String, String> producer = producer(broker.bootstrapServers())) {
                producer.send(new ProducerRecord<>(topic, "7", "first run")).get(60, TimeUnit.SECONDS);
            }
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
                assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                        .get(topic).partitions()).as("num.partitions of an auto-created topic").hasSize(4);
            }
        }
        assertThat(logDir.resolve("meta.properties")).as("a given log dir is kept").exists();

        try (KraftBroker again = launcherBroker(ports).start()) {
            List<ConsumerRecord<String, String>> received = consume(again.bootstrapServers(), topic, 1);

            assertThat(received).singleElement()
                    .satisfies(record -> assertThat(record.value()).isEqualTo("first run"));
        }
    }

    private KraftBroker launcherBroker(int[] ports) {
        return KraftBroker.builder()
                .port(ports[0])
                .controllerPort(ports[1])
                .nodeId(100)
                .logDir(logDir)
                .config("num.partitions", 4)
                .config("auto.create.topics.enable", true)
                .build();
    }

    /** Every in-sync replica acknowledges, as the services' producers are configured. */
    private static KafkaProducer<String, String> producer(String bootstrapServers) {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 120_000),
                new StringSerializer(), new StringSerializer());
    }

    /** Subscribes to a topic and polls until {@code count} records arrived; fails after 60 s. */
    private static List<ConsumerRecord<String, String>> consume(String bootstrapServers, String topic, int count) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, "reader-" + topic,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            await("%d records from %s".formatted(count, topic)).atMost(Duration.ofSeconds(60))
                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                    .until(() -> {
                        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                        return records.size() >= count;
                    });
        }
        return records;
    }
}
