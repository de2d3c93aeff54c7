package dev.socialgraph.reconciler.scan;

import com.google.common.util.concurrent.RateLimiter;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.reconciler.repair.FollowerRepairs;
import dev.socialgraph.reconciler.repair.ReconcilerMetrics;
import dev.socialgraph.store.following.BlockedFollows;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.SqlErrors;
import dev.socialgraph.web.BadParameterException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Full scans: start, run in the background, report, cancel, and resume after a restart.
 *
 * <p><b>Progress</b> is a row of {@code reconciler_scan} checkpointed after every page (phase, range, cursor and
 * counters). It lives in the follower database of logical shard 0 (the group the reconciler writes anyway), under
 * its own Flyway location {@code classpath:db/reconciler} and history table {@code reconciler_schema_history}, so
 * it never mixes with the shard schema the write service owns. A database rather than a file because the service
 * runs in containers without persistent disks, and another instance can pick the scan up. A page repeated after a
 * crash between its repairs and its checkpoint is harmless: repairs are idempotent.
 *
 * <p>Scans run on a fixed pool of {@code graph.reconciler.admin.scan-threads}; they all share one rate limiter
 * (rows per second). At start-up {@link #resumeInterrupted()} resumes scans left {@link ScanState#RUNNING}.
 * One reconciler instance is assumed (two would scan the same pages twice, which is wasteful but safe).
 */
public final class ScanService implements AutoCloseable {

    /** Flyway location of the reconciler's own tables. */
    public static final String SCHEMA_LOCATION = "classpath:db/reconciler";

    private static final Logger log = LoggerFactory.getLogger(ScanService.class);

    private final DataSource own;
    private final ScanRepository repository;
    private final FullScan fullScan;
    private final ReconcilerMetrics metrics;
    private final int logicalShardCount;
    private final ExecutorService executor;
    private final Duration retryDelay;

    /**
     * @param follows        repairs of the followers side (follows' repositories)
     * @param blocks         repairs of the blocked-by side (blocks' repositories)
     * @param blockedFollows removes the follows a block forbids
     * @param rowsPerSecond  scan rate limit, both groups together
     * @param pageSize       rows per page and checkpoint
     * @param threads        scans running at the same time
     * @param retryDelay     pause before a scan stopped by an unavailable database is retried
     * @throws IllegalArgumentException when {@code follows} or {@code blocks} repairs another relation
     */
    public ScanService(ShardDataSources dataSources, FollowerRepairs follows, FollowerRepairs blocks,
                       BlockedFollows blockedFollows, ReconcilerMetrics metrics, List<ScanListener> listeners,
                       double rowsPerSecond, int pageSize, int threads, Duration retryDelay) {
        DataSource own = dataSources.forRange(dataSources.shardMap().rangeOfShard(ShardGroup.FOLLOWER, 0));
        migrate(own);
        this.own = own;
        this.repository = new ScanRepository(own);
        this.fullScan = new FullScan(dataSources, follows, blocks, blockedFollows, metrics,
                RateLimiter.create(rowsPerSecond), listeners, pageSize);
        this.metrics = metrics;
        this.logicalShardCount = dataSources.shardMap().logicalShardCount();
        this.retryDelay = retryDelay;
        this.executor = Executors.newFixedThreadPool(threads, Thread.ofPlatform().name("reconciler-scan-", 0)
                .daemon(true).factory());
    }

    /** The reconciler's database (the follower database of logical shard 0), migrated with {@link #SCHEMA_LOCATION}. */
    public DataSource database() {
        return own;
    }

    /** Applies {@link #SCHEMA_LOCATION} to the reconciler's database. */
    static void migrate(DataSource dataSource) {
        Flyway.configure()
                .dataSource(dataSource)
                .locations(SCHEMA_LOCATION)
                .table("reconciler_schema_history")
                .baselineOnMigrate(true) // the database already holds the shard schema
                .baselineVersion("0")
                .load()
                .migrate();
    }

    /**
     * Starts a scan of logical shards {@code firstShard..lastShard} (of the follower ids) in the background.
     *
     * @return the scan id
     * @throws BadParameterException naming {@code firstShard} or {@code lastShard} when out of range
     */
    public long start(int firstShard, int lastShard) throws SQLException {
        long id = create(firstShard, lastShard);
        submit(id);
        return id;
    }

    /** Creates a scan without running it (tests step it with {@link #runPages}). */
    long create(int firstShard, int lastShard) throws SQLException {
        if (firstShard < 0 || firstShard >= logicalShardCount) {
            throw new BadParameterException("firstShard", "firstShard: must be in 0.." + (logicalShardCount - 1)
                    + ", was " + firstShard);
        }
        if (lastShard < firstShard || lastShard >= logicalShardCount) {
            throw new BadParameterException("lastShard", "lastShard: must be in firstShard.." + (logicalShardCount - 1)
                    + ", was " + lastShard);
        }
        long id = repository.create(firstShard, lastShard);
        log.info("Created scan {} of logical shards {}..{}", id, firstShard, lastShard);
        return id;
    }

    /** The scan's status, or empty when there is no such scan. */
    public Optional<ScanStatus> status(long id) throws SQLException {
        return repository.find(id, s -> fullScan.progress(s.firstShard(), s.lastShard(),
                new FullScan.Position(s.phase(), s.rangeIndex(), s.cursor())));
    }

    /**
     * Asks a running scan to stop after its current page; its progress is kept.
     *
     * @return whether it was running
     */
    public boolean cancel(long id) throws SQLException {
        return repository.transition(id, ScanState.RUNNING, ScanState.CANCELLED, null);
    }

    /**
     * When the newest full scan (every logical shard) was started, by this instance or an earlier one; empty if
     * none ever was. The schedule counts from it, so restarts (deploys) do not keep postponing the next scan.
     */
    public Optional<java.time.Instant> lastFullScanStart() throws SQLException {
        return repository.lastStart(0, logicalShardCount - 1);
    }

    /** Ids of the scans in state {@link ScanState#RUNNING}, oldest first. */
    public List<Long> running() throws SQLException {
        return repository.running();
    }

    /** Resumes, in the background, every scan left running by a previous process. Returns their ids. */
    public List<Long> resumeInterrupted() throws SQLException {
        List<Long> ids = repository.running();
        for (long id : ids) {
            log.info("Resuming interrupted scan {}", id);
            submit(id);
        }
        return ids;
    }

    private void submit(long id) {
        executor.execute(() -> run(id));
    }

    /**
     * Runs a scan to its end. A database that is unreachable (SQLState 08xxx, 57P0x, pool timeout:
     * {@link SqlErrors.Kind#UNAVAILABLE}) only pauses it: the error is recorded and the scan retried from its
     * checkpoint after {@code retryDelay}, as long as it stays running. Any other error fails it.
     */
    private void run(long id) {
        try {
            runPages(id, Long.MAX_VALUE);
        } catch (SQLException e) {
            if (SqlErrors.classify(e) == SqlErrors.Kind.UNAVAILABLE && !executor.isShutdown()) {
                log.warn("Scan {} paused: a database is unavailable ({}); retrying in {}", id, e.getMessage(),
                        retryDelay);
                try {
                    repository.noteError(id, "retrying: " + e.getMessage());
                } catch (SQLException again) {
                    log.warn("Could not record the error of scan {}", id, again);
                }
                CompletableFuture.delayedExecutor(retryDelay.toMillis(), TimeUnit.MILLISECONDS, executor)
                        .execute(() -> run(id));
            } else {
                fail(id, e);
            }
        } catch (RuntimeException e) {
            fail(id, e);
        }
    }

    private void fail(long id, Exception e) {
        log.warn("Scan {} failed", id, e);
        try {
            repository.transition(id, ScanState.RUNNING, ScanState.FAILED, String.valueOf(e.getMessage()));
        } catch (SQLException again) {
            log.warn("Could not mark scan {} failed; it resumes at the next start", id, again);
        }
    }

    /**
     * Runs up to {@code maxPages} pages of a running scan from its checkpoint, on the calling thread.
     *
     * @return the status afterwards ({@link ScanState#COMPLETED} when it reached the end)
     */
    ScanStatus runPages(long id, long maxPages) throws SQLException {
        ScanStatus s = status(id).orElseThrow(() -> new IllegalArgumentException("no scan " + id));
        FullScan.Position position = new FullScan.Position(s.phase(), s.rangeIndex(), s.cursor());
        for (long page = 0; page < maxPages && s.state() == ScanState.RUNNING; page++) {
            if (position.phase() == ScanPhase.DONE) {
                repository.transition(id, ScanState.RUNNING, ScanState.COMPLETED, null);
                log.info("Scan {} completed", id);
                break;
            }
            FullScan.Delta delta = new FullScan.Delta();
            position = fullScan.step(s.firstShard(), s.lastShard(), position, delta);
            if (!repository.checkpoint(id, position, delta)) {
                break; // cancelled meanwhile
            }
            metrics.setScanProgress(fullScan.progress(s.firstShard(), s.lastShard(), position));
        }
        return status(id).orElseThrow();
    }

    /** Stops the scan threads; running scans stay {@link ScanState#RUNNING} and resume at the next start. */
    @Override
    public void close() throws InterruptedException {
        executor.shutdownNow();
        executor.awaitTermination(10, TimeUnit.SECONDS);
    }
}
