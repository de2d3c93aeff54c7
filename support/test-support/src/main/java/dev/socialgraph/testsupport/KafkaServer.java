package dev.socialgraph.testsupport;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicExistsException;
import org.awaitility.Awaitility;

/**
 * A running Kafka cluster shared by the tests of one JVM. Tests keep out of each other's way by
 * {@link #createTopic(String, int) creating topics} with unique names.
 *
 * <p>Obtain it from {@link TestServers#kafka()}; {@link TestServers#privateKafka()} returns a
 * {@link PrivateKafkaServer} that a test may stop and start.
 *
 * <pre>{@code
 * KafkaServer kafka = TestServers.kafka();
 * String topic = kafka.createTopic("follow-events", 12);  // "follow-events-x8c0m2p9qd"
 * }</pre>
 */
public sealed class KafkaServer permits PrivateKafkaServer {

    /** How long topic creation may take before the test fails. */
    private static final Duration TOPIC_TIMEOUT = Duration.ofSeconds(30);

    private final Source source;
    private final String bootstrapServers;
    private final AutoCloseable resource;

    KafkaServer(Source source, String bootstrapServers, AutoCloseable resource) {
        this.source = source;
        this.bootstrapServers = bootstrapServers;
        this.resource = resource;
    }

    /**
     * The bootstrap address for producers, consumers and admin clients ({@code bootstrap.servers}).
     *
     * @return e.g. {@code 127.0.0.1:41091}; comma-separated for several brokers
     */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * Creates a topic with a unique name and waits until every partition has a leader, so producers
     * and consumers can use it at once. Its replication factor is the cluster's default (1 for the
     * embedded broker and the container).
     *
     * @param prefix 1..200 of {@code [a-zA-Z0-9._-]}
     * @param partitions 1 or more
     * @return the topic's name, {@code prefix-} followed by ten random lower-case letters and digits
     * @throws IllegalArgumentException if the prefix or partition count is invalid
     * @throws IllegalStateException if the cluster refuses or does not answer within 30 s
     */
    public String createTopic(String prefix, int partitions) {
        String topic = UniqueNames.topic(prefix);
        create(topic, partitions, false);
        return topic;
    }

    /**
     * Creates a topic with exactly this name unless it exists, then waits until every partition has
     * a leader. Calling it again with the same arguments does nothing.
     *
     * @param name 1..200 of {@code [a-zA-Z0-9._-]}, e.g. {@code follow-events}
     * @param partitions 1 or more
     * @throws IllegalArgumentException if the name or partition count is invalid
     * @throws IllegalStateException if the topic exists with another partition count, or the cluster
     *     refuses or does not answer within 30 s
     */
    public void createTopicIfAbsent(String name, int partitions) {
        UniqueNames.checkTopicName(name);
        create(name, partitions, true);
    }

    Source source() {
        return source;
    }

    void close() throws Exception {
        if (resource != null) {
            resource.close();
        }
    }

    @Override
    public String toString() {
        return "Kafka " + bootstrapServers + " (" + source.name().toLowerCase(Locale.ROOT) + ")";
    }

    private void create(String topic, int partitions, boolean mayExist) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1: " + partitions);
        }
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.CLIENT_ID_CONFIG, "test-support-admin",
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TOPIC_TIMEOUT.toMillis()))) {
            NewTopic newTopic = new NewTopic(topic, Optional.of(partitions), Optional.empty());
            try {
                admin.createTopics(List.of(newTopic)).all().get(TOPIC_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(mayExist && e.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException("Kafka " + bootstrapServers + " did not create topic " + topic, e);
                }
            }
            Awaitility.await("every partition of " + topic + " has a leader")
                    .atMost(TOPIC_TIMEOUT)
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(50))
                    .ignoreExceptions()
                    .until(() -> hasLeaders(describe(admin, topic)));
            int actual = describe(admin, topic).partitions().size();
            if (actual != partitions) {
                throw new IllegalStateException("Topic " + topic + " exists with " + actual
                        + " partitions, not " + partitions);
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Kafka " + bootstrapServers + " did not create topic " + topic
                    + " within " + TOPIC_TIMEOUT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while creating topic " + topic, e);
        }
    }

    private static TopicDescription describe(Admin admin, String topic)
            throws ExecutionException, InterruptedException, TimeoutException {
        return admin.describeTopics(List.of(topic)).allTopicNames()
                .get(TOPIC_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(topic);
    }

    private static boolean hasLeaders(TopicDescription description) {
        return description.partitions().stream()
                .allMatch(partition -> partition.leader() != null && !partition.leader().isEmpty());
    }
}
