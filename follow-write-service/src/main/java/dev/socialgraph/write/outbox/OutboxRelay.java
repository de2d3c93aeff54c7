package dev.socialgraph.write.outbox;

import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.event.GraphEvent;
import dev.socialgraph.store.outbox.EventTracing;
import dev.socialgraph.store.outbox.OutboxBacklog;
import dev.socialgraph.store.outbox.OutboxEntry;
import dev.socialgraph.store.outbox.OutboxRepository;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.tracing.Span;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the outbox of one physical following database to Kafka in id order (DESIGN.md 3 step 5).
 *
 * <p><b>One active relay per database.</b> Every instance runs a relay per database, but only the one holding the
 * PostgreSQL session advisory lock {@link #LOCK_KEY} (advisory locks are scoped to one database) publishes; the
 * others stand by and try again every poll interval. Two active relays could publish a follow and the unfollow
 * after it in the wrong order. The lock lives on a dedicated connection that the active relay also reads and
 * marks with, so a relay whose connection died has lost the lock and can no longer mark anything either. Closing
 * the relay (or the process dying) ends the session and hands the lock over.
 *
 * <p><b>At least once.</b> A round reads up to {@code batchSize} unpublished rows in id order, sends each as
 * {@link FollowEventJson} keyed by the followee id (per-followee order), waits until Kafka acknowledged all of them
 * ({@code acks=all}, idempotent producer), and only then marks them published. Any failure (Kafka down, a send
 * timeout, the database) marks nothing: the relay drops its producer and its lock and the batch is read again in a
 * later round, by this or another instance. Consumers see duplicates then (same {@code eventId}), never a gap.
 *
 * <p><b>Trace context.</b> A row written by a traced request carries its {@code traceparent} and request id
 * ({@link EventTracing}). Each such row's send is a {@code follow-events publish} span of kind producer, a child of
 * the stored context, from the send until Kafka acknowledged it (so it shows the broker's acknowledgement and the
 * batch's linger, not the wait in the outbox, which is the gap before it in the trace); its context goes out as the
 * record's {@code traceparent} header and the request id as {@code X-Request-Id}. One span per record rather than
 * one per batch: the rows of a batch belong to different requests, hence different traces, and a span per record
 * keeps each follow one trace to its consumers. Rows without a context are sent without these headers. Tracing
 * changes nothing of the order, the batch or the marking.
 *
 * <p><b>When a round runs.</b> Right after a round that filled its batch; otherwise after a pause of the poll
 * interval, cut short by a {@link #nudge()}: the write path of this process nudges the relay of the database it
 * committed an outbox row to ({@link OutboxCommits}), so an event leaves for Kafka as soon as its transaction committed
 * instead of up to a poll interval later. Nudges coalesce: however many arrive while a round runs or before the next
 * one starts, they make one more round, which reads every row committed before it started. The flag is cleared before
 * a round reads, so a row committed after that read always finds the flag cleared and sets it again: no row waits
 * for the poll interval because its nudge came during a round. Nudges are ignored while the relay stands by (the
 * active relay is another instance's, or nobody holds the lock and the poll interval decides when to try it) and
 * during the back-off after a failure of the broker (a broker that is down must not be retried at the write rate).
 * After a failure of the database a nudge does end the back-off: the nudging commit went through on that database,
 * so it answers again, and without the nudge the first events after an outage would wait out the pause. Rows committed
 * by other instances, by the cdc-consumer and the reconciler (the unfollows they write for blocks) are found by the
 * poll interval, the fallback.
 *
 * <p>Published rows older than the retention are pruned. Gauges per database (tag {@code database}):
 * {@code graph.outbox.backlog} (unpublished rows) and {@code graph.outbox.oldest.age} (seconds since the oldest
 * unpublished row was committed), read at most every {@link #BACKLOG_REFRESH} and set to zero by a round that
 * found less than a batch (it drained the outbox as it was when the round started); counters
 * {@code graph.outbox.published} and {@code graph.outbox.relay.failures}.
 */
public final class OutboxRelay implements AutoCloseable {

    /** The advisory lock key of the relay, the same in every database: ASCII "outbox\0\1". */
    public static final long LOCK_KEY = 0x6f7574626f780001L;

    /** Name of the span of one record's publish. */
    static final String PUBLISH_SPAN = "follow-events publish";

    static final Duration BACKLOG_REFRESH = Duration.ofSeconds(5);
    static final Duration PRUNE_INTERVAL = Duration.ofMinutes(1);
    static final Duration WARN_INTERVAL = Duration.ofSeconds(30);
    /** Longest pause after consecutive failed rounds: the pause doubles from 1 s up to this. */
    static final Duration MAX_FAILURE_PAUSE = Duration.ofSeconds(8);

    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

    /** Settings of one relay; see {@code WriteProperties.Relay}. */
    record Settings(String topic, int batchSize, Duration pollInterval, Duration sendTimeout, Duration retention) {
        Settings {
            Objects.requireNonNull(topic, "topic");
            if (batchSize < 1) {
                throw new IllegalArgumentException("batchSize must be >= 1, was " + batchSize);
            }
        }
    }

    /** Runs between the acknowledged send and the marking; tests use it to simulate a crash there. */
    @FunctionalInterface
    interface AfterPublish {
        void run(List<OutboxEntry> batch);
    }

    private final String database;
    private final DataSource dataSource;
    private final OutboxRepository outbox;
    private final Supplier<Producer<String, byte[]>> producers;
    private final Settings settings;
    private final AfterPublish afterPublish;
    private final EventTracing tracing;
    private final Clock clock;
    private final Counter published;
    private final Counter failures;
    private final AtomicLong backlog = new AtomicLong();
    private final AtomicLong oldestAgeSeconds = new AtomicLong();
    /** Guards the pauses: {@link #requestStop()} and {@link #nudge()} notify it. */
    private final Object wakeUp = new Object();
    /** Set by {@link #nudge()}, cleared before a round reads the outbox. */
    private final AtomicBoolean nudged = new AtomicBoolean();
    private final Thread thread;

    private volatile boolean running = true;
    private volatile Connection lockConnection;
    private Producer<String, byte[]> producer;
    private long lastBacklogNanos;
    private long lastPruneNanos;
    private long lastWarnNanos;
    private int consecutiveFailures;

    OutboxRelay(String database, DataSource dataSource, OutboxRepository outbox,
                Supplier<Producer<String, byte[]>> producers, Settings settings, MeterRegistry registry,
                AfterPublish afterPublish, EventTracing tracing, Clock clock) {
        this.database = database;
        this.dataSource = dataSource;
        this.outbox = outbox;
        this.producers = producers;
        this.settings = settings;
        this.afterPublish = afterPublish;
        this.tracing = tracing;
        this.clock = clock;
        this.published = Counter.builder("graph.outbox.published").description("Outbox rows published to Kafka")
                .tag("database", database).register(registry);
        this.failures = Counter.builder("graph.outbox.relay.failures")
                .description("Relay rounds that failed and will be retried").tag("database", database)
                .register(registry);
        Gauge.builder("graph.outbox.backlog", backlog, AtomicLong::get).description("Unpublished outbox rows")
                .tag("database", database).register(registry);
        Gauge.builder("graph.outbox.oldest.age", oldestAgeSeconds, AtomicLong::get).baseUnit("seconds")
                .description("Age of the oldest unpublished outbox row").tag("database", database).register(registry);
        long now = System.nanoTime();
        this.lastBacklogNanos = now - BACKLOG_REFRESH.toNanos();
        this.lastPruneNanos = now - PRUNE_INTERVAL.toNanos();
        this.lastWarnNanos = now - WARN_INTERVAL.toNanos();
        this.thread = new Thread(this::run, "outbox-relay-" + database);
        thread.setDaemon(true);
    }

    /** Starts the relay's thread. */
    void start() {
        thread.start();
    }

    /**
     * Whether this relay holds its database's lock and publishes.
     *
     * @return {@code true} while active
     */
    public boolean isActive() {
        return lockConnection != null;
    }

    /**
     * The physical database this relay publishes.
     *
     * @return the shard map's short name of the database
     */
    public String database() {
        return database;
    }

    /**
     * Asks for a round now because a transaction of this process committed an outbox row to this relay's database;
     * call it after the commit (a row not yet committed is not read). Coalesced with every other nudge until the
     * next round starts; ignored while the relay stands by or backs off after a failure of the broker, and ends the
     * back-off after a failure of the database (see the class comment).
     * Never blocks on the relay's work: at most a brief monitor hand-off, and none while a nudge is already pending.
     */
    public void nudge() {
        if (!nudged.get() && nudged.compareAndSet(false, true)) {
            synchronized (wakeUp) {
                wakeUp.notifyAll();
            }
        }
    }

    /**
     * Whether the relay's thread still runs, for tests: false once it stopped after {@link #close()}.
     *
     * @return {@code true} from {@link #start()} until the thread has ended
     */
    boolean isRunning() {
        return thread.isAlive();
    }

    /** Stops after the current round (bounded by the send timeout), releasing the lock and the producer. */
    @Override
    public void close() {
        requestStop();
        awaitStop();
    }

    /** Asks the relay to stop after its current round without waiting; see {@link #awaitStop()}. */
    void requestStop() {
        running = false;
        synchronized (wakeUp) {
            wakeUp.notifyAll();
        }
    }

    /** Waits until the relay stopped, at most the send timeout plus 5 s. */
    void awaitStop() {
        try {
            thread.join(settings.sendTimeout().plusSeconds(5).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        while (running) {
            try {
                refreshBacklog();
                if (lockConnection == null && !tryAcquire()) {
                    pause(settings.pollInterval(), false);
                    continue;
                }
                // Before the read: a commit after it nudges again, and that nudge is not lost (class comment).
                nudged.set(false);
                int relayed = relayBatch();
                consecutiveFailures = 0;
                if (relayed < settings.batchSize()) {
                    // The round read every row unpublished when it started and published them: the gauges show the
                    // drained backlog at once, without a count query on every round (rounds run per commit now).
                    backlog.set(0);
                    oldestAgeSeconds.set(0);
                }
                pruneIfDue();
                if (relayed < settings.batchSize()) {
                    pause(settings.pollInterval(), true);
                }
            } catch (SQLException e) {
                // The lock connection may be gone, and the lock with it: stand down and compete again. A commit of
                // this process on the database after this point proves it answers again, so its nudge ends the
                // back-off: otherwise the first events after an outage would wait out up to the longest pause.
                failed(e);
                release();
                nudged.set(false);
                pause(failurePause(), true);
            } catch (Exception e) {
                // Kafka (or the hook) failed: keep the lock, start over with a fresh producer.
                failed(e);
                closeProducer();
                pause(failurePause(), false);
            }
        }
        release();
    }

    private boolean tryAcquire() throws SQLException {
        Connection c = dataSource.getConnection();
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
            c.setAutoCommit(true);
            ps.setLong(1, LOCK_KEY);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (rs.getBoolean(1)) {
                    lockConnection = c;
                    log.info("Outbox relay of {} is active", database);
                    return true;
                }
            }
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
        c.close();
        return false;
    }

    private int relayBatch() throws SQLException, InterruptedException, ExecutionException, TimeoutException {
        Connection c = lockConnection;
        List<OutboxEntry> batch = outbox.unpublished(c, settings.batchSize());
        if (batch.isEmpty()) {
            return 0;
        }
        if (producer == null) {
            producer = producers.get();
        }
        long deadline = System.nanoTime() + settings.sendTimeout().toNanos();
        List<Future<RecordMetadata>> acks = new ArrayList<>(batch.size());
        List<Span> spans = new ArrayList<>(batch.size());
        try {
            for (OutboxEntry e : batch) {
                Span span = tracing.startChild(e.trace().traceParent(), PUBLISH_SPAN, Span.Kind.PRODUCER,
                        settings.topic());
                if (span != null) {
                    spans.add(span);
                }
                acks.add(producer.send(record(settings.topic(), e, span)));
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (Exception e) {
            for (Span span : spans) {
                span.error(e).end();
            }
            throw e;
        }
        for (Span span : spans) {
            span.end();
        }
        afterPublish.run(batch);
        long[] ids = new long[batch.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = batch.get(i).id();
        }
        outbox.markPublished(c, ids);
        published.increment(batch.size());
        return batch.size();
    }

    /**
     * The record of a row: key the event's {@link GraphEvent#partitionKey()} (the followee, for per-followee order; an
     * account row's user), value its JSON ({@link OutboxEntry#event()}: an edge or an account event), and the trace
     * headers
     * when the row has a context: {@code traceparent} of {@code span} (or the stored one unchanged where this service
     * runs no tracer) and {@code X-Request-Id}.
     */
    static ProducerRecord<String, byte[]> record(String topic, OutboxEntry e, Span span) {
        GraphEvent event = e.event();
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, Long.toString(event.partitionKey()),
                FollowEventJson.toJson(event));
        String traceParent = span != null ? EventTracing.traceParent(span.context()) : e.trace().traceParent();
        if (traceParent != null) {
            record.headers().add(EventTracing.TRACEPARENT, traceParent.getBytes(StandardCharsets.US_ASCII));
        }
        if (e.trace().requestId() != null) {
            record.headers().add(EventTracing.REQUEST_ID, e.trace().requestId().getBytes(StandardCharsets.US_ASCII));
        }
        return record;
    }

    /** Refreshes the gauges on a pooled connection, at most every {@link #BACKLOG_REFRESH}. */
    private void refreshBacklog() throws SQLException {
        long now = System.nanoTime();
        if (now - lastBacklogNanos < BACKLOG_REFRESH.toNanos()) {
            return;
        }
        lastBacklogNanos = now;
        OutboxBacklog b;
        try (Connection c = dataSource.getConnection()) {
            b = outbox.backlog(c);
        }
        backlog.set(b.unpublished());
        oldestAgeSeconds.set(b.oldestCreatedAt() == null ? 0
                : Math.max(0, Duration.between(b.oldestCreatedAt(), clock.instant()).toSeconds()));
    }

    private void pruneIfDue() throws SQLException {
        long now = System.nanoTime();
        if (now - lastPruneNanos < PRUNE_INTERVAL.toNanos()) {
            return;
        }
        lastPruneNanos = now;
        Instant cutoff = clock.instant().minus(settings.retention());
        int pruned = outbox.prunePublishedBefore(lockConnection, cutoff);
        if (pruned > 0) {
            log.debug("Pruned {} published outbox rows of {}", pruned, database);
        }
    }

    private void failed(Exception e) {
        failures.increment();
        consecutiveFailures++;
        warn(e);
    }

    /** 1 s, 2 s, 4 s, ... up to {@link #MAX_FAILURE_PAUSE}, and never shorter than the poll interval. */
    private Duration failurePause() {
        Duration backoff = Duration.ofSeconds(1L << Math.min(10, Math.max(0, consecutiveFailures - 1)));
        if (backoff.compareTo(MAX_FAILURE_PAUSE) > 0) {
            backoff = MAX_FAILURE_PAUSE;
        }
        return settings.pollInterval().compareTo(backoff) > 0 ? settings.pollInterval() : backoff;
    }

    /**
     * Drops the producer: its in-flight sends may still land, which gives duplicates, never loss. The close runs on
     * its own short-lived thread, so that a producer stuck on a dead broker can never stall the relay's loop.
     */
    private void closeProducer() {
        Producer<String, byte[]> old = producer;
        if (old == null) {
            return;
        }
        producer = null;
        Thread closer = new Thread(() -> {
            try {
                old.close(Duration.ZERO);
            } catch (RuntimeException e) {
                log.debug("Closing the producer of {} failed", database, e);
            }
        }, "outbox-relay-" + database + "-close");
        closer.setDaemon(true);
        closer.start();
    }

    /** Drops the producer and the lock. */
    private void release() {
        closeProducer();
        Connection c = lockConnection;
        if (c != null) {
            lockConnection = null;
            try {
                // Closing returns the connection to the pool with the session still open: unlock explicitly.
                try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_unlock_all()")) {
                    ps.execute();
                }
            } catch (SQLException e) {
                log.debug("Unlocking {} failed; the broken session releases the lock", database, e);
                abort(c);
            }
            try {
                c.close();
            } catch (SQLException e) {
                log.debug("Closing the lock connection of {} failed", database, e);
            }
            log.info("Outbox relay of {} stood down", database);
        }
    }

    private static void abort(Connection c) {
        try {
            c.abort(Runnable::run);
        } catch (SQLException e) {
            // The pool evicts a broken connection on return anyway.
        }
    }

    /**
     * Waits {@code duration}, or less: until {@link #requestStop()}, or with {@code nudgeable} until a
     * {@link #nudge()} (one that came before the pause ends it at once). The flag is read under the monitor that
     * {@link #nudge()} notifies after setting it, so a nudge between the check and the wait still wakes the wait.
     */
    private void pause(Duration duration, boolean nudgeable) {
        long deadline = System.nanoTime() + duration.toNanos();
        synchronized (wakeUp) {
            try {
                while (running && !(nudgeable && nudged.get())) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return;
                    }
                    wakeUp.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                running = false;
            }
        }
    }

    private void warn(Exception e) {
        long now = System.nanoTime();
        if (now - lastWarnNanos >= WARN_INTERVAL.toNanos()) {
            lastWarnNanos = now;
            log.warn("Outbox relay of {} failed a round; nothing of it was marked, it will be retried"
                    + " (further failures at DEBUG for {} s): {}", database, WARN_INTERVAL.toSeconds(), e.toString());
        } else {
            log.debug("Outbox relay of {} failed a round", database, e);
        }
    }
}
