package dev.socialgraph.localruntime;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Kafka cluster in this JVM: one KRaft process that is both broker and controller,
 * built on Kafka's own {@code kafka.server.KafkaRaftServer} and storage {@link Formatter} (what
 * {@code kafka-storage.sh format} and {@code kafka-server-start.sh} run).
 *
 * <p>Unlike spring-kafka-test's {@code EmbeddedKafkaKraftBroker}, which formats fresh temporary
 * directories on every start and picks a new controller port, this broker can be {@link #stop()
 * stopped} and {@link #start() started} again on the same ports with the same log directory, so
 * topics, records and committed offsets survive the restart. The first {@link #start()} formats the
 * log directory (a new cluster id); later starts find {@code meta.properties} there and reuse it.
 *
 * <p>Defaults suit one node with little memory: replication factor 1 for every internal topic, one
 * partition for the offsets and transaction-state topics, no initial rebalance delay, few threads and
 * an 8 MiB log-cleaner buffer instead of 128 MiB. Any broker setting can be overridden with {@link
 * Builder#config(String, Object)}, except the ones that define the node's identity and addresses.
 *
 * <p>Independent of any test framework; the launcher's local broker ({@code graph broker}) runs it too. Kafka's
 * fault handlers call {@code Exit.halt} on fatal errors; this class leaves that behaviour as it is.
 *
 * <pre>{@code
 * try (KraftBroker broker = KraftBroker.builder().port(9092).controllerPort(9093).build().start()) {
 *     String bootstrap = broker.bootstrapServers(); // "127.0.0.1:9092"
 * }
 * }</pre>
 */
public final class KraftBroker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KraftBroker.class);

    private static final String BROKER_LISTENER = "PLAINTEXT";
    private static final String CONTROLLER_LISTENER = "CONTROLLER";

    /** Settings derived from the builder's host, ports, node id and log directory. */
    private static final Set<String> IDENTITY_KEYS = Set.of(
            "process.roles", "node.id", "broker.id", "listeners", "advertised.listeners",
            "controller.listener.names", "inter.broker.listener.name", "listener.security.protocol.map",
            "controller.quorum.voters", "controller.quorum.bootstrap.servers", "log.dirs", "log.dir",
            "metadata.log.dir");

    private final String host;
    private final int port;
    private final int controllerPort;
    private final int nodeId;
    private final Path logDir;
    private final boolean deleteLogDirOnClose;
    private final Map<String, String> config;

    private KafkaRaftServer server;
    private boolean closed;

    private KraftBroker(Builder builder, int port, int controllerPort, Path logDir, boolean deleteLogDirOnClose) {
        this.host = builder.host;
        this.port = port;
        this.controllerPort = controllerPort;
        this.nodeId = builder.nodeId;
        this.logDir = logDir;
        this.deleteLogDirOnClose = deleteLogDirOnClose;
        this.config = buildConfig(builder.overrides);
    }

    /**
     * Starts describing a broker; nothing runs until {@link Builder#build()} and {@link #start()}.
     *
     * @return a builder with the defaults described on {@link Builder}
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the broker, formatting the log directory first if it has never been formatted. Returns
     * when the broker is registered, unfenced and accepts client requests. Does nothing if it is
     * already running.
     *
     * @return this broker
     * @throws IllegalStateException if it was closed, or if Kafka failed to start (for example because
     *     a port is taken); the cause is Kafka's exception
     */
    public synchronized KraftBroker start() {
        if (closed) {
            throw new IllegalStateException("Kafka broker on port " + port + " is closed");
        }
        if (server != null) {
            return this;
        }
        long startedAt = System.nanoTime();
        boolean formatted = formatIfNeeded();
        KafkaRaftServer candidate = new KafkaRaftServer(new KafkaConfig(config, false), Time.SYSTEM);
        try {
            candidate.startup();
        } catch (RuntimeException e) {
            IllegalStateException failure = new IllegalStateException("Kafka broker failed to start on "
                    + bootstrapServers() + " (controller port " + controllerPort + ", log dir " + logDir + ")", e);
            try {
                shutDown(candidate); // releases the ports and the log dir lock it may have taken
            } catch (RuntimeException cleanup) {
                failure.addSuppressed(cleanup);
            }
            throw failure;
        }
        server = candidate;
        log.info("Kafka KRaft broker {} {} on {} (controller port {}, log dir {}) in {} ms", nodeId,
                formatted ? "started" : "restarted", bootstrapServers(), controllerPort, logDir,
                (System.nanoTime() - startedAt) / 1_000_000);
        return this;
    }

    /**
     * Shuts the broker down in an orderly way and waits until its ports are closed; the log directory
     * and its data stay for a later {@link #start()}. Does nothing if it is not running.
     */
    public synchronized void stop() {
        if (server == null) {
            return;
        }
        long stoppingAt = System.nanoTime();
        shutDown(server);
        server = null;
        log.info("Kafka KRaft broker {} on {} stopped in {} ms", nodeId, bootstrapServers(),
                (System.nanoTime() - stoppingAt) / 1_000_000);
    }

    /**
     * Stops the broker and, if the builder was given no log directory, deletes the temporary one it
     * made. A closed broker cannot be started again. Idempotent.
     *
     * @throws UncheckedIOException if the temporary log directory cannot be deleted
     */
    @Override
    public synchronized void close() {
        stop();
        if (closed) {
            return;
        }
        closed = true;
        if (deleteLogDirOnClose) {
            Directories.deleteRecursively(logDir);
        }
    }

    /**
     * Tells whether the broker is running, that is started and not stopped since.
     *
     * @return {@code true} between {@link #start()} and {@link #stop()}
     */
    public synchronized boolean isRunning() {
        return server != null;
    }

    /**
     * The address clients bootstrap from, whether or not the broker is running.
     *
     * @return {@code host:port}, e.g. {@code 127.0.0.1:9092}
     */
    public String bootstrapServers() {
        return host + ":" + port;
    }

    /**
     * The host the broker binds to and advertises.
     *
     * @return a host name or IP address, {@code 127.0.0.1} unless the builder set another
     */
    public String host() {
        return host;
    }

    /**
     * The client (PLAINTEXT) port; the same across restarts.
     *
     * @return a TCP port
     */
    public int port() {
        return port;
    }

    /**
     * The KRaft controller port; the same across restarts.
     *
     * @return a TCP port
     */
    public int controllerPort() {
        return controllerPort;
    }

    /**
     * The directory holding both the metadata log and the topic partitions.
     *
     * @return an absolute path
     */
    public Path logDir() {
        return logDir;
    }

    /**
     * The broker configuration this broker starts with, defaults and overrides applied.
     *
     * @return an unmodifiable map from Kafka setting name to value
     */
    public Map<String, String> config() {
        return config;
    }

    private Map<String, String> buildConfig(Map<String, String> overrides) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("process.roles", "broker,controller");
        settings.put("node.id", Integer.toString(nodeId));
        settings.put("listeners", BROKER_LISTENER + "://" + host + ":" + port + ","
                + CONTROLLER_LISTENER + "://" + host + ":" + controllerPort);
        settings.put("advertised.listeners", BROKER_LISTENER + "://" + host + ":" + port);
        settings.put("listener.security.protocol.map",
                BROKER_LISTENER + ":PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        settings.put("controller.listener.names", CONTROLLER_LISTENER);
        settings.put("inter.broker.listener.name", BROKER_LISTENER);
        // A static voter set: the node is the only voter, so it elects itself leader at once.
        settings.put("controller.quorum.voters", nodeId + "@" + host + ":" + controllerPort);
        settings.put("log.dirs", logDir.toString());

        // One node: every internal topic has one replica and needs one in-sync replica.
        settings.put("default.replication.factor", "1");
        settings.put("min.insync.replicas", "1");
        settings.put("offsets.topic.replication.factor", "1");
        settings.put("offsets.topic.num.partitions", "1");
        settings.put("transaction.state.log.replication.factor", "1");
        settings.put("transaction.state.log.min.isr", "1");
        settings.put("transaction.state.log.num.partitions", "1");
        settings.put("share.coordinator.state.topic.replication.factor", "1");
        settings.put("share.coordinator.state.topic.min.isr", "1");
        settings.put("share.coordinator.state.topic.num.partitions", "1");
        settings.put("group.initial.rebalance.delay.ms", "0");

        // Small footprint: the defaults (3 network, 8 I/O, 10 background threads, a 128 MiB
        // cleaner buffer allocated up front) are sized for a production broker.
        settings.put("num.network.threads", "2");
        settings.put("num.io.threads", "2");
        settings.put("background.threads", "2");
        settings.put("num.recovery.threads.per.data.dir", "1");
        settings.put("group.coordinator.threads", "1");
        settings.put("log.cleaner.dedupe.buffer.size", Integer.toString(8 * 1024 * 1024));
        settings.put("log.cleaner.threads", "1");

        settings.putAll(overrides);
        return Map.copyOf(settings);
    }

    /** Formats the log directory unless a previous start did; returns whether it formatted. */
    private boolean formatIfNeeded() {
        if (Files.exists(logDir.resolve("meta.properties"))) {
            return false;
        }
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        try {
            Files.createDirectories(logDir);
            new Formatter()
                    .setPrintStream(new PrintStream(output, true, StandardCharsets.UTF_8))
                    .setNodeId(nodeId)
                    .setClusterId(Uuid.randomUuid().toString())
                    .setControllerListenerName(CONTROLLER_LISTENER)
                    .setMetadataLogDirectory(logDir.toString())
                    .setDirectories(List.of(logDir.toString()))
                    .setHasDynamicQuorum(false)
                    .run();
        } catch (Exception e) {
            throw new IllegalStateException("Formatting Kafka log dir " + logDir + " failed: " + output, e);
        }
        log.debug("Formatted Kafka log dir {}: {}", logDir, output.toString(StandardCharsets.UTF_8).strip());
        return true;
    }

    private static void shutDown(KafkaRaftServer server) {
        server.shutdown();
        server.awaitShutdown();
    }

    /**
     * Describes a {@link KraftBroker}. Defaults: host {@code 127.0.0.1}, free client and controller
     * ports chosen at {@link #build()}, node id 1, a fresh temporary log directory deleted on {@link
     * KraftBroker#close()}, and Kafka's defaults for everything not listed on {@link KraftBroker}
     * (so {@code auto.create.topics.enable=true} and {@code num.partitions=1}).
     */
    public static final class Builder {

        private String host = "127.0.0.1";
        private int port;
        private int controllerPort;
        private int nodeId = 1;
        private Path logDir;
        private final Map<String, String> overrides = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * Sets the host the broker binds to and advertises to clients.
         *
         * @param host a host name or IP address clients can reach, e.g. {@code 127.0.0.1}
         * @return this builder
         */
        public Builder host(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /**
         * Sets the client (PLAINTEXT) port.
         *
         * @param port 1..65535, or 0 for a free port chosen at {@link #build()}
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder port(int port) {
            this.port = checkPort(port);
            return this;
        }

        /**
         * Sets the KRaft controller port.
         *
         * @param controllerPort 1..65535, or 0 for a free port chosen at {@link #build()}
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder controllerPort(int controllerPort) {
            this.controllerPort = checkPort(controllerPort);
            return this;
        }

        /**
         * Sets the node id; several brokers in one JVM should differ so that their JMX names do.
         *
         * @param nodeId 0 or more; must stay the same for a log directory once it is formatted
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder nodeId(int nodeId) {
            if (nodeId < 0) {
                throw new IllegalArgumentException("nodeId must be >= 0: " + nodeId);
            }
            this.nodeId = nodeId;
            return this;
        }

        /**
         * Uses the given log directory, created if absent and kept on {@link KraftBroker#close()}.
         * A directory formatted by an earlier broker with the same node id is reused with its data.
         *
         * @param logDir a directory path
         * @return this builder
         */
        public Builder logDir(Path logDir) {
            this.logDir = logDir.toAbsolutePath();
            return this;
        }

        /**
         * Overrides one broker setting, e.g. {@code config("num.partitions", 12)} or {@code
         * config("auto.create.topics.enable", false)}.
         *
         * @param key a Kafka broker setting name
         * @param value its value; {@link String#valueOf(Object)} is applied
         * @return this builder
         * @throws IllegalArgumentException for settings this builder derives from host, ports, node id
         *     and log directory (listeners, quorum voters, roles, log dirs): use the builder methods
         */
        public Builder config(String key, Object value) {
            if (IDENTITY_KEYS.contains(key)) {
                throw new IllegalArgumentException(key + " is derived from the builder's host, ports, "
                        + "node id and log dir; set those instead");
            }
            overrides.put(key, String.valueOf(Objects.requireNonNull(value, key)));
            return this;
        }

        /**
         * Overrides several broker settings; see {@link #config(String, Object)}.
         *
         * @param settings Kafka broker setting names and values
         * @return this builder
         * @throws IllegalArgumentException as {@link #config(String, Object)}
         */
        public Builder config(Map<String, ?> settings) {
            settings.forEach(this::config);
            return this;
        }

        /**
         * Chooses free ports and the log directory; does not start anything.
         *
         * @return a broker that is not running yet
         * @throws UncheckedIOException if no free port or temporary directory can be had
         */
        public KraftBroker build() {
            int[] free = FreePorts.pick(2);
            int chosenPort = port != 0 ? port : free[0];
            int chosenControllerPort = controllerPort != 0 ? controllerPort : free[1];
            if (chosenPort == chosenControllerPort) {
                throw new IllegalArgumentException("port and controllerPort must differ: " + chosenPort);
            }
            if (logDir != null) {
                return new KraftBroker(this, chosenPort, chosenControllerPort, logDir, false);
            }
            try {
                Path temporary = Files.createTempDirectory("kraft-broker-").toAbsolutePath();
                return new KraftBroker(this, chosenPort, chosenControllerPort, temporary, true);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot create a Kafka log dir", e);
            }
        }

        private static int checkPort(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be 0..65535: " + port);
            }
            return port;
        }
    }
}
