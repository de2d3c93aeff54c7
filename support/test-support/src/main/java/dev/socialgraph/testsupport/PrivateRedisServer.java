package dev.socialgraph.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Optional;

import dev.socialgraph.localruntime.RedisProcess;

/**
 * An embedded Redis server owned by one test, for testing behaviour while Redis is down: {@link
 * #stop()} makes connections to its port be refused, {@link #start()} brings it back on the same
 * port, empty (nothing is persisted). Close it when done, e.g. in {@code @AfterAll}; the test JVM's
 * shutdown closes it otherwise.
 *
 * <p>Obtain one from {@link TestServers#privateRedis()}.
 */
public final class PrivateRedisServer extends RedisServer implements AutoCloseable {

    private final RedisProcess process;

    private PrivateRedisServer(RedisProcess process) {
        super(Source.EMBEDDED, "redis", null, process.host(), process.port(), process);
        this.process = process;
    }

    /** Starts a new {@code redis-server} process on a free port; see {@link RedisProcess}. */
    static PrivateRedisServer start(Optional<Path> preferredBinary, boolean searchPath) {
        return new PrivateRedisServer(RedisProcess.start(preferredBinary, searchPath));
    }

    /**
     * Starts the server again on the same port, with no keys. Does nothing if it is running.
     *
     * @throws IllegalStateException if it was closed
     * @throws UncheckedIOException if the process does not start, e.g. because another process took
     *     the port meanwhile
     */
    public void start() {
        process.start();
    }

    /**
     * Stops the server and waits until the process has exited; connections to its port are then
     * refused. Does nothing if it is stopped.
     *
     * @throws UncheckedIOException if interrupted while waiting
     */
    public void stop() {
        try {
            process.stop();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot stop Redis on port " + port(), e);
        }
    }

    /**
     * Tells whether the server process runs.
     *
     * @return {@code true} after start and before stop or close
     */
    public boolean isRunning() {
        return process.isRunning();
    }

    /**
     * Stops the server for good and deletes its working directory. Idempotent.
     *
     * @throws UncheckedIOException if it cannot be stopped
     */
    @Override
    public void close() {
        try {
            super.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot close Redis on port " + port(), e);
        }
    }

    Path binary() {
        return process.binary();
    }
}
