package dev.socialgraph.reconciler;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.reconciler.bloom.SnapshotBuilder;
import dev.socialgraph.reconciler.config.ReconcilerProperties;
import dev.socialgraph.reconciler.repair.FollowerRepairs;
import dev.socialgraph.reconciler.repair.ReconcilerMetrics;
import dev.socialgraph.reconciler.sample.OutboxPositionRepository;
import dev.socialgraph.reconciler.sample.OutboxSampler;
import dev.socialgraph.reconciler.scan.ScanListener;
import dev.socialgraph.reconciler.scan.ScanService;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.following.BlockedFollows;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.context.event.EventListener;

/**
 * Wiring of the reconciler's features, and its two schedules. Two {@link FollowerRepairs} beans: the followers
 * side's ({@code followerRepairs}, primary, on graph-store's follow repositories) and the blocked-by side's
 * ({@code blockRepairs}, on block repositories made here). The schedules: recent-edge sampling every
 * {@code graph.reconciler.sampling.interval}, and (on by default) a full scan of every logical shard every
 * {@code graph.reconciler.scan.scheduled-interval}, counted from the last full scan's start and paced by
 * {@code graph.reconciler.scan.rate-limit}. Both start when the application is ready, after
 * {@link ScanService#resumeInterrupted()}. In the root package, above the features it wires: no feature depends on this
 * package (the settings are in {@code reconciler.config}, the meters in {@code reconciler.repair}), so the wiring
 * closes no package cycle.
 */
@Configuration(proxyBeanMethods = false)
class ReconcilerConfiguration {

    private static final Logger log = LoggerFactory.getLogger(ReconcilerConfiguration.class);

    @Bean
    @ConditionalOnMissingBean
    Clock clock() {
        return Clock.systemUTC();
    }

    @Bean
    ReconcilerMetrics reconcilerMetrics(MeterRegistry registry) {
        return new ReconcilerMetrics(registry);
    }

    /** The followers side's repairs: primary, as graph-store's follow repositories are the plain beans. */
    @Bean
    @Primary
    FollowerRepairs followerRepairs(ShardDataSources dataSources, FollowingRepository following,
                                    FollowerRepository followers, CelebrityPageRepository pages,
                                    ReconcilerMetrics metrics, ReconcilerProperties properties, Clock clock) {
        return new FollowerRepairs(dataSources, Relation.FOLLOW, following, followers, pages, metrics,
                properties.repairThreshold(), clock);
    }

    /** The blocked-by side's repairs. */
    @Bean
    FollowerRepairs blockRepairs(ShardDataSources dataSources, ReconcilerMetrics metrics,
                                 ReconcilerProperties properties, Clock clock) {
        return new FollowerRepairs(dataSources, Relation.BLOCK, new FollowingRepository(Relation.BLOCK),
                new FollowerRepository(Relation.BLOCK), new CelebrityPageRepository(Relation.BLOCK), metrics,
                properties.repairThreshold(), clock);
    }

    @Bean(destroyMethod = "close")
    ScanService scanService(ShardDataSources dataSources, FollowingRepository following, OutboxRepository outbox,
                            FollowerRepairs repairs, @Qualifier("blockRepairs") FollowerRepairs blockRepairs,
                            ReconcilerMetrics metrics, ObjectProvider<ScanListener> listeners,
                            ReconcilerProperties properties) {
        ReconcilerProperties.Scan scan = properties.scan();
        return new ScanService(dataSources, repairs, blockRepairs, new BlockedFollows(dataSources, following, outbox),
                metrics, listeners.orderedStream().toList(), scan.rateLimit(), scan.pageSize(),
                properties.admin().scanThreads(), scan.retryDelay());
    }

