package dev.socialgraph.launcher;

import dev.socialgraph.common.keys.Topics;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet's stores: PostgreSQL, Redis and Kafka, each either an external server named by the user or an
 * embedded one this launcher runs with its data under the {@link FleetDir}:
 * <ul>
 *   <li>PostgreSQL: zonky's embedded PostgreSQL (binaries from Maven Central) on {@code postgres/}, kept across
 *       restarts, with durable commits ({@link #postgresSettings()}); {@code max_connections} 400 for four services ×
 *       four pools of 10 plus tools;</li>
 *   <li>Redis: the machine's {@code redis-server}, else the binary bundled in embedded-redis; a cache, so it
 *       persists nothing ({@code save ""}, no AOF);</li>
 *   <li>Kafka: a single-node KRaft broker in a process of its own ({@link LocalBroker}, which the launcher's
 *       supervisor restarts like a service) with its log directory in {@code kafka/}, kept across restarts.</li>
 * </ul>
 * Topics {@code follow-events} (12 partitions, DESIGN.md 3) and {@code follow-events.DLT} are created when absent.
 */
final class Stores implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Stores.class);

    /** The event topic's partition count (DESIGN.md 3). */
    static final int PARTITIONS = 12;

    /**
     * Where the stores are.
     *
     * @param postgresHost     host of the PostgreSQL server holding the four local shard databases
     * @param postgresPort     its port
     * @param postgresUser     a user that may create databases
     * @param postgresPassword its password, empty for trust authentication
     * @param redisHost        Redis host
     * @param redisPort        Redis port
     * @param kafkaBootstrap   Kafka bootstrap servers, {@code host:port[,host:port]}
     */
    record Endpoints(String postgresHost, int postgresPort, String postgresUser, String postgresPassword,
                     String redisHost, int redisPort, String kafkaBootstrap) {

        String redisUri() {
            return "redis://" + redisHost + ":" + redisPort;
        }

        /** Adds where the stores are to a fleet's {@code run/ports.properties}; {@link #read} reads it back. */
        void write(Properties ports) {
            ports.setProperty("postgres.host", postgresHost);
            ports.setProperty(PortPlan.POSTGRES, Integer.toString(postgresPort));
            ports.setProperty("redis.host", redisHost);
            ports.setProperty(PortPlan.REDIS, Integer.toString(redisPort));
            ports.setProperty("kafka.bootstrap", kafkaBootstrap);
        }

        /**
         * The stores of a running fleet, from its {@code run/ports.properties}.
         *
         * @param user     the PostgreSQL user (not kept in the file)
         * @param password its password
         * @throws NumberFormatException when the file lacks the ports
         */
        static Endpoints read(Properties ports, String user, String password) {
            return new Endpoints(ports.getProperty("postgres.host"), Integer.parseInt(ports.getProperty(PortPlan.POSTGRES)),
                    user, password, ports.getProperty("redis.host"), Integer.parseInt(ports.getProperty(PortPlan.REDIS)),
                    ports.getProperty("kafka.bootstrap"));
        }
    }

    /**
     * External servers to use instead of embedded ones; {@code null} fields are embedded.
     *
     * @param postgres {@code host:port}
     * @param redis    {@code host:port}
     * @param kafka    bootstrap servers
     */
    record External(String postgres, String redis, String kafka) {
    }

    private final List<AutoCloseable> started = new ArrayList<>();
    private Endpoints endpoints;
    private LocalBroker broker;

    /**
     * Starts (or connects to) the three stores and creates the topics.
     *
     * @param dir      the data directory
     * @param ports    port plan for the embedded servers
     * @param external servers given by the user
     * @param env      environment, for {@code GRAPH_SHARDS_USERNAME} / {@code GRAPH_SHARDS_PASSWORD}
     * @param pids     receives {@code name → pid} of the embedded server processes
     * @return the started stores; close them to stop the embedded ones
     * @throws IllegalStateException when a store cannot be started or reached
     */
    static Stores start(FleetDir dir, PortPlan ports, External external, Map<String, String> env,
                        Map<String, Long> pids) throws IOException {
        Stores stores = new Stores();
        try {
            stores.startAll(dir, ports, external, env, pids);
            return stores;
        } catch (RuntimeException | IOException e) {
            stores.close();
            throw e;
        }
    }

    Endpoints endpoints() {
        return endpoints;
    }

    /** The local broker process this launcher runs, empty when the user named a Kafka ({@code --kafka}). */
    Optional<LocalBroker> broker() {
        return Optional.ofNullable(broker);
    }

    private void startAll(FleetDir dir, PortPlan ports, External external, Map<String, String> env,
                          Map<String, Long> pids) throws IOException {
        String pgHost;
        int pgPort;
        String pgUser = env.getOrDefault("GRAPH_SHARDS_USERNAME", "postgres");
        String pgPassword = env.getOrDefault("GRAPH_SHARDS_PASSWORD", "");
        if (external.postgres() != null) {
            HostPort hp = HostPort.parse(external.postgres(), "--postgres");
            pgHost = hp.host();
            pgPort = hp.port();
            awaitTcp(pgHost, pgPort, Duration.ofSeconds(10), "PostgreSQL (--postgres)");
        } else {
            pgHost = "127.0.0.1";
            pgPort = ports.port(PortPlan.POSTGRES);
            long t = System.nanoTime();
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setDataDirectory(dir.postgres())
                    .setCleanDataDirectory(false)
                    .setRegisterShutdownHook(false)
                    .setPort(pgPort)
                    .setPGStartupWait(Duration.ofSeconds(120))
                    .setOutputRedirector(ProcessBuilder.Redirect.appendTo(dir.log("postgres").toFile()))
                    .setErrorRedirector(ProcessBuilder.Redirect.appendTo(dir.log("postgres").toFile()));
            postgresSettings().forEach(builder::setServerConfig);
            EmbeddedPostgres pg = builder.start();
            started.add(pg);
            pgUser = "postgres";
            pgPassword = "";
            postmasterPid(dir.postgres()).ifPresent(pid -> pids.put(PortPlan.POSTGRES, pid));
            log.info("PostgreSQL (embedded) on 127.0.0.1:{}, data in {}, in {} ms", pgPort, dir.postgres(),
                    (System.nanoTime() - t) / 1_000_000);
        }

        String redisHost;
        int redisPort;
        if (external.redis() != null) {
            HostPort hp = HostPort.parse(external.redis(), "--redis");
            redisHost = hp.host();
            redisPort = hp.port();
            awaitTcp(redisHost, redisPort, Duration.ofSeconds(10), "Redis (--redis)");
        } else {
            redisHost = "127.0.0.1";
            redisPort = ports.port(PortPlan.REDIS);
            java.io.PrintWriter redisLog = new java.io.PrintWriter(Files.newBufferedWriter(dir.log("redis"),
                    StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND), true);
            started.add(redisLog::close);
            redis.embedded.RedisServer server = redis.embedded.RedisServer.newRedisServer()
                    .executableProvider(Stores::redisBinary)
                    .bind(redisHost)
                    .port(redisPort)
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .setting("dir " + dir.redis().toAbsolutePath())
                    .setting("maxmemory 512mb")
                    .setting("maxmemory-policy allkeys-lru")
                    .setting("loglevel notice")
                    .soutListener(redisLog::println)
                    .serrListener(redisLog::println)
                    .build();
            server.start();
            started.add(server::stop);
            redisPid(redisPort).ifPresent(pid -> pids.put(PortPlan.REDIS, pid));
            log.info("Redis (embedded) on {}:{}", redisHost, redisPort);
        }

        String kafka;
        if (external.kafka() != null) {
            kafka = external.kafka();
        } else {
            long t = System.nanoTime();
            broker = LocalBroker.start(dir, ports, PARTITIONS, Duration.ofSeconds(120));
            started.add(broker);
            pids.put(LocalBroker.NAME, broker.child().pid());
            kafka = broker.bootstrapServers();
            log.info("Kafka (local KRaft broker process) on {}, log dir {}, in {} ms", kafka, dir.kafka(),
                    (System.nanoTime() - t) / 1_000_000);
        }
        createTopics(kafka);
        endpoints = new Endpoints(pgHost, pgPort, pgUser, pgPassword, redisHost, redisPort, kafka);
    }

    /**
     * The embedded PostgreSQL's server settings, each passed as {@code -c name=value}.
     *
     * <p>zonky's builder is made for throw-away test databases: it starts the server with {@code -F} (fsync off) and
     * {@code synchronous_commit=off}. Here the data is the fleet's, and a follow acknowledged to its client (whose
     * event the relay may already have published) must survive a crash: with {@code synchronous_commit=off} the last
     * ~0.6 s of acknowledged commits (three {@code wal_writer_delay}s) are lost even when only the server process is
     * killed, with fsync off everything not yet written back by the OS is lost, or the cluster corrupted, when the
     * machine goes down, and without full-page writes a torn page cannot be repaired from the WAL. So all three are on
     * ({@code -c} options come after zonky's {@code -F}, and the later option wins).
     *
     * <p>Group commit keeps the write rate: under load ({@code commit_siblings} = 5 or more other open transactions)
     * a committing backend waits {@code commit_delay} = 50 µs before flushing the WAL, so that one flush covers the
     * commits that arrive meanwhile. 50 µs is half of one 8 kB {@code fdatasync} on the machine this was tuned on
     * (110 µs, {@code pg_test_fsync}), the starting point PostgreSQL's manual recommends; a lone commit never waits.
     * See docs/decisions.md.
     *
     * @return setting name → value, in the order they are passed
     */
    static Map<String, String> postgresSettings() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("max_connections", "400");
        settings.put("shared_buffers", "256MB");
        settings.put("listen_addresses", "127.0.0.1");
        settings.put("fsync", "on");
        settings.put("synchronous_commit", "on");
        settings.put("full_page_writes", "on");
        settings.put("commit_delay", "50");
        settings.put("commit_siblings", "5");
        return settings;
    }

    /** Creates {@code follow-events} and its dead-letter topic when absent. */
    static void createTopics(String bootstrap) {
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        try (Admin admin = Admin.create(config)) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = new ArrayList<>();
            if (!existing.contains(Topics.FOLLOW_EVENTS)) {
                missing.add(new NewTopic(Topics.FOLLOW_EVENTS, PARTITIONS, (short) 1));
            }
            if (!existing.contains(Topics.FOLLOW_EVENTS_DLT)) {
                missing.add(new NewTopic(Topics.FOLLOW_EVENTS_DLT, 1, (short) 1));
            }
            if (!missing.isEmpty()) {
                admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Kafka at " + bootstrap + " did not create the topics: " + e, e);
        }
    }

    /**
     * Runs one Redis command (RESP) and returns the raw reply; for {@code FLUSHDB} and {@code INFO}, where a
     * client library would be a dependency for two calls.
     */
    static String redisCommand(String host, int port, String... args) throws IOException {
        StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            sb.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 2000);
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[64 * 1024];
            StringBuilder reply = new StringBuilder();
            int n = in.read(buf);
            if (n <= 0) {
                throw new IOException("Redis closed the connection");
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

    private static Optional<Long> redisPid(int port) {
        try {
            String info = redisCommand("127.0.0.1", port, "INFO", "server");
            for (String line : info.split("\r\n")) {
                if (line.startsWith("process_id:")) {
                    return Optional.of(Long.parseLong(line.substring("process_id:".length()).strip()));
                }
            }
        } catch (IOException | NumberFormatException e) {
            log.debug("no Redis pid: {}", e.toString());
        }
        return Optional.empty();
    }

    private static Optional<Long> postmasterPid(Path dataDir) {
        try {
            return Optional.of(Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).strip()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static File redisBinary() throws IOException {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(File.pathSeparator)) {
                File f = new File(d, "redis-server");
                if (!d.isBlank() && f.isFile() && f.canExecute()) {
                    return f;
                }
            }
        }
        return redis.embedded.core.ExecutableProvider.newJarResourceProvider().get();
    }

    static void awaitTcp(String host, int port, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), 1000);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(what + " at " + host + ":" + port + " is not reachable: " + e);
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", ie);
                }
            }
        }
    }

    /** Stops the embedded stores, newest first (Kafka, Redis, PostgreSQL); external ones are left alone. */
    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                log.warn("stopping a store failed: {}", e.toString());
            }
        }
        started.clear();
    }

    /**
     * A {@code host:port} argument.
     *
     * @param host the host
     * @param port the port, 1..65535
     */
    record HostPort(String host, int port) {
        static HostPort parse(String text, String option) {
            int colon = text.lastIndexOf(':');
            if (colon <= 0 || colon == text.length() - 1) {
                throw new IllegalArgumentException(option + " must be host:port, was '" + text + "'");
            }
            try {
                int port = Integer.parseInt(text.substring(colon + 1));
                if (port < 1 || port > 65535) {
                    throw new NumberFormatException();
                }
                return new HostPort(text.substring(0, colon), port);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " must be host:port with a port in 1..65535, was '"
                        + text + "'");
            }
        }
    }
}
