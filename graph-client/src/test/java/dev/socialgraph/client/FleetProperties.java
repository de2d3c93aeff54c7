package dev.socialgraph.client;

import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.util.HashMap;
import java.util.Map;

/**
 * The Spring properties of the services this module's fleet tests start as processes ({@code ServiceProcess}): all
 * on one set of shards, one Redis database and one topic of the test broker.
 *
 * @param shards the shard databases
 * @param kafka  the broker
 * @param topic  the {@code follow-events} topic of the test
 * @param redis  a Redis URI of a database of the test's own
 */
record FleetProperties(TestShards shards, KafkaServer kafka, String topic, String redis) {

    /** Properties on {@code shards}, {@code topic} of {@code kafka} and a fresh Redis database. */
    static FleetProperties of(TestShards shards, KafkaServer kafka, String topic) {
        return new FleetProperties(shards, kafka, topic, TestServers.redis().uri(TestServers.redis().freshDatabase()));
    }

    /** Every service's: the shard map and quiet Kafka clients. */
    Map<String, String> common() {
        Map<String, String> common = new HashMap<>(shards.springProperties());
        common.put("logging.level.org.apache.kafka", "warn");
        return common;
    }

    /** follow-write-service's: migrates the shards, relays the outbox to the topic. */
    Map<String, String> write() {
        Map<String, String> write = common();
        write.put("graph.shards.migrate-on-startup", "true");
        write.put("graph.write.redis.uri", redis);
        write.put("graph.write.topic", topic);
        write.put("graph.write.relay.bootstrap-servers", kafka.bootstrapServers());
        return write;
    }

    /**
     * A follow-check-service instance's: its event feed on the topic (no bloom snapshot), one of {@code instances}.
     *
     * @param instanceId this instance's id, one of {@code instances}
     * @param instances  every instance's id, comma-separated
     */
    Map<String, String> check(String instanceId, String instances) {
        Map<String, String> check = common();
        check.put("graph.check.redis-uri", redis);
        check.put("graph.check.bloom.kafka-bootstrap", kafka.bootstrapServers());
        check.put("graph.check.bloom.topic", topic);
        check.put("graph.check.bloom.minimum-expected-edges", "1000");
        check.put("graph.check.bloom.snapshot-dir", "target/graph-client-it-no-snapshots");
        check.put("graph.check.affinity.instance-id", instanceId);
        check.put("graph.check.affinity.instances", instances);
        return check;
    }
}
