package dev.socialgraph.check.feed;

import dev.socialgraph.check.bloom.EdgeBloom;
import dev.socialgraph.check.bloom.EventFeed;
import dev.socialgraph.check.cache.FollowerSideCache;
import dev.socialgraph.check.cache.LocalFollowingCache;
import dev.socialgraph.check.changes.ChangeLog;
import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.check.relations.HiddenPairs;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.event.GraphEvent;
import dev.socialgraph.common.event.RecountEvent;
import dev.socialgraph.common.event.MalformedEventException;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.store.outbox.EventTracing;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.tracing.Span;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * The event feed: consumes {@code follow-events} in this instance's own consumer group (DESIGN.md 2.4) and keeps the
 * in-process layers current. Every follow goes into the {@link EdgeBloom}, and every change is applied to the exact
 * {@link LocalFollowingCache} by its version (a patch, or a drop on a gap) and marks its followee pending in the
 * {@link FollowerSideCache} (until the cdc-consumer has applied it); every new block and mute goes into
 * {@link HiddenPairs}. Every partition is assigned directly and read from its end as of {@link #start}, which the
 * bloom start-up calls ({@link EventFeed}): its scan or snapshot replay covers everything before that position.
 *
 * <p>It is also the consumer leg of the {@link FeedLag}: every {@code graph.check.feed.probe-interval} it takes the
 * latest outbox mark, reads the partitions' end offsets, and once its positions reach them reports the mark as
 * caught up. A hung broker makes that request time out and the watermark age, which is what trips the guard.
 *
 * <p>A record whose {@code traceparent} header says its trace is sampled (a traced request wrote it;
 * {@link EventTracing}) is applied inside a {@code follow-events process} span of kind consumer, the child of that
 * header. Every other record costs one header lookup and a look at its flags: every instance reads every event, the
 * whole write rate, and a span for an unsampled trace would be recorded nowhere while this listener logs nothing per
 * record and calls nothing that would carry the context on.
 *
 * <p>One thread owns the consumer (KafkaConsumer is not thread-safe). Malformed records are counted and skipped:
 * this consumer only maintains caches, and the cdc-consumer owns the dead-letter topic.
 */
@Component
class FollowEventsListener implements EventFeed, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(FollowEventsListener.class);
    private static final Duration POLL = Duration.ofMillis(100);
    /** Name of the span of a traced record's processing. */
    static final String PROCESS_SPAN = "follow-events process";

    private final CheckProperties.Bloom settings;
    private final EdgeBloom bloom;
    private final LocalFollowingCache local;
    /** {@code null} when {@code graph.check.follower-side.enabled} is off: no marks to keep. */
    private final FollowerSideCache followerSide;
    private final HiddenPairs hidden;
    private final ChangeLog changes;
    private final FeedLag lag;
    private final EventTracing tracing;
    private final long probeIntervalMillis;
    private final Duration probeTimeout;
    private final Counter applied;
    private final Counter probeTimeouts;
    private final Counter malformed;
    private final CountDownLatch positioned = new CountDownLatch(1);
    private volatile boolean running;
    private volatile boolean atEnd;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private Thread thread;

    FollowEventsListener(CheckProperties properties, EdgeBloom bloom, LocalFollowingCache local,
                         FollowerSideCache followerSide, HiddenPairs hidden, ChangeLog changes, FeedLag lag,
                         MeterRegistry registry, EventTracing tracing) {
        this.settings = properties.bloom();
        this.bloom = bloom;
        this.local = local;
        this.followerSide = properties.followerSide().enabled() ? followerSide : null;
        this.hidden = hidden;
        this.changes = changes;
        this.lag = lag;
        this.tracing = tracing;
        this.probeIntervalMillis = properties.feed().probeInterval().toMillis();
        this.probeTimeout = properties.feed().probeTimeout();
        this.probeTimeouts = Counter.builder("graph.check.feed.probe.timeouts")
                .description("End-offset requests of the feed-lag probe that timed out (broker hung or unreachable)")
                .register(registry);
        this.applied = Counter.builder("graph.check.events.applied")
                .description("follow-events applied to the bloom filter and local cache").register(registry);
        this.malformed = Counter.builder("graph.check.events.malformed")
                .description("follow-events records that could not be parsed and were skipped").register(registry);
    }

    /**
     * Starts the consumer thread and waits until every partition has a position.
     *
     * @param timeout how long to wait for the broker
     * @return whether the consumer is positioned (events from now on will be applied)
     */
    @Override
    public boolean start(Duration timeout) throws InterruptedException {
        running = true;
        thread = new Thread(() -> run(timeout), "follow-events-listener");
        thread.setDaemon(true);
        thread.start();
        return positioned.await(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS) && atEnd;
    }

    private void run(Duration timeout) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.kafkaBootstrap());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, settings.groupPrefix() + "-" + UUID.randomUUID());
        // No offsets are committed: the consumer is assigned every partition and always starts from the end, so a
        // commit would be read by nobody, and closing with auto-commit on waited up to 30 s for a commit to a broker
        // that is already gone (every test JVM's exit, a pod stopping during a broker outage).
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(config)) {
            consumer = c;
            List<PartitionInfo> partitions = c.partitionsFor(settings.topic(), timeout);
            if (partitions == null || partitions.isEmpty()) {
                log.warn("Topic {} has no partitions; the bloom filter stays off", settings.topic());
                return;
            }
            List<TopicPartition> assigned = new ArrayList<>();
            for (PartitionInfo p : partitions) {
                assigned.add(new TopicPartition(p.topic(), p.partition()));
            }
            c.assign(assigned);
            c.seekToEnd(assigned);
            long[] positions = new long[assigned.size()];
            for (TopicPartition tp : assigned) {
                // resolve now: the scan must start after these positions, and the change log covers from them
                positions[tp.partition()] = c.position(tp, timeout);
            }
            changes.start(positions);
            atEnd = true;
            positioned.countDown();
            log.info("Consuming {} ({} partitions) from its end", settings.topic(), assigned.size());
            Map<TopicPartition, Long> target = null; // end offsets of the probe in flight
            FeedLag.OutboxMark targetMark = null;
            long nextProbe = 0;
            while (running) {
                ConsumerRecords<byte[], byte[]> records = c.poll(POLL);
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    Header parent = record.headers().lastHeader(EventTracing.TRACEPARENT);
                    if (parent == null || !EventTracing.isSampled(parent.value())) {
                        apply(record);
                    } else {
                        applyTraced(record, parent);
                    }
                }
                if (!records.isEmpty()) {
                    for (TopicPartition tp : records.partitions()) {
                        changes.advance(tp.partition(), c.position(tp)); // offsets that held no event are read too
                    }
                    changes.appended();
                }
                if (target != null && reached(c, target)) {
                    lag.caughtUp(targetMark);
                    target = null;
                }
                long now = System.currentTimeMillis();
                if (target == null && now >= nextProbe) {
                    nextProbe = now + probeIntervalMillis;
                    FeedLag.OutboxMark mark = lag.outboxMark(); // before the end offsets: see FeedLag
                    if (mark != null) {
                        try {
                            target = c.endOffsets(assigned, probeTimeout);
                            targetMark = mark;
                        } catch (TimeoutException e) {
                            probeTimeouts.increment();
                        }
                    }
                }
            }
        } catch (WakeupException e) {
            // shutdown
        } catch (RuntimeException e) {
            if (running) {
                bloom.markStale(); // without the feed the filter would miss new follows
                local.clear(); // and the cache would keep changed rows; the lag guard already stops trusting both
                if (followerSide != null) {
                    followerSide.clear(); // and the follower side's entries would never learn of a change
                }
                hidden.markStale(); // and the filter of hidden pairs would miss new blocks
                changes.markStale(); // and the change stream would stop at this position
                log.warn("follow-events consumer stopped; bloom filter off: {}", e.toString());
            }
        } finally {
            positioned.countDown();
        }
    }

    private void applyTraced(ConsumerRecord<byte[], byte[]> record, Header parent) {
        Span span = tracing.startChild(new String(parent.value(), StandardCharsets.US_ASCII), PROCESS_SPAN,
                Span.Kind.CONSUMER, record.topic());
        if (span == null) {
            apply(record);
            return;
        }
        Header requestId = record.headers().lastHeader(EventTracing.REQUEST_ID);
        AutoCloseable scope = tracing.open(span, requestId == null ? null
                : new String(requestId.value(), StandardCharsets.US_ASCII));
        try {
            // In the span's scope: the line carries the trace and span id and the request id, to follow a write here.
            log.debug("Applying follow-events record {}-{}@{}", record.topic(), record.partition(), record.offset());
            apply(record);
        } catch (RuntimeException e) {
            span.error(e);
            throw e;
        } finally {
            try {
                scope.close();
            } catch (Exception e) {
                log.debug("Closing a span's scope failed", e); // EventTracing's scopes throw nothing
            }
            span.end();
        }
    }

    private void apply(ConsumerRecord<byte[], byte[]> record) {
        GraphEvent parsed;
        try {
            parsed = FollowEventJson.parse(record.value());
        } catch (MalformedEventException | NullPointerException e) {
            malformed.increment();
            return;
        }
        if (parsed.isChange()) {
            changes.append(record.partition(), record.offset(), parsed);
        }
        if (parsed instanceof RecountEvent recount) {
            // An account job moved these follower counts without an edge event: the cached ones are dropped.
            if (followerSide != null) {
                for (int i = 0; i < recount.size(); i++) {
                    followerSide.recounted(recount.followeeId(i));
                }
            }
            applied.increment();
            return;
        }
        if (!(parsed instanceof FollowEvent event)) {
            // An account change: the inactive-users view learns it from the account states it polls, and the edges
            // it moves come as edge events of the account's job.
            applied.increment();
            return;
        }
        if (event.relation() != Relation.FOLLOW) {
            hidden.apply(event); // blocks, mutes and requests share the stream; the follow layers never see them
            applied.increment();
            return;
        }
        if (event.isFollow()) {
            bloom.recordFollow(event.followerId(), event.followeeId());
        }
        local.apply(event.followerId(), event.followeeId(), event.isFollow(), event.followedAt(), event.version());
        if (followerSide != null) {
            followerSide.changed(event.followeeId(), record.partition(), record.offset());
        }
        applied.increment();
    }

    /** Whether the consumer's position has reached {@code ends} on every partition. */
    private static boolean reached(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            if (c.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void destroy() throws InterruptedException {
        running = false;
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        if (thread != null) {
            thread.join(5000);
        }
    }
}
