package dev.socialgraph.cdc.listener;

import dev.socialgraph.cdc.CdcMetrics;
import dev.socialgraph.cdc.CdcProperties;
import dev.socialgraph.cdc.block.BlockEnforcement;
import dev.socialgraph.cdc.cache.CacheUpdates;
import dev.socialgraph.cdc.follower.FollowerSide;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.event.MalformedEventException;
import dev.socialgraph.common.keys.Topics;
import dev.socialgraph.store.outbox.EventTracing;
import io.micrometer.tracing.Span;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationListener;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.event.ListenerContainerIdleEvent;
import org.springframework.kafka.listener.ConsumerAwareRebalanceListener;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * The batch listener on {@code follow-events} (DESIGN.md 4). Per poll: parse every record, append the valid events
 * to their follower database's lane and apply the lanes that are not backing off ({@link DatabaseLanes}: one
 * transaction and at most one row write per followee), update the followers' caches, remove the follows that blocks
 * forbid ({@link BlockEnforcement}), send the poison records to the dead-letter topic and wait for the broker, and
 * then commit, per partition, up to its first event still waiting for its database.
 *
 * <p>A follower database that is down holds back only its own followees' events, in memory, retried with back-off
 * on every poll and every idle tick ({@link ListenerContainerIdleEvent}, every {@code retry-backoff} while no
 * records come); above {@code max-parked-events} the consumer's partitions are paused until half of them are in.
 * A cached set that could neither be updated nor dropped (Redis down, hung or cut off) does not fail the batch: a
 * Redis outage is a cache outage (DESIGN.md 7), so the follower side goes on and the consumer owes the set a drop
 * ({@link CacheDebt}), retried every {@code retry-backoff} on batches and idle ticks; the partition's offsets are
 * not committed past the first owed event until it is settled. When a block could not be enforced (its blocked
 * user's following database unreachable) or the dead-letter topic fails, the listener throws before committing:
 * the container's error handler retries the whole batch after a growing pause, for as long as it takes. The retry
 * does not take the batch's events into the lanes again, and replaying cache scripts is a no-op.
 *
 * <p>Also the container's rebalance listener: partitions taken away drop their parked events, which the next owner
 * reads again from the committed offset.
 */
final class FollowEventListener implements ConsumerAwareRebalanceListener,
        ApplicationListener<ListenerContainerIdleEvent> {

    private static final Logger log = LoggerFactory.getLogger(FollowEventListener.class);

    /** Name of the span of a record's processing. */
    static final String PROCESS_SPAN = "follow-events process";
    private static final AutoCloseable NO_SCOPE = () -> { };

    /** Listener id, for {@code KafkaListenerEndpointRegistry} lookups. */
    static final String ID = "cdc-consumer";

    private final FollowerSide followerSide;
    private final CacheUpdates cache;
    private final BlockEnforcement blocks;
    private final DeadLetterPublisher deadLetters;
    private final CdcMetrics metrics;
    private final CdcProperties properties;
    private final KafkaListenerEndpointRegistry registry;
    private final EventTracing tracing;
    /** Per consumer (the container has {@code concurrency} of them, one thread each); Consumer has identity equality. */
    private final Map<Consumer<?, ?>, DatabaseLanes> lanes = new ConcurrentHashMap<>();
    /** Per consumer, like the lanes: the cache updates it owes for its partitions. */
    private final Map<Consumer<?, ?>, CacheDebt> debts = new ConcurrentHashMap<>();

    FollowEventListener(FollowerSide followerSide, CacheUpdates cache, BlockEnforcement blocks,
                        DeadLetterPublisher deadLetters, CdcMetrics metrics, CdcProperties properties,
                        KafkaListenerEndpointRegistry registry, EventTracing tracing) {
        this.followerSide = followerSide;
        this.cache = cache;
        this.blocks = blocks;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.properties = properties;
        this.registry = registry;
        this.tracing = tracing;
        metrics.parkedEvents(() -> this.lanes.values().stream().mapToInt(DatabaseLanes::parked).sum());
        metrics.owedCacheUpdates(() -> this.debts.values().stream().mapToInt(CacheDebt::owed).sum());
    }

    @KafkaListener(id = ID, topics = "${graph.cdc.topic:" + Topics.FOLLOW_EVENTS + "}", groupId = "${graph.cdc.group-id:cdc-consumer}",
            batch = "true", concurrency = "${graph.cdc.concurrency:1}",
            properties = "max.poll.records=${graph.cdc.max-poll-records:500}")
    void onBatch(List<ConsumerRecord<byte[], byte[]>> records, Consumer<?, ?> consumer) {
        Traced traced = startSpans(records);
        List<Span> spans = traced.spans();
        AutoCloseable scope = spans.size() == 1 ? tracing.open(spans.getFirst(), traced.requestId()) : NO_SCOPE;
        try {
            apply(records, consumer);
        } catch (RuntimeException e) {
            for (Span span : spans) {
                span.error(e);
            }
            throw e;
        } finally {
            close(scope);
            for (Span span : spans) {
                span.end();
            }
        }
    }

    private static void close(AutoCloseable scope) {
        try {
            scope.close();
        } catch (Exception e) {
            throw new IllegalStateException(e); // scopes of EventTracing throw nothing
        }
    }

    /** The spans of a batch's traced records, and the request id of the last of them. */
    private record Traced(List<Span> spans, String requestId) {
    }

    /**
     * A {@code follow-events process} span of kind consumer per record that carries a trace context (written by a
     * traced request; {@link EventTracing}), each the child of its record's {@code traceparent}, all covering this
     * whole batch: the batch applies its records together (one row write per followee), so each record's processing
     * is the batch's. One span per record rather than one per batch with links, so that one follow stays one trace to
     * here. While the batch runs, the span is current (log lines carry its trace and span id and the request id) when
     * the batch has exactly one traced record; with several, no single trace owns the batch's log lines.
     */
    private Traced startSpans(List<ConsumerRecord<byte[], byte[]>> records) {
        String lastRequestId = null;
        List<Span> spans = null;
        for (ConsumerRecord<byte[], byte[]> record : records) {
            Header parent = record.headers().lastHeader(EventTracing.TRACEPARENT);
            if (parent == null) {
                continue;
            }
            Span span = tracing.startChild(new String(parent.value(), StandardCharsets.US_ASCII), PROCESS_SPAN,
                    Span.Kind.CONSUMER, record.topic());
            if (span == null) {
                continue;
            }
            if (spans == null) {
                spans = new ArrayList<>();
            }
            spans.add(span);
            Header requestId = record.headers().lastHeader(EventTracing.REQUEST_ID);
            lastRequestId = requestId == null ? null : new String(requestId.value(), StandardCharsets.US_ASCII);
        }
        return new Traced(spans == null ? List.of() : spans, lastRequestId);
    }

    private void apply(List<ConsumerRecord<byte[], byte[]>> records, Consumer<?, ?> consumer) {
        // With one traced record in the batch, the line carries its trace and span id and its request id.
        log.debug("Applying a batch of {} follow-events records", records.size());
        metrics.batch(records.size());
        DatabaseLanes ofConsumer = lanes(consumer);
        CacheDebt debt = debt(consumer);
        List<DatabaseLanes.Pending> valid = new ArrayList<>(records.size());
        List<FollowEvent> events = new ArrayList<>(records.size());
        List<CacheDebt.Owed> cacheUpdates = new ArrayList<>(records.size());
        List<DeadLetterPublisher.DeadLetter> poison = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            try {
                if (!(FollowEventJson.parse(record.value()) instanceof FollowEvent event)) {
                    // An account change or a recount: the account jobs' own edge events carry it to the follower side.
                    continue;
                }
                valid.add(new DatabaseLanes.Pending(record, event, 0));
                events.add(event);
                cacheUpdates.add(new CacheDebt.Owed(new TopicPartition(record.topic(), record.partition()),
                        record.offset(), event));
            } catch (MalformedEventException e) {
                poison.add(new DeadLetterPublisher.DeadLetter(record, e));
            }
        }
        ofConsumer.take(valid);
        ofConsumer.applyDue();
        // Before the commit: an event whose cached set was neither updated nor dropped is owed a drop, and its
        // partition's commit waits for it, or the set could answer from before the event until its TTL. The cache
        // does not wait for the follower side: it mirrors the following side, which the event already reports.
        debt.apply(cacheUpdates);
        try {
            enforceBlocks(events);
            deadLetters.publish(poison);
        } catch (RuntimeException e) {
            metrics.batchFailed();
            throw e;
        }
        ofConsumer.finish(records);
        poison.forEach(letter -> metrics.deadLettered());
        commitAndPace(consumer, ofConsumer);
    }

    private void enforceBlocks(List<FollowEvent> events) {
        try {
            blocks.apply(events);
        } catch (SQLException e) {
            throw new IllegalStateException("enforcing blocks failed; the batch is retried: " + e.getMessage(), e);
        }
    }

    /**
     * Retries the lanes and the owed cache updates of a consumer that receives no records (its topic is quiet, or it
     * is paused).
     */
    @Override
    public void onApplicationEvent(ListenerContainerIdleEvent idle) {
        if (!ID.equals(idle.getListenerId()) && !idle.getListenerId().startsWith(ID + "-")) {
            return;
        }
        DatabaseLanes ofConsumer = lanes.get(idle.getConsumer());
        CacheDebt debt = debts.get(idle.getConsumer());
        if (ofConsumer == null || debt == null || (ofConsumer.parked() == 0 && debt.owed() == 0)) {
            return;
        }
        debt.settleIfDue();
        ofConsumer.applyDue();
        commitAndPace(idle.getConsumer(), ofConsumer);
    }

    @Override
    public void onPartitionsRevokedBeforeCommit(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        DatabaseLanes ofConsumer = lanes.get(consumer);
        if (ofConsumer != null) {
            commit(consumer, ofConsumer);
            ofConsumer.forget(partitions, holds(consumer));
        }
        forgetDebt(consumer, partitions);
    }

    @Override
    public void onPartitionsLost(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        DatabaseLanes ofConsumer = lanes.get(consumer);
        if (ofConsumer != null) {
            ofConsumer.forget(partitions, holds(consumer));
        }
        forgetDebt(consumer, partitions);
    }

    private Map<TopicPartition, Long> holds(Consumer<?, ?> consumer) {
        CacheDebt debt = debts.get(consumer);
        return debt == null ? Map.of() : debt.holds();
    }

    private void forgetDebt(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        CacheDebt debt = debts.get(consumer);
        if (debt != null) {
            debt.forget(partitions);
        }
    }

    @Override
    public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        DatabaseLanes ofConsumer = lanes.get(consumer);
        if (ofConsumer != null) {
            ofConsumer.rewinds(partitions).forEach(consumer::seek);
        }
    }

    private DatabaseLanes lanes(Consumer<?, ?> consumer) {
        return lanes.computeIfAbsent(consumer,
                c -> new DatabaseLanes(followerSide, deadLetters, metrics, properties, System::nanoTime));
    }

    private CacheDebt debt(Consumer<?, ?> consumer) {
        return debts.computeIfAbsent(consumer, c -> new CacheDebt(new CacheDebt.Cache() {
            @Override
            public List<FollowEvent> apply(List<FollowEvent> events) {
                return cache.apply(events);
            }

            @Override
            public List<FollowEvent> invalidate(List<FollowEvent> events) {
                return cache.invalidate(events);
            }
        }, Math.max(1, properties.retryBackoff().toNanos()), System::nanoTime));
    }

    private void commitAndPace(Consumer<?, ?> consumer, DatabaseLanes ofConsumer) {
        commit(consumer, ofConsumer);
        // Owed cache updates count like parked events: both are held in memory, and both hold the commit back.
        int parked = ofConsumer.parked() + debts.get(consumer).owed();
        if (!ofConsumer.paused && parked > properties.maxParkedEvents()) {
            log.warn("{} events wait for follower databases or owe cache updates; pausing partitions {}", parked, consumer.assignment());
            setPaused(consumer, true);
            ofConsumer.paused = true;
        } else if (ofConsumer.paused && parked <= properties.maxParkedEvents() / 2) {
            log.info("{} events wait for follower databases or owe cache updates; resuming partitions {}", parked, consumer.assignment());
            setPaused(consumer, false);
            ofConsumer.paused = false;
        }
    }

    /** Through the container, which keeps partitions it paused paused across rebalances and error-handler retries. */
    private void setPaused(Consumer<?, ?> consumer, boolean paused) {
        MessageListenerContainer container = registry.getListenerContainer(ID);
        if (container == null) {
            return;
        }
        for (TopicPartition partition : consumer.assignment()) {
            if (paused) {
                container.pausePartition(partition);
            } else {
                container.resumePartition(partition);
            }
        }
    }

    /**
     * Commits what is finished and owes no cache update; a failed commit is only logged, the next batch or idle tick
     * commits it.
     */
    private void commit(Consumer<?, ?> consumer, DatabaseLanes ofConsumer) {
        Map<TopicPartition, OffsetAndMetadata> offsets = ofConsumer.toCommit(holds(consumer));
        if (offsets.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(offsets);
            ofConsumer.committed(offsets);
        } catch (KafkaException e) {
            log.warn("Committing offsets {} failed; retried with the next batch: {}", offsets, e.toString());
        }
    }
}
