package dev.socialgraph.check.feed;

import dev.socialgraph.check.config.CheckProperties;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.stereotype.Component;

/**
 * The outbox leg of the {@link FeedLag}: every {@code graph.check.feed.probe-interval}, the age of the oldest
 * unpublished outbox row of every following database (the relay's progress), on a thread of its own so that a
 * slow database never delays event application. A probe that fails (a database down) records nothing, so the
 * watermark ages and the guard trips after {@code max-lag}: the relay's progress on that database is unknown.
 *
 * <p>Publishes {@code graph.check.feed.lag} (seconds behind, {@code +Inf} before the first catch-up) and
 * {@code graph.check.feed.fresh} (1 while the in-process layers may answer).
 */
@Component
class OutboxProbe implements InitializingBean, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(OutboxProbe.class);

    private final FeedLag lag;
    private final Outboxes outboxes;
    private final long intervalMillis;
    private final Counter failures;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "outbox-probe");
        t.setDaemon(true);
        return t;
    });

    OutboxProbe(FeedLag lag, Outboxes outboxes, CheckProperties properties, MeterRegistry registry) {
        this.lag = lag;
        this.outboxes = outboxes;
        this.intervalMillis = properties.feed().probeInterval().toMillis();
        this.failures = Counter.builder("graph.check.feed.probe.failures")
                .description("Outbox probes that failed (a following database unreachable)").register(registry);
        Gauge.builder("graph.check.feed.lag", lag,
                        l -> l.lagMillis() == Long.MAX_VALUE ? Double.POSITIVE_INFINITY : l.lagMillis() / 1000.0)
                .description("How far the bloom filter and in-process cache are behind the committed graph")
                .baseUnit("seconds").register(registry);
        Gauge.builder("graph.check.feed.fresh", lag, l -> l.isFresh() ? 1 : 0)
                .description("1 while the in-process layers may answer (lag within graph.check.feed.max-lag)")
                .register(registry);
    }

    @Override
    public void afterPropertiesSet() {
        timer.scheduleWithFixedDelay(this::probe, 0, intervalMillis, TimeUnit.MILLISECONDS);
    }

    /** One probe; public to the package for tests. */
    void probe() {
        long startedAt = System.currentTimeMillis();
        try {
            lag.outboxProbed(startedAt, outboxes.oldestUnpublishedAgeMillis());
        } catch (RuntimeException e) {
            failures.increment();
            log.debug("Outbox probe failed; the feed watermark does not advance", e);
        }
    }

    @Override
    public void destroy() {
        timer.shutdownNow();
    }
}
