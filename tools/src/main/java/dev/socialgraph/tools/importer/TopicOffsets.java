package dev.socialgraph.tools.importer;

import dev.socialgraph.common.keys.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.LeaderNotAvailableException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The end offsets of the event topic ({@code follow-events}), read with Kafka's {@link Admin} client: the
 * positions a bloom snapshot of an import records, from which the check service replays what came after. The
 * topic is created when it does not exist yet (a fresh deployment whose services have not started), with the
 * given partition count, replication factor 1 (the local single-broker setup of DESIGN.md 10) and the event topic's
 * retention ({@link Topics#FOLLOW_EVENTS_RETENTION_MS}), so the snapshot
 * always names real partitions.
 */
public final class TopicOffsets {

    /** Pause between attempts while a new topic's partitions get their leaders, in milliseconds. */
    private static final long RETRY_PAUSE_MS = 100;

    private final String bootstrap;
    private final String topic;
    private final int partitions;
    private final Duration timeout;

    /**
     * @param bootstrap  Kafka bootstrap servers, {@code host:port[,host:port...]}
     * @param topic      the event topic, e.g. {@code follow-events}
     * @param partitions partitions to create the topic with when it is missing, {@code >= 1}
     * @param timeout    longest the whole read (creation included) may take, positive
     * @throws IllegalArgumentException naming the bad argument
     */
    public TopicOffsets(String bootstrap, String topic, int partitions, Duration timeout) {
        if (bootstrap == null || bootstrap.isBlank()) {
            throw new IllegalArgumentException("Kafka bootstrap servers must be given, was '" + bootstrap + "'");
        }
        if (topic == null || topic.isEmpty() || topic.length() > 249) {
            throw new IllegalArgumentException("topic must be 1..249 characters, was '" + topic + "'");
        }
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.partitions = partitions;
        this.timeout = timeout;
    }

    /** The topic whose offsets are read. */
    public String topic() {
        return topic;
    }

    /** The bootstrap servers. */
    public String bootstrap() {
        return bootstrap;
    }

    /**
     * Creates the topic if it is missing, then reads the next offset of each of its partitions.
     *
     * @return partition → end offset (the offset the next record will get), sorted by partition, one entry per
     *         partition of the topic
     * @throws ImportException when Kafka cannot be reached, refuses, or does not answer within the timeout; the
     *                         message names the bootstrap servers and the topic
     */
    public Map<Integer, Long> endOffsets() {
        long deadline = System.nanoTime() + timeout.toNanos();
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "graph-tool-import");
        int timeoutMs = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
        try (Admin admin = Admin.create(config)) {
            RetriableException last = null;
            while (true) {
                try {
                    return read(admin, deadline);
                } catch (RetriableException e) {
                    // A topic created a moment ago may have partitions without a leader yet.
                    last = e;
                }
                if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RETRY_PAUSE_MS) > deadline) {
                    String why = last == null ? "" : " (" + last.getMessage() + ")";
                    throw failure("not ready within " + readable(timeout) + why, last);
                }
                Thread.sleep(RETRY_PAUSE_MS);
            }
        } catch (KafkaException e) {
            throw failure(e.getMessage(), e);
        } catch (TimeoutException e) {
            throw failure("no answer within " + readable(timeout), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure("interrupted", e);
        }
    }

    private Map<Integer, Long> read(Admin admin, long deadline) throws InterruptedException, TimeoutException {
        TopicDescription description = describeOrCreate(admin, deadline);
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (TopicPartitionInfo p : description.partitions()) {
            if (p.leader() == null) {
                throw new LeaderNotAvailableException(
                        "partition " + p.partition() + " has no leader yet");
            }
            request.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResultInfo> answer = get(admin.listOffsets(request).all(), deadline);
        Map<Integer, Long> out = new TreeMap<>();
        answer.forEach((tp, info) -> out.put(tp.partition(), info.offset()));
        return out;
    }

    private TopicDescription describeOrCreate(Admin admin, long deadline) throws InterruptedException,
            TimeoutException {
        try {
            return get(admin.describeTopics(List.of(topic)).allTopicNames(), deadline).get(topic);
        } catch (UnknownTopicOrPartitionException missing) {
            try {
                get(admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(Map.of(
                        TopicConfig.RETENTION_MS_CONFIG, Long.toString(Topics.FOLLOW_EVENTS_RETENTION_MS))))).all(),
                        deadline);
            } catch (TopicExistsException raced) {
                // Someone else created it in between: use theirs.
            }
            return get(admin.describeTopics(List.of(topic)).allTopicNames(), deadline).get(topic);
        }
    }

    /** Waits for a Kafka future, unwrapping its cause so callers can tell retriable errors from fatal ones. */
    private static <T> T get(KafkaFuture<T> future, long deadline)
            throws InterruptedException, TimeoutException {
        long left = Math.max(1, deadline - System.nanoTime());
        try {
            return future.get(left, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof KafkaException k) {
                throw k;
            }
            throw new KafkaException(e.getCause());
        }
    }

    /** {@code PT1M30S} as {@code 1m30s}. */
    private static String readable(Duration d) {
        return d.toString().substring(2).toLowerCase(java.util.Locale.ROOT);
    }

    private ImportException failure(String why, Exception cause) {
        ImportException e = new ImportException("cannot read the end offsets of Kafka topic '" + topic + "' at "
                + bootstrap + ": " + why);
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }
}
