package dev.socialgraph.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
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
            try (KafkaProducer<String, String> producer = KafkaClients.durableProducer(broker.bootstrapServers())) {
                producer.send(new ProducerRecord<>(topic, "7", "first run")).get(60, TimeUnit.SECONDS);
            }
            try (Admin admin = KafkaClients.admin(broker.bootstrapServers())) {
                assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                        .get(topic).partitions()).as("num.partitions of an auto-created topic").hasSize(4);
            }
        }
        assertThat(logDir.resolve("meta.properties")).as("a given log dir is kept").exists();

        try (KraftBroker again = launcherBroker(ports).start()) {
            List<ConsumerRecord<String, String>> received = KafkaClients.consume(again.bootstrapServers(), topic, 1);

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
}
