package dev.socialgraph.write.outbox;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.outbox.EventTracing;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Runs one {@link OutboxRelay} per physical following database of the shard map while the application runs
 * ({@code graph.write.relay.enabled}, default on). Every instance of the service runs them; the advisory lock
 * makes one per database active.
 *
 * <p>The shard map can change while the service runs (docs/shard-moves.md): a following database that appears in a
 * newer map ({@link ShardDataSources#onChange}) gets its relay started then. A relay whose database left the map
 * keeps running until shutdown: its outbox may still hold rows written before the move that nobody else publishes
 * (the relays of the new owner read only the new owner's outbox). At most one relay per database (JDBC URL), none
 * after {@link #stop()}. Each relay is registered with {@link OutboxCommits}, so the writes of this instance wake the
 * relay of the database they committed to.
 */
@Component
@ConditionalOnProperty(prefix = "graph.write.relay", name = "enabled", havingValue = "true", matchIfMissing = true)
public class OutboxRelays implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(OutboxRelays.class);

    private final ShardDataSources dataSources;
    private final OutboxRepository outbox;
    private final WriteProperties properties;
    private final MeterRegistry registry;
    private final EventTracing tracing;
    private final Clock clock;
    private final OutboxCommits commits;
    /** By JDBC URL: ranges of one database share a relay, as they share a pool. Guarded by {@code this}. */
    private final Map<String, OutboxRelay> relays = new LinkedHashMap<>();
    private volatile boolean running;

    OutboxRelays(ShardDataSources dataSources, OutboxRepository outbox, WriteProperties properties,
                 MeterRegistry registry, EventTracing tracing, Clock clock, OutboxCommits commits) {
        this.dataSources = dataSources;
        this.outbox = outbox;
        this.properties = properties;
        this.registry = registry;
        this.tracing = tracing;
        this.clock = clock;
        this.commits = commits;
        // Registered once, here: start() and stop() may run more than once in a context's life.
        dataSources.onChange(map -> startNew(map).forEach(database ->
                log.info("Outbox relay of following database {} started: it joined the shard map", database)));
    }

    /**
     * The relays, for tests and diagnostics.
     *
     * @return one relay per physical following database seen since the start, in the order they started
     */
    public synchronized List<OutboxRelay> relays() {
        return List.copyOf(relays.values());
    }

    @Override
    public synchronized void start() {
        running = true;
        startNew(dataSources.shardMap());
    }

    /**
     * Starts the relays of the following databases of {@code map} that have none yet; nothing when stopped. Runs on
     * the thread that applied a newer map, and at start-up.
     *
     * @return the names of the databases whose relays started
     */
    private synchronized List<String> startNew(ShardMap map) {
        if (!running) {
            return List.of(); // start() reads the newest map itself
        }
        List<String> started = new ArrayList<>();
        WriteProperties.Relay relay = properties.relay();
        OutboxRelay.Settings settings = new OutboxRelay.Settings(properties.topic(), relay.batchSize(),
                relay.pollInterval(), relay.sendTimeout(), relay.retention());
        for (ShardRange range : map.ranges(ShardGroup.FOLLOWING)) {
            if (relays.containsKey(range.jdbcUrl())) {
                continue;
            }
            OutboxRelay r = new OutboxRelay(range.database(), dataSources.forRange(range), outbox,
                    () -> producer(relay, range.database()), settings, registry, batch -> { }, tracing, clock);
            relays.put(range.jdbcUrl(), r);
            commits.register(range.jdbcUrl(), r);
            r.start();
            started.add(range.database());
        }
        return started;
    }

    @Override
    public synchronized void stop() {
        running = false;
        commits.clear();
        // Signal all first, so that shutdown waits for the slowest relay, not for the sum of them.
        relays.values().forEach(OutboxRelay::requestStop);
        relays.values().forEach(OutboxRelay::awaitStop);
        relays.clear();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * An idempotent producer with {@code acks=all} whose every wait is bounded by the send timeout: with the only
     * broker down a Kafka 4.2 {@code send()} blocks for {@code max.block.ms} (test-support README), so that is the
     * send timeout too, and a delivery gives up after it.
     *
     * <p>{@code linger.ms} 0, not Kafka 4's default of 5: a round hands the producer its whole batch at once and then
     * waits for every acknowledgement, so lingering only delayed each round by 5 ms (each event, once rounds are
     * nudged per commit). Records appended while a request is in flight still share the next one.
     */
    static Producer<String, byte[]> producer(WriteProperties.Relay relay, String database) {
        return new KafkaProducer<>(producerConfig(relay, database), new StringSerializer(), new ByteArraySerializer());
    }

    /** The configuration of {@link #producer}. */
    static Map<String, Object> producerConfig(WriteProperties.Relay relay, String database) {
        int timeoutMs = Math.toIntExact(relay.sendTimeout().toMillis());
        int requestTimeoutMs = Math.max(500, timeoutMs / 2);
        int lingerMs = 0;
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
        return config;
    }
}
