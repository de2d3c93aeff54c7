package dev.socialgraph.launcher;

import dev.socialgraph.localruntime.RedisProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code redis-server} of the fleet, the standalone Redis or a Redis Cluster node ({@link RedisProcess}), as a
 * {@link SupervisedStore}: a process that dies is started again on the same port and working directory. It starts
 * empty (the fleet's Redis persists nothing: it is a cache, and the services' version-guarded cache protocol refills
 * it from the shards); a cluster node rejoins its cluster from the {@code nodes.conf} it kept, as a replica when its
 * replica took over meanwhile. Thread-safe.
 */
final class LocalRedis implements SupervisedStore {

    private static final Logger log = LoggerFactory.getLogger(LocalRedis.class);

    private final String name;
    private final RedisProcess redis;

    /**
     * @param name  its name in {@code run/} and {@code ./graph status}: {@code redis}, or {@code redis-node-<i>}
     * @param redis the running process
     */
    LocalRedis(String name, RedisProcess redis) {
        this.name = name;
        this.redis = redis;
    }

    @Override
    public ServiceFleet.Spec spec() {
        return new ServiceFleet.Spec(name, "redis", redis.port(), "-", Map.of());
    }

    @Override
    public synchronized Supervisor.Child child() {
        return ProcessWatch.of(redis.pid().orElse(-1L));
    }

    @Override
    public synchronized Supervisor.Child restart() throws IOException {
        redis.stop(); // reaps the dead process and lets embedded-redis start it again
        try {
            redis.start();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        Supervisor.Child child = child();
        log.info("Redis {} started again on port {} (pid {}), empty", name, redis.port(), child.pid());
        return child;
    }

    @Override
    public boolean ready() {
        return ready("127.0.0.1", redis.port());
    }

    /**
     * Whether a {@code redis-server} answers {@code PING} (within the 2 s connect and 5 s reply bounds of
     * {@link RedisProcess#command}).
     *
     * @return {@code true} when it answers {@code +PONG}
     */
    static boolean ready(String host, int port) {
        try {
            return RedisProcess.command(host, port, "PING").startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    /** Stops the process; the cluster that owns a node deletes its directory. */
    @Override
    public synchronized void close() {
        try {
            redis.close();
        } catch (IOException | RuntimeException e) {
            log.warn("stopping Redis {} failed: {}", name, e.toString());
        }
    }
}
