package dev.socialgraph.store.shard;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a service's {@link ShardDataSources} on the newest shard map of the {@link ShardDirectory}: reads it every
 * {@code interval} (and whenever a database reports a move, through {@link ShardDataSources#refresher}), applies a
 * newer version, and reports the version it routes by, so a mover knows when every reader has switched
 * (docs/shard-moves.md). A directory that cannot be read keeps the current map and is retried next round.
 */
public final class ShardMapPoller implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ShardMapPoller.class);

    private final ShardDirectory directory;
    private final ShardDataSources dataSources;
    private final String reader;
    private final ScheduledExecutorService timer;

    /**
     * Starts polling.
     *
     * @param directory   the deployment's shard directory
     * @param dataSources the pools to keep current
     * @param application the service's name, the first part of its reader name ({@code <application>@<host>:<pid>})
     * @param interval    time between reads, positive
     */
    public ShardMapPoller(ShardDirectory directory, ShardDataSources dataSources, String application,
                          Duration interval) {
        this.directory = directory;
        this.dataSources = dataSources;
        this.reader = application + "@" + host() + ":" + ProcessHandle.current().pid();
        dataSources.refresher(this::refresh);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "shard-map-poller");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::poll, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** @return this instance's name in {@code shard_map_readers} */
    public String reader() {
        return reader;
    }

    /**
     * Reads the newest map and applies it if newer. Concurrent callers (the timer, writers told of a move) are
     * serialized.
     *
     * @throws SQLException when the directory cannot be read
     */
    public synchronized void refresh() throws SQLException {
        ShardDirectory.Versioned latest = directory.latest();
        if (latest != null && dataSources.apply(latest.version(), latest.map())) {
            log.info("Shard map version {} applied: {}", latest.version(), latest.map());
        }
    }

    private void poll() {
        try {
            refresh();
            directory.report(reader, dataSources.version());
        } catch (SQLException | RuntimeException e) {
            log.warn("Reading the shard directory failed; routing by version {} meanwhile: {}",
                    dataSources.version(), e.toString());
        }
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return ManagementFactory.getRuntimeMXBean().getName();
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
