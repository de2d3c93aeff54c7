package dev.socialgraph.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.embedded.core.ExecutableProvider;

/**
 * A {@code redis-server} child process on a fixed loopback port, started through embedded-redis.
 *
 * <p>The binary is the machine's {@code redis-server} when one is on the {@code PATH} (Redis 7 on
 * Debian bookworm), else the one bundled in the embedded-redis jar (Redis 6.2 for linux-amd64,
 * linux-arm64, linux-386, macOS amd64 and arm64; 5.0 for Windows), extracted once per JVM to a
 * temporary directory deleted on exit. The bundled Linux binaries link OpenSSL 3 ({@code
 * libssl.so.3}) dynamically.
 *
 * <p>Nothing is persisted: {@code save ""} and {@code appendonly no}, so a restart starts empty, and
 * the process writes only to its own temporary directory.
 */
final class RedisProcess implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisProcess.class);

    private static final String HOST = "127.0.0.1";

    private static File bundledBinary;

    private final Path binary;
    private final int port;
    private final Path workDirectory;
    private final redis.embedded.RedisServer server;
    private boolean closed;

    private RedisProcess(Path binary, int port, Path workDirectory) throws IOException {
        this.binary = binary;
        this.port = port;
        this.workDirectory = workDirectory;
        this.server = redis.embedded.RedisServer.newRedisServer()
                .executableProvider(binary::toFile)
                .bind(HOST)
                .port(port)
                .setting("save \"\"")
                .setting("appendonly no")
                .setting("dir " + workDirectory)
                // NOTICE is the level that logs "Ready to accept connections", which embedded-redis
                // waits for; afterwards the output is drained into this logger.
                .setting("loglevel notice")
                .soutListener(line -> log.debug("redis-server {}: {}", port, line))
                .serrListener(line -> log.warn("redis-server {}: {}", port, line))
                .build();
    }

    /**
     * Starts a new process on a free port.
     *
     * @param preferredBinary a {@code redis-server} to use if it is an executable file
     * @param searchPath whether to look for {@code redis-server} on the {@code PATH} next
     */
    static RedisProcess start(Optional<Path> preferredBinary, boolean searchPath) {
        Path binary = preferredBinary.map(RedisProcess::executableOrNull)
                .or(() -> searchPath ? onPath() : Optional.empty())
                .orElseGet(RedisProcess::bundled);
        try {
            RedisProcess process = new RedisProcess(binary, FreePorts.pick(),
                    Files.createTempDirectory("embedded-redis-"));
            process.start();
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + binary, e);
        }
    }

    /** Starts the process on its port; does nothing if it runs. */
    synchronized void start() throws IOException {
        if (closed) {
            throw new IllegalStateException("Redis on port " + port + " is closed");
        }
        long startingAt = System.nanoTime();
        server.start();
        log.debug("redis-server {} on port {} started in {} ms", binary, port,
                (System.nanoTime() - startingAt) / 1_000_000);
    }

    /** Stops the process with SIGTERM and waits for it to exit; does nothing if it is stopped. */
    synchronized void stop() throws IOException {
        server.stop();
    }

    synchronized boolean isRunning() {
        return server.isActive();
    }

    @Override
    public synchronized void close() throws IOException {
        stop();
        if (!closed) {
            closed = true;
            Directories.deleteRecursively(workDirectory);
        }
    }

    String host() {
        return HOST;
    }

    int port() {
        return port;
    }

    Path binary() {
        return binary;
    }

    private static Path executableOrNull(Path candidate) {
        return Files.isRegularFile(candidate) && Files.isExecutable(candidate) ? candidate : null;
    }

    private static Optional<Path> onPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String directory : path.split(File.pathSeparator)) {
            if (!directory.isBlank()) {
                Path candidate = executableOrNull(Path.of(directory, "redis-server"));
                if (candidate != null) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }

    private static synchronized Path bundled() {
        if (bundledBinary == null) {
            try {
                bundledBinary = ExecutableProvider.newJarResourceProvider().get();
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot extract the redis-server bundled in embedded-redis", e);
            }
        }
        return bundledBinary.toPath();
    }
}
