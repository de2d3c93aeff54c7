package dev.socialgraph.write.account;

import com.google.common.util.concurrent.RateLimiter;
import dev.socialgraph.common.event.RecountEvent;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.account.AccountJob;
import dev.socialgraph.store.account.AccountJobRepository;
import dev.socialgraph.store.account.JobKind;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.write.WriteProperties;
import dev.socialgraph.write.account.JobPlan.Phase;
import dev.socialgraph.write.outbox.RecountAnnouncer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Runs the account jobs of the following databases (docs/account-lifecycle.md, "The jobs") on one thread.
 *
 * <p>Each round leases the next due job of every following database in turn ({@link AccountJobRepository#lease}:
 * {@code FOR UPDATE SKIP LOCKED}, one user's jobs in version order) and runs it to the end. A job walks its phases
 * ({@link JobPlan}) in batches of {@code graph.write.accounts.edges-per-second / 4} edges, paced by a Guava
 * {@link RateLimiter} so live writes keep their latency; after every batch it records {@code phase}, {@code position}
 * (the last id done), {@code done}, {@code total} and its counters, and renews its lease. A batch that moved follower
 * counts without an edge event (the walk of X's followees) is announced first ({@link RecountAnnouncer}), so that the
 * check instances' cached counts of those followees are dropped; an announcement that fails fails the round. A worker
 * killed mid-job (kill -9) stops renewing; once the lease ({@code graph.write.accounts.lease}) has run out, any worker
 * resumes the job at the recorded position. Every step is idempotent ({@link JobSteps}), so the batch that was running
 * when the worker died is done again without effect. A worker that finds its lease taken over stops without writing;
 * one that is stopped gives its lease up.
 *
 * <p>A job that fails (a database, Redis or Kafka outage) is left with its lease, which expires: it is retried after
 * {@code lease} from its recorded position.
 *
 * <p>Meters: {@code graph.write.accounts.edges} (edges walked, by {@code kind}), {@code graph.write.accounts.jobs}
 * (jobs finished, by {@code kind}) and {@code graph.write.accounts.failures} (rounds that failed and will be retried).
 */
@Component
class AccountJobRunner implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(AccountJobRunner.class);

    private final ShardDataSources dataSources;
    private final JobSteps steps;
    private final RecountAnnouncer recounts;
    private final WriteProperties.Accounts settings;
    private final Clock clock;
    private final AccountJobRepository jobs = new AccountJobRepository();
    private final RateLimiter limiter;
    private final String owner;
    private final MeterRegistry registry;
    private final Counter failures;
    private volatile boolean running;
    private Thread thread;

    AccountJobRunner(ShardDataSources dataSources, JobSteps steps, RecountAnnouncer recounts,
                     WriteProperties properties, Clock clock, MeterRegistry registry) {
        this.recounts = recounts;
        this.registry = registry;
        this.failures = Counter.builder("graph.write.accounts.failures")
                .description("Account job rounds that failed; a leased job is retried when its lease expires")
                .register(registry);
        this.dataSources = dataSources;
        this.steps = steps;
        this.settings = properties.accounts();
        this.clock = clock;
        this.limiter = RateLimiter.create(settings.edgesPerSecond());
        // Unique per process: a restarted worker must not pass for the dead one.
        this.owner = ManagementFactory.getRuntimeMXBean().getName() + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Override
    public synchronized void start() {
        if (!settings.enabled() || running) {
            return;
        }
        running = true;
        thread = Thread.ofPlatform().name("account-jobs").daemon().start(this::loop);
        log.info("Account job runner {} started: {} edges/s, lease {}", owner, settings.edgesPerSecond(),
                settings.lease());
    }

    @Override
    public void stop() {
        Thread t;
        synchronized (this) {
            running = false;
            t = thread;
        }
        if (t != null) {
            try {
                t.join(settings.lease().toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    private void loop() {
        while (running) {
            boolean found = false;
            for (DataSource database : followingDatabases()) {
                if (!running) {
                    break;
                }
                try {
                    Optional<AccountJob> job = lease(database);
                    if (job.isPresent()) {
                        found = true;
                        run(database, job.get());
                    }
                } catch (SQLException | RuntimeException e) {
                    failures.increment();
                    log.warn("Account job round failed; a leased job is retried when its lease expires: {}",
                            e.toString());
                }
            }
            if (!found && running) {
                sleep(settings.pollInterval().toMillis());
            }
        }
    }

    private Optional<AccountJob> lease(DataSource database) throws SQLException {
        try (Connection c = database.getConnection()) {
            return jobs.lease(c, owner, settings.lease(), clock.millis(), settings.startDelay());
        }
    }

    /** Runs a leased job from its recorded phase and position to the end, or until the lease is lost or stopped. */
    private void run(DataSource database, AccountJob job) throws SQLException {
        List<Phase> phases = JobPlan.phases(job.kind());
        JobReport report = JobReport.parse(job.report());
        long userId = job.userId();
        Progress at = new Progress(job.phase(), job.position(), job.done(), job.total());
        if (at.phase == 0 && at.position == 0 && at.done == 0) {
            at.total = total(job.kind(), phases, userId);
            if (!record(database, job, at, report)) {
                return;
            }
        }
        int batch = settings.batchSize();
        while (at.phase < phases.size()) {
            Phase phase = phases.get(at.phase);
            if (phase.walk() == JobPlan.Walk.OWN_ROWS) {
                steps.deleteOwnRows(userId, report);
            } else {
                long[] left = JobPlan.after(steps.list(job.kind(), phase, userId), at.position);
                for (int from = 0; from < left.length; from += batch) {
                    if (!running) {
                        release(database, job);
                        return;
                    }
                    int to = Math.min(left.length, from + batch);
                    limiter.acquire(to - from);
                    for (int i = from; i < to; i++) {
                        steps.apply(job.kind(), phase, userId, left[i], report);
                        report.edge(phase.relation(), phase.walk() != JobPlan.Walk.TARGETS);
                    }
                    if (phase.movesFollowerCounts()) {
                        // Committed; announced before the batch is recorded done, so a failure here does it again.
                        recounts.announce(RecountEvent.of(userId, job.version(), Arrays.copyOfRange(left, from, to),
                                clock.millis()));
                    }
                    at.position = left[to - 1];
                    at.done += to - from;
                    edges(job.kind()).increment(to - from);
                    if (!record(database, job, at, report)) {
                        return;
                    }
                }
            }
            at.phase++;
            at.position = 0;
            if (at.phase < phases.size() && !record(database, job, at, report)) {
                return;
            }
        }
        long now = clock.millis();
        long started = job.startedAt() == null ? now : job.startedAt();
        boolean finished;
        try (Connection c = database.getConnection()) {
            finished = jobs.finish(c, job.jobId(), owner, at.phase, 0, at.done, at.total,
                    report.toJson(Math.max(0, now - started)), now);
        }
        if (finished) {
            Counter.builder("graph.write.accounts.jobs").tag("kind", job.kind().wireName())
                    .description("Account jobs finished").register(registry).increment();
            log.info("Account job {} ({}) done: {} edges, {} exclusions added, {} removed", job.jobId(),
                    job.kind().wireName(), at.done, report.exclusionsAdded(), report.exclusionsRemoved());
        }
    }

    private Counter edges(JobKind kind) {
        return Counter.builder("graph.write.accounts.edges").tag("kind", kind.wireName())
                .description("Edges walked by account jobs").register(registry);
    }

    private long total(JobKind kind, List<Phase> phases, long userId) throws SQLException {
        long total = 0;
        for (Phase phase : phases) {
            total += steps.list(kind, phase, userId).length;
        }
        return total;
    }

    private boolean record(DataSource database, AccountJob job, Progress at, JobReport report) throws SQLException {
        try (Connection c = database.getConnection()) {
            boolean held = jobs.progress(c, job.jobId(), owner, settings.lease(), at.phase, at.position, at.done,
                    at.total, report.toJson(-1));
            if (!held) {
                log.warn("Account job {} was taken over by another worker; this one stops", job.jobId());
            }
            return held;
        }
    }

    private void release(DataSource database, AccountJob job) throws SQLException {
        try (Connection c = database.getConnection()) {
            jobs.release(c, job.jobId(), owner);
        }
    }

    /** The following group's databases, one pool each, in the current shard map. */
    private List<DataSource> followingDatabases() {
        Map<String, DataSource> byUrl = new LinkedHashMap<>();
        for (ShardRange range : dataSources.shardMap().ranges(ShardGroup.FOLLOWING)) {
            byUrl.computeIfAbsent(range.jdbcUrl(), url -> dataSources.forRange(range));
        }
        return new ArrayList<>(byUrl.values());
    }

    private void sleep(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    /** Where a running job is; mutable, one job's. */
    private static final class Progress {
        int phase;
        long position;
        long done;
        long total;

        Progress(int phase, long position, long done, long total) {
            this.phase = phase;
            this.position = position;
            this.done = done;
            this.total = total;
        }
    }
}
