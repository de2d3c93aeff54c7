package dev.socialgraph.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;
import static org.awaitility.Awaitility.await;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;

class PrivateKafkaServerIT {

    @Test
    void stopAndStart_keepsTopicAndRecords_andWritesWhileDownArriveAfterwards() throws Exception {
        try (PrivateKafkaServer kafka = TestServers.privateKafka()) {
            String bootstrapServers = kafka.bootstrapServers();
            String topic = kafka.createTopic("survives-restart", 2);
            try (KafkaProducer<String, String> producer = KafkaClients.durableProducer(bootstrapServers)) {
                RecordMetadata before = producer.send(new ProducerRecord<>(topic, "42", "before-stop"))
                        .get(30, TimeUnit.SECONDS);

                kafka.stop();

                assertThat(kafka.isRunning()).isFalse();
                assertThat(kafka.logDir().resolve("meta.properties")).exists();
                assertThatThrownBy(() -> connect(bootstrapServers)).isInstanceOf(ConnectException.class);
                // With the broker gone, send() itself blocks for up to max.block.ms (seen: the full
                // 60 s default; the client most likely re-bootstraps and forgets the topic's
                // metadata), so send from another thread.
                CompletableFuture<RecordMetadata> whileDown = CompletableFuture.supplyAsync(
                        () -> sendAndWait(producer, new ProducerRecord<>(topic, "42", "while-down")));
                await("the send stays pending while the broker is down")
                        .during(Duration.ofMillis(500))
                        .atMost(Duration.ofSeconds(2))
                        .until(() -> !whileDown.isDone());

                kafka.start();

                assertThat(kafka.isRunning()).isTrue();
                assertThat(kafka.bootstrapServers()).isEqualTo(bootstrapServers);
                RecordMetadata after = whileDown.get(60, TimeUnit.SECONDS);
                assertThat(after.partition()).isEqualTo(before.partition());
                assertThat(after.offset()).isEqualTo(before.offset() + 1);
            }
            try (Admin admin = KafkaClients.admin(bootstrapServers)) {
                assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                        .get(topic).partitions()).hasSize(2);
            }

            List<ConsumerRecord<String, String>> received = KafkaClients.consume(bootstrapServers, topic, 2);

            assertThat(received).extracting(ConsumerRecord::key, ConsumerRecord::value)
                    .containsExactly(
                            tuple("42", "before-stop"),
                            tuple("42", "while-down"));
        }
    }

    @Test
    void close_stopsBrokerAndDeletesLogDir() {
        PrivateKafkaServer kafka = TestServers.privateKafka();
        kafka.createTopic("closing", 1);

        kafka.close();
        kafka.close();

        assertThat(kafka.isRunning()).isFalse();
        assertThat(Files.exists(kafka.logDir())).isFalse();
        assertThatThrownBy(() -> connect(kafka.bootstrapServers())).isInstanceOf(ConnectException.class);
        assertThatThrownBy(kafka::start).isInstanceOf(IllegalStateException.class);
    }

    private static RecordMetadata sendAndWait(KafkaProducer<String, String> producer,
            ProducerRecord<String, String> record) {
        try {
            return producer.send(record).get(120, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("send failed", e);
        }
    }

    private static void connect(String bootstrapServers) throws Exception {
        String[] hostAndPort = bootstrapServers.split(":");
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(hostAndPort[0], Integer.parseInt(hostAndPort[1])), 2_000);
        }
    }
}
