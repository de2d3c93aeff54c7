package dev.socialgraph.cdc;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;

/**
 * The cdc-consumer's meters (DESIGN.md 8). Tags are low-cardinality: never a user id. Consumer lag comes from the
 * Kafka client's own metrics ({@code kafka_consumer_fetch_manager_records_lag_max}), which Spring Boot binds to
 * Micrometer.
 */
@Component
public class CdcMetrics {

    private final Counter follows;
    private final Counter unfollows;
    private final Counter deadLettered;
    private final DistributionSummary batchSize;
    private final Counter rowRewrites;
    private final Counter celebrityMigrations;
    private final Counter batchRetries;
    private final Counter refused;
    private final MeterRegistry registry;

    /** Registers the meters in {@code registry}. */
    public CdcMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.follows = Counter.builder("graph.cdc.events.applied").tag("type", "follow")
                .description("Events applied to the follower side").register(registry);
        this.unfollows = Counter.builder("graph.cdc.events.applied").tag("type", "unfollow")
                .description("Events applied to the follower side").register(registry);
        this.deadLettered = Counter.builder("graph.cdc.events.dead.lettered")
                .description("Poison records sent to the dead-letter topic").register(registry);
        this.batchSize = DistributionSummary.builder("graph.cdc.batch.size").baseUnit("records")
                .description("Records per poll").register(registry);
        this.rowRewrites = Counter.builder("graph.cdc.row.rewrites")
                .description("Follower rows written (at most one per followee per batch)").register(registry);
        this.celebrityMigrations = Counter.builder("graph.cdc.celebrity.migrations")
                .description("Follower rows moved into celebrity pages").register(registry);
        this.batchRetries = Counter.builder("graph.cdc.batch.failures")
                .description("Batches that failed (cache or dead-letter topic) and will be retried").register(registry);
        this.refused = Counter.builder("graph.cdc.events.refused")
                .description("Valid events the follower side refused on every attempt (not an outage), "
                        + "sent to the dead-letter topic").register(registry);
    }

    /** Counts an event the follower side refused on every attempt; it is dead-lettered too. */
    public void refused() {
        refused.increment();
    }

    /** Total refused events so far (tests, diagnostics). */
    public double refusedEvents() {
        return refused.count();
    }

    /**
     * Reports the events held for follower databases that are down as the gauge {@code graph.cdc.events.parked}.
     *
     * @param parked read on every scrape
     */
    public void parkedEvents(java.util.function.Supplier<Number> parked) {
        io.micrometer.core.instrument.Gauge.builder("graph.cdc.events.parked", parked)
                .description("Events waiting for their follower database (down, or refusing them)")
                .register(registry);
    }

    /**
     * Reports the cached sets the consumer owes a drop (their update failed while Redis was unreachable; one per
     * follower and partition) as the gauge {@code graph.cdc.cache.updates.owed}. Their partitions' offsets are not
     * committed past them.
     *
     * @param owed read on every scrape
     */
    public void owedCacheUpdates(java.util.function.Supplier<Number> owed) {
        io.micrometer.core.instrument.Gauge.builder("graph.cdc.cache.updates.owed", owed)
                .description("Cached sets owed a drop after their update failed (Redis unreachable)")
                .register(registry);
    }

    /** Counts an event applied (its followee's transaction committed). */
    public void applied(FollowEvent event) {
        if (event.relation() == Relation.FOLLOW) {
            (event.isFollow() ? follows : unfollows).increment();
        }
    }

    /** Counts a record sent to the dead-letter topic. */
    public void deadLettered() {
        deadLettered.increment();
    }

    /** Records the size of one poll. */
    public void batch(int records) {
        batchSize.record(records);
    }

    /** Counts one follower-row write. */
    public void rowRewritten() {
        rowRewrites.increment();
    }

    /** Counts one move of a follower row into celebrity pages. */
    public void celebrityMigrated() {
        celebrityMigrations.increment();
    }

    /** Counts a batch that will be retried. */
    public void batchFailed() {
        batchRetries.increment();
    }

    /** Counts one cache update by its outcome ({@code applied}, {@code invalidated}, {@code error}, ...). */
    public void cacheUpdate(String outcome) {
        registry.counter("graph.cdc.cache.updates", "outcome", outcome).increment();
    }

    /** Total row writes so far (tests, diagnostics). */
    public double rowRewrites() {
        return rowRewrites.count();
    }

    /** Total failed batches so far (tests, diagnostics). */
    public double batchFailures() {
        return batchRetries.count();
    }

    /** Total celebrity migrations so far (tests, diagnostics). */
    public double celebrityMigrations() {
        return celebrityMigrations.count();
    }
}
