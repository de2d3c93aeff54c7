package dev.socialgraph.write.outbox;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.OutboxRepository;
import dev.socialgraph.store.ShardDataSources;
import dev.socialgraph.write.WriteProperties;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Runs one {@link OutboxRelay} per physical following database of the shard map while the application runs
 * ({@code graph.write.relay.enabled}, default on). Every instance of the service runs them; the advisory lock
 * makes one per database active.
 */
@Component
@ConditionalOnProperty(prefix = "graph.write.relay", name = "enabled", havingValue = "true", matchIfMissing = true)
public class OutboxRelays implements SmartLifecycle {

    private final ShardDataSources dataSources;
    private final OutboxRepository outbox;
    private final WriteProperties properties;
    private final MeterRegistry registry;
    private final Clock clock;
    private final List<OutboxRelay> relays = new ArrayList<>();
    private volatile boolean running;

    OutboxRelays(ShardDataSources dataSources, OutboxRepository outbox, WriteProperties properties,
                 MeterRegistry registry, Clock clock) {
        this.dataSources = dataSources;
        this.outbox = outbox;
        this.properties = properties;
        this.registry = registry;
        this.clock = clock;
    }

    /**
     * The relays by database name, for tests and diagnostics.
     *
     * @return one relay per physical following database
     */
    public List<OutboxRelay> relays() {
        return List.copyOf(relays);
    }

    @Override
    public synchronized void start() {
        WriteProperties.Relay relay = properties.relay();
        OutboxRelay.Settings settings = new OutboxRelay.Settings(properties.topic(), relay.batchSize(),
                relay.pollInterval(), relay.sendTimeout(), relay.retention());
        Map<String, ShardRange> byUrl = new LinkedHashMap<>();
        for (ShardRange range : dataSources.shardMap().ranges(ShardGroup.FOLLOWING)) {
            byUrl.putIfAbsent(range.jdbcUrl(), range);
        }
        for (ShardRange range : byUrl.values()) {
            OutboxRelay r = new OutboxRelay(range.database(), dataSources.forRange(range), outbox,
                    () -> producer(relay, range.database()), settings, registry, batch -> { }, clock);
            relays.add(r);
            r.start();
        }
        running = true;
    }

    @Override
    public synchronized void stop() {
        // Signal all first, so that shutdown waits for the slowest relay, not for the sum of them.
        relays.forEach(OutboxRelay::requestStop);
        relays.forEach(OutboxRelay::awaitStop);
        relays.clear();
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * An idempotent producer with {@code acks=all} whose every wait is bounded by the send timeout: with the only
     * broker down a Kafka 4.2 {@code send()} blocks for {@code max.block.ms} (test-support README), so that is the
     * send timeout too, and a delivery gives up after it.
     */
    static Producer<String, byte[]> producer(WriteProperties.Relay relay, String database) {
        int timeoutMs = Math.toIntExact(relay.sendTimeout().toMillis());
        int requestTimeoutMs = Math.max(500, timeoutMs / 2);
        int lingerMs = 5;
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, relay.bootstrapServers());
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "outbox-relay-" + database);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5); // idempotence keeps order up to 5
        config.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (long) timeoutMs);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, requestTimeoutMs);
        // Kafka requires delivery.timeout.ms >= linger.ms + request.timeout.ms.
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Math.max(timeoutMs, requestTimeoutMs + lingerMs));
        return new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
    }
}
