package dev.socialgraph.localruntime;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
 * <p>Nothing is persisted: {@code save ""} and {@code appendonly no}, so a restart starts empty. The
 * process writes only to its working directory: a temporary one deleted on {@link #close()}, or the
 * one {@link Builder#directory(Path)} names, which is kept. Its output goes to this class's SLF4J
 * logger, or appended to {@link Builder#logFile(Path)}.
 *
 * <pre>{@code
 * try (RedisProcess redis = RedisProcess.builder().port(16379).setting("maxmemory 512mb").build().start()) {
 *     String uri = redis.uri();   // "redis://127.0.0.1:16379"
 * }
 * }</pre>
 */
public final class RedisProcess implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisProcess.class);

    private static final String HOST = "127.0.0.1";

    private static File bundledBinary;

    private final Path binary;
    private final int port;
    private final Path workDirectory;
    private final boolean deleteDirectoryOnClose;
    private final PrintWriter logFile;
    private final redis.embedded.RedisServer server;
    private boolean closed;

    private RedisProcess(Builder builder, Path binary, int port, Path workDirectory, boolean deleteDirectoryOnClose)
            throws IOException {
        this.binary = binary;
        this.port = port;
        this.workDirectory = workDirectory;
        this.deleteDirectoryOnClose = deleteDirectoryOnClose;
        this.logFile = builder.logFile == null ? null : new PrintWriter(Files.newBufferedWriter(builder.logFile,
                StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND), true);
        var server = redis.embedded.RedisServer.newRedisServer()
                .executableProvider(binary::toFile)
                .bind(HOST)
                .port(port)
                .setting("save \"\"")
                .setting("appendonly no")
                .setting("dir " + workDirectory.toAbsolutePath());
        builder.settings.forEach(server::setting);
        // NOTICE is the level that logs "Ready to accept connections", which embedded-redis waits for;
        // afterwards the output is drained into the logger or the log file.
        server.setting("loglevel notice");
        if (logFile != null) {
            server.soutListener(logFile::println).serrListener(logFile::println);
        } else {
            server.soutListener(line -> log.debug("redis-server {}: {}", port, line))
                    .serrListener(line -> log.warn("redis-server {}: {}", port, line));
        }
        this.server = server.build();
    }

    /**
     * Starts describing a process; nothing runs until {@link Builder#build()} and {@link #start()}.
     *
     * @return a builder: a free port, a temporary directory, the binary found as described above
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts a new process on a free port in a temporary directory.
     *
     * @param preferredBinary a {@code redis-server} to use if it is an executable file
     * @param searchPath whether to look for {@code redis-server} on the {@code PATH} next
     * @return the running process
     * @throws UncheckedIOException when it cannot be started
     */
    public static RedisProcess start(Optional<Path> preferredBinary, boolean searchPath) {
        Builder builder = builder().searchPath(searchPath);
        preferredBinary.ifPresent(builder::binary);
        return builder.build().start();
    }

    /**
     * Starts the process on its port and waits until it accepts connections; does nothing if it runs.
     *
     * @return this process
     * @throws IllegalStateException when it was closed
     * @throws UncheckedIOException when {@code redis-server} cannot be started (for example because the
     *     port is taken)
     */
    public synchronized RedisProcess start() {
        if (closed) {
            throw new IllegalStateException("Redis on port " + port + " is closed");
        }
        long startingAt = System.nanoTime();
        try {
            server.start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + binary + " on port " + port, e);
        }
        log.debug("redis-server {} on port {} started in {} ms", binary, port,
                (System.nanoTime() - startingAt) / 1_000_000);
        return this;
    }

    /**
     * Stops the process with SIGTERM and waits for it to exit; does nothing if it is stopped.
     *
     * @throws IOException when embedded-redis cannot stop it
     */
    public synchronized void stop() throws IOException {
        server.stop();
    }

    /**
     * Whether the process runs.
     *
     * @return {@code true} between {@link #start()} and {@link #stop()}, unless it died meanwhile
     */
    public synchronized boolean isRunning() {
        return server.isActive();
    }

    /**
     * Stops the process, closes its log file and deletes a temporary working directory. Idempotent.
     *
     * @throws IOException when embedded-redis cannot stop it
     */
    @Override
    public synchronized void close() throws IOException {
        stop();
        if (!closed) {
            closed = true;
            if (logFile != null) {
                logFile.close();
            }
            if (deleteDirectoryOnClose) {
                Directories.deleteRecursively(workDirectory);
            }
        }
    }

    /**
     * The host the process listens on.
     *
     * @return {@code 127.0.0.1}
     */
    public String host() {
        return HOST;
    }

    /**
     * The port the process listens on; the same across {@link #stop()} and {@link #start()}.
     *
     * @return a TCP port
     */
    public int port() {
        return port;
    }

    /**
     * The server's URI.
     *
     * @return {@code redis://127.0.0.1:<port>}
     */
    public String uri() {
        return "redis://" + HOST + ":" + port;
    }

    /**
     * The {@code redis-server} binary this process runs.
     *
     * @return an executable file
     */
    public Path binary() {
        return binary;
    }

    /**
     * The operating system's id of the running process, from its {@code INFO server}.
     *
     * @return the pid; empty when the server does not answer
     */
    public Optional<Long> pid() {
        return pid(HOST, port);
    }

    /**
     * The pid of a {@code redis-server} that answers on {@code host:port} ({@code process_id} of {@code INFO
     * server}).
     *
     * @param host a host
     * @param port its port
     * @return the pid; empty when nothing answers or the reply has none
     */
    public static Optional<Long> pid(String host, int port) {
        try {
            String info = command(host, port, "INFO", "server");
            for (String line : info.split("\r\n")) {
                if (line.startsWith("process_id:")) {
                    return Optional.of(Long.parseLong(line.substring("process_id:".length()).strip()));
                }
            }
        } catch (IOException | NumberFormatException e) {
            log.debug("no pid of Redis at {}:{}: {}", host, port, e.toString());
        }
        return Optional.empty();
    }

    /**
     * Runs one Redis command (RESP over a new connection) and returns the raw reply: for {@code FLUSHALL}, {@code
     * FLUSHDB}, {@code INFO} and {@code CLUSTER INFO}, where a client library would be a lot of machinery for one
     * call. Connects within 2 s; waits at most 5 s for the reply.
     *
     * @param host a host
     * @param port its port
     * @param args the command and its arguments, e.g. {@code "INFO", "server"}
     * @return the reply as sent, e.g. {@code +OK\r\n} or a whole bulk string with its {@code $<length>} header
     * @throws IOException when the server cannot be reached or closes the connection
     */
    public static String command(String host, int port, String... args) throws IOException {
        StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            sb.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 2000);
            s.setSoTimeout(5000);
            var out = s.getOutputStream();
            out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            var in = s.getInputStream();
            byte[] buf = new byte[64 * 1024];
            StringBuilder reply = new StringBuilder();
            int n = in.read(buf);
            if (n <= 0) {
                throw new IOException("Redis at " + host + ":" + port + " closed the connection");
            }
            reply.append(new String(buf, 0, n, StandardCharsets.UTF_8));
            if (reply.charAt(0) == '$') { // bulk string: read until the announced length arrived
                int eol = reply.indexOf("\r\n");
                int length = Integer.parseInt(reply.substring(1, eol));
                while (reply.length() < eol + 2 + length && (n = in.read(buf)) > 0) {
                    reply.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                }
            }
            return reply.toString();
        }
    }

    /**
     * The {@code redis-server} to run: {@code preferred} if it is an executable file, else the one on the {@code
     * PATH} (when {@code searchPath}), else the one bundled in embedded-redis.
     *
     * @param preferred a binary to prefer, or {@code null}
     * @param searchPath whether to look on the {@code PATH}
     * @return an executable file
     * @throws UncheckedIOException when the bundled binary cannot be extracted
     */
    static Path binary(Path preferred, boolean searchPath) {
        return Optional.ofNullable(preferred).map(RedisProcess::executableOrNull)
                .or(() -> searchPath ? onPath("redis-server") : Optional.empty())
                .orElseGet(RedisProcess::bundled);
    }

    private static Path executableOrNull(Path candidate) {
        return Files.isRegularFile(candidate) && Files.isExecutable(candidate) ? candidate : null;
    }

    /**
     * An executable of this name in a directory of the {@code PATH}.
     *
     * @param name e.g. {@code redis-cli}
     * @return the first one found; empty when there is none
     */
    static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String directory : path.split(File.pathSeparator)) {
            if (!directory.isBlank()) {
                Path candidate = executableOrNull(Path.of(directory, name));
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

    /** Describes a {@link RedisProcess}. Not thread-safe. */
    public static final class Builder {

        private Path binary;
        private boolean searchPath = true;
        private int port;
        private Path directory;
        private Path logFile;
        private final List<String> settings = new ArrayList<>();

        private Builder() {
        }

        /**
         * A {@code redis-server} to use if it is an executable file; otherwise the search goes on.
         *
         * @param binary a path
         * @return this builder
         */
        public Builder binary(Path binary) {
            this.binary = Objects.requireNonNull(binary, "binary");
            return this;
        }

        /**
         * Whether to look for {@code redis-server} on the {@code PATH} before the bundled one.
         *
         * @param searchPath default {@code true}
         * @return this builder
         */
        public Builder searchPath(boolean searchPath) {
            this.searchPath = searchPath;
            return this;
        }

        /**
         * The port on 127.0.0.1.
         *
         * @param port 1..65535, or 0 (the default) for a free one chosen at {@link #build()}
         * @return this builder
         * @throws IllegalArgumentException outside 0..65535
         */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be within 0..65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * The working directory ({@code dir}), created if absent and kept on {@link #close()}; without one, a
         * temporary directory that {@link #close()} deletes.
         *
         * @param directory a directory
         * @return this builder
         */
        public Builder directory(Path directory) {
            this.directory = Objects.requireNonNull(directory, "directory");
            return this;
        }

        /**
         * A file the server's output is appended to, instead of this class's logger.
         *
         * @param logFile a file, created if absent
         * @return this builder
         */
        public Builder logFile(Path logFile) {
            this.logFile = Objects.requireNonNull(logFile, "logFile");
            return this;
        }

        /**
         * One more line of {@code redis.conf}, e.g. {@code maxmemory 512mb} or {@code cluster-enabled yes}.
         * {@code bind}, {@code port}, {@code dir}, {@code save}, {@code appendonly} and {@code loglevel} are this
         * class's.
         *
         * @param line a configuration directive and its arguments
         * @return this builder
         */
        public Builder setting(String line) {
            settings.add(Objects.requireNonNull(line, "line"));
            return this;
        }

        /**
         * Describes the process: finds the binary, picks a free port if none was given, creates the directory.
         *
         * @return a process, not yet started
         * @throws UncheckedIOException when the directory cannot be created or the log file opened
         */
        public RedisProcess build() {
            Path executable = RedisProcess.binary(binary, searchPath);
            try {
                Path dir = directory != null ? Files.createDirectories(directory)
                        : Files.createTempDirectory("embedded-redis-");
                return new RedisProcess(this, executable, port != 0 ? port : FreePorts.pick(), dir,
                        directory == null);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot prepare " + executable, e);
            }
        }
    }
}