    /** After {@code scanService}, which migrates the reconciler's own tables (its position table among them). */
    @Bean
    OutboxSampler outboxSampler(ShardDataSources dataSources, OutboxRepository outbox, FollowerRepairs repairs,
                                @Qualifier("blockRepairs") FollowerRepairs blockRepairs, ReconcilerMetrics metrics,
                                ReconcilerProperties properties, Clock clock, ScanService scanService) {
        return new OutboxSampler(dataSources, outbox, repairs, blockRepairs, metrics,
                properties.sampling().batchSize(), properties.sampling().maxPerRound(), clock,
                new OutboxPositionRepository(scanService.database()));
    }

    @Bean
    SnapshotBuilder snapshotBuilder(ShardDataSources dataSources, FollowingRepository following,
                                    ReconcilerProperties properties, Clock clock, MeterRegistry registry) {
        return new SnapshotBuilder(dataSources, following, properties.bloom(), properties.scan().pageSize(), clock,
                registry);
    }

    /** Its own thread: a snapshot build takes minutes in production and must not delay sampling. */
    @Bean(destroyMethod = "shutdownNow")
    ScheduledExecutorService bloomSnapshotSchedule() {
        return Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("bloom-snapshot-schedule")
                .daemon(true).factory());
    }

    @Bean(destroyMethod = "shutdownNow")
    ScheduledExecutorService reconcilerSchedule() {
        return Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("reconciler-schedule")
                .daemon(true).factory());
    }

    /** Resumes interrupted scans, then starts the schedules. */
    @EventListener(ApplicationReadyEvent.class)
    void onReady(ApplicationReadyEvent event) throws SQLException {
        var context = event.getApplicationContext();
        ReconcilerProperties properties = context.getBean(ReconcilerProperties.class);
        ScanService scans = context.getBean(ScanService.class);
        OutboxSampler sampler = context.getBean(OutboxSampler.class);
        ScheduledExecutorService schedule = context.getBean("reconcilerSchedule", ScheduledExecutorService.class);
        List<Long> resumed = scans.resumeInterrupted();
        if (!resumed.isEmpty()) {
            log.info("Resumed {} interrupted scan(s)", resumed.size());
        }
        if (properties.sampling().enabled()) {
            long every = properties.sampling().interval().toMillis();
            schedule.scheduleWithFixedDelay(sampler::sampleOnce, every, every, TimeUnit.MILLISECONDS);
        }
        if (properties.bloom().scheduled()) {
            SnapshotBuilder snapshots = context.getBean(SnapshotBuilder.class);
            int last = context.getBean(ShardDataSources.class).shardMap().logicalShardCount() - 1;
            long every = properties.bloom().interval().toMillis();
            context.getBean("bloomSnapshotSchedule", ScheduledExecutorService.class).scheduleAtFixedRate(() -> {
                try {
                    snapshots.build(0, last);
                } catch (Exception e) {
                    log.warn("Scheduled bloom snapshot failed", e);
                }
            }, every, every, TimeUnit.MILLISECONDS);
        }
        if (properties.scan().scheduled()) {
            long every = properties.scan().scheduledInterval().toMillis();
            // From the last full scan's start, not from this start-up: a service redeployed more often than the
            // interval would otherwise never scan. No scan yet: the first starts one interval after start-up.
            Clock clock = context.getBean(Clock.class);
            long first = scans.lastFullScanStart()
                    .map(last -> Math.max(0, Duration.between(clock.instant(), last.plusMillis(every)).toMillis()))
                    .orElse(every);
            schedule.scheduleAtFixedRate(() -> {
                try {
                    if (!scans.running().isEmpty()) {
                        log.info("Scheduled full scan skipped: scans {} still running", scans.running());
                        return;
                    }
                    scans.start(0, context.getBean(ShardDataSources.class).shardMap().logicalShardCount() - 1);
                } catch (SQLException | RuntimeException e) {
                    log.warn("Could not start the scheduled full scan", e);
                }
            }, first, every, TimeUnit.MILLISECONDS);
        }
        log.info("Reconciler ready: sampling {}, scheduled scans {}", properties.sampling().enabled() ? "on" : "off",
                properties.scan().scheduled() ? "every " + properties.scan().scheduledInterval() : "off");
    }
}
