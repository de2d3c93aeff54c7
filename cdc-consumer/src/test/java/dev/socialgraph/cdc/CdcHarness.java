package dev.socialgraph.cdc;

import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.event.GraphEvent;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What the cdc-consumer ITs share: a producer that publishes events as the write service's relay does (key =
 * followee id), reads of the follower side straight from the shard databases, and a wait until the consumer group
 * has committed every record of the topic.
 */
final class CdcHarness implements AutoCloseable {

    final String topic;
    final String dltTopic;
    final String groupId;
    private final KafkaProducer<String, byte[]> producer;
    private final Admin admin;

    CdcHarness(String prefix) {
        String bootstrap = TestServers.kafka().bootstrapServers();
        this.topic = TestServers.kafka().createTopic(prefix, 4);
        this.dltTopic = TestServers.kafka().createTopic(prefix + ".DLT", 1);
        this.groupId = "cdc-" + topic;
        this.producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true),
                new StringSerializer(), new ByteArraySerializer());
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    /** The Spring properties of a consumer on this harness's topics, shards and a fresh Redis database. */
    Map<String, String> properties(TestShards shards) {
        Map<String, String> properties = new HashMap<>(shards.springProperties());
        properties.put("graph.shards.migrate-on-startup", "true");
        properties.put("graph.shards.connection-timeout", "500ms");
        properties.put("spring.kafka.bootstrap-servers", TestServers.kafka().bootstrapServers());
        properties.put("graph.cdc.topic", topic);
        properties.put("graph.cdc.dlt-topic", dltTopic);
        properties.put("graph.cdc.group-id", groupId);
        properties.put("graph.cdc.max-poll-records", "100");
        properties.put("graph.cdc.retry-backoff", "200ms");
        properties.put("graph.cdc.retry-backoff-max", "1s");
        properties.put("spring.kafka.listener.poll-timeout", "500ms");
        properties.put("graph.cdc.redis-uri", TestServers.redis().uri(TestServers.redis().freshDatabase()));
        return properties;
    }

    /** Publishes an edge or account event keyed as the outbox relay keys it. */
    RecordMetadata publish(GraphEvent event) {
        return publishRaw(Long.toString(event.partitionKey()), FollowEventJson.toJson(event));
    }

    RecordMetadata publishRaw(String key, byte[] value) {
        try {
            return producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("publish failed", e);
        }
    }

    /**
     * Sends records together, so that those of one partition share a producer batch and hence a consumer poll;
     * returns the first one's metadata.
     *
     * @param records key and value of each record
     */
    RecordMetadata publishTogether(List<Map.Entry<String, byte[]>> records) {
        try {
            List<java.util.concurrent.Future<RecordMetadata>> sends = new ArrayList<>();
            for (Map.Entry<String, byte[]> record : records) {
                sends.add(producer.send(new ProducerRecord<>(topic, record.getKey(), record.getValue())));
            }
            producer.flush();
            for (var send : sends) {
                send.get(30, TimeUnit.SECONDS);
            }
            return sends.getFirst().get();
        } catch (Exception e) {
            throw new IllegalStateException("publish failed", e);
        }
    }

    /** Waits until the group's committed offsets reach the end of every partition of the topic. */
    void awaitCaughtUp() {
        await("consumer group " + groupId + " caught up").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> lag() == 0);
    }

    /** Records published but not committed by the group, over all partitions. */
    long lag() throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> committed = committed();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < 4; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        long lag = 0;
        for (var end : admin.listOffsets(latest).all().get().entrySet()) {
            OffsetAndMetadata at = committed.get(end.getKey());
            lag += end.getValue().offset() - (at == null ? 0 : at.offset());
        }
        return lag;
    }

    Map<TopicPartition, OffsetAndMetadata> committed() throws ExecutionException, InterruptedException {
        return admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata().get();
    }

    /** Moves the group back to the start of every partition; the listener must be stopped. */
    void rewindGroup() throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
        for (int p = 0; p < 4; p++) {
            start.put(new TopicPartition(topic, p), new OffsetAndMetadata(0));
        }
        admin.alterConsumerGroupOffsets(groupId, start).all().get();
    }

    /** The followee's row, if any, read from its follower database. */
    static Optional<FollowerRow> row(ShardDataSources dataSources, long followeeId) {
        try (Connection connection = dataSources.forUser(ShardGroup.FOLLOWER, followeeId).getConnection()) {
            return new FollowerRepository().find(connection, followeeId);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every follower of the followee, row then pages in page order, as {@code followerId -> followedAt} pairs. */
    static List<long[]> followers(ShardDataSources dataSources, long followeeId) {
        try (Connection connection = dataSources.forUser(ShardGroup.FOLLOWER, followeeId).getConnection()) {
            List<long[]> all = new ArrayList<>();
            Optional<FollowerRow> row = new FollowerRepository().find(connection, followeeId);
            if (row.isEmpty()) {
                return all;
            }
            for (int i = 0; i < row.get().followerIds().length; i++) {
                all.add(new long[] {row.get().followerIds()[i], row.get().followedAt()[i]});
            }
            for (CelebrityPage page : new CelebrityPageRepository().all(connection, followeeId)) {
                for (int i = 0; i < page.followerIds().length; i++) {
                    all.add(new long[] {page.followerIds()[i], page.followedAt()[i]});
                }
            }
            return all;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The expected followers from a model {@code followerId -> followedAt}, in (followedAt, id) order. */
    static List<long[]> expected(Map<Long, Long> model) {
        return model.entrySet().stream()
                .sorted((a, b) -> a.getValue().equals(b.getValue()) ? Long.compare(a.getKey(), b.getKey())
                        : Long.compare(a.getValue(), b.getValue()))
                .map(e -> new long[] {e.getKey(), e.getValue()})
                .collect(Collectors.toList());
    }

    @Override
    public void close() {
        producer.close();
        admin.close();
    }
}
