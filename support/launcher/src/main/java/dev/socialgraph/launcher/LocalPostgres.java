package dev.socialgraph.launcher;

import dev.socialgraph.localruntime.PostgresProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One embedded PostgreSQL server of the fleet ({@link PostgresProcess}: zonky's binaries, started by {@code pg_ctl})
 * as a {@link SupervisedStore}: a postmaster that dies ({@code kill -9}, out of memory) is started again on the same
 * port and data directory, where PostgreSQL's crash recovery replays the write-ahead log, so every commit it
 * acknowledged is there again ({@code fsync} and {@code synchronous_commit} are on, {@link Stores#postgresSettings}).
 *
 * <p>A start can fail for a while after a {@code kill -9}: the killed postmaster's backends notice its death only
 * at their next wait, and PostgreSQL refuses to start while they still hold its shared memory ("pre-existing shared
 * memory block is still in use"); the supervisor's back-off tries again. Thread-safe.
 */
final class LocalPostgres implements SupervisedStore {

    private static final Logger log = LoggerFactory.getLogger(LocalPostgres.class);

    private final String name;
    private final int port;
    private final Path dataDirectory;
    private final Path logFile;
    private final Map<String, String> settings;
    private PostgresProcess server;

    private LocalPostgres(String name, int port, Path dataDirectory, Path logFile, Map<String, String> settings) {
        this.name = name;
        this.port = port;
        this.dataDirectory = dataDirectory;
        this.logFile = logFile;
        this.settings = Map.copyOf(settings);
    }

    /**
     * Starts a server and waits until it accepts connections.
     *
     * @param name          its name in {@code run/}, {@code logs/} and {@code ./graph status}, e.g. {@code postgres}
     * @param port          its port on 127.0.0.1
     * @param dataDirectory its data directory (initialised on the first start, kept afterwards)
     * @param logFile       where its output is appended
     * @param settings      server settings ({@code -c name=value})
     * @return the running server
     * @throws UncheckedIOException when it does not start within 120 s
     */
    static LocalPostgres start(String name, int port, Path dataDirectory, Path logFile, Map<String, String> settings) {
        LocalPostgres postgres = new LocalPostgres(name, port, dataDirectory, logFile, settings);
        postgres.server = postgres.launch();
        return postgres;
    }

    /** The running server (for its host, port and pid). */
    synchronized PostgresProcess server() {
        return server;
    }

    @Override
    public ServiceFleet.Spec spec() {
        return new ServiceFleet.Spec(name, "postgres", port, "-", Map.of());
    }

    @Override
    public synchronized Supervisor.Child child() {
        return ProcessWatch.of(server.pid().orElse(-1L));
    }

    @Override
    public synchronized Supervisor.Child restart() throws IOException {
        // zonky's close runs 'pg_ctl stop' (which fails on a dead server and is only logged) and releases its lock
        // on the data directory, which the new start takes.
        closeQuietly();
        try {
            server = launch();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        Supervisor.Child child = child();
        log.info("PostgreSQL {} started again on port {} (pid {}), data in {}", name, port, child.pid(), dataDirectory);
        return child;
    }

    @Override
    public boolean ready() {
        return ready("127.0.0.1", port);
    }

    /**
     * Whether a PostgreSQL server answers a query: {@code SELECT 1} as {@link PostgresProcess#USER} on the database
     * {@code postgres}, connecting within 2 s. A server in crash recovery refuses connections ("the database system
     * is starting up") and is not ready.
     *
     * @param host its host
     * @param port its port
     * @return {@code true} when it answers
     */
    static boolean ready(String host, int port) {
        Properties p = new Properties();
        p.setProperty("user", PostgresProcess.USER);
        p.setProperty("connectTimeout", "2");
        p.setProperty("socketTimeout", "2");
        p.setProperty("loginTimeout", "2");
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/postgres", p);
             Statement s = c.createStatement()) {
            return s.execute("SELECT 1");
        } catch (SQLException | RuntimeException e) {
            log.debug("PostgreSQL at {}:{} does not answer: {}", host, port, e.toString());
            return false;
        }
    }

    /** Stops the server ({@code pg_ctl stop}, fast mode); its data directory is kept. */
    @Override
    public synchronized void close() {
        closeQuietly();
    }

    private void closeQuietly() {
        if (server == null) {
            return;
        }
        try {
            server.close();
        } catch (IOException | RuntimeException e) {
            log.warn("stopping PostgreSQL {} failed: {}", name, e.toString());
        }
        server = null;
    }

    private PostgresProcess launch() {
        return PostgresProcess.builder()
                .port(port)
                .dataDirectory(dataDirectory)
                .logFile(logFile)
                .startupTimeout(Duration.ofSeconds(120))
                .settings(settings)
                .start();
    }
}
