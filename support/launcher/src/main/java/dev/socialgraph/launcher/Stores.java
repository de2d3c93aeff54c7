package dev.socialgraph.launcher;

import dev.socialgraph.common.keys.Topics;
import dev.socialgraph.localruntime.PostgresProcess;
import dev.socialgraph.localruntime.RedisCluster;
import dev.socialgraph.localruntime.RedisProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet's stores: PostgreSQL, Redis and Kafka, each either an external server named by the user or an
 * embedded one this launcher runs (local-runtime's starters) with its data under the {@link FleetDir}:
 * <ul>
 *   <li>PostgreSQL: zonky's embedded PostgreSQL ({@link PostgresProcess}) on {@code postgres/}, kept across
 *       restarts, with durable commits ({@link #postgresSettings(int)}); {@code max_connections} 400 for four
 *       services × four pools of 10 plus tools, 40 more per further service instance. With {@link Layout#postgresServers()} N &gt; 1, N such servers
 *       ({@code postgres/}, {@code postgres-1/}, ...) over which the four shard databases are spread
 *       ({@link ShardServers});</li>
 *   <li>Redis: one {@code redis-server} ({@link RedisProcess}), or with {@link Layout#redisCluster()} a Redis Cluster
 *       of six ({@link RedisCluster}: three masters, a replica of each, under {@code redis-cluster/}); a cache, so it
 *       persists nothing ({@code save ""}, no AOF) and every start begins empty;</li>
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
     * The database of the fleet's shard directory (graph-store's {@code ShardDirectory}: the versioned shard map that
     * shard moves publish), on the first PostgreSQL server. The first write instance creates it.
     */
    static final String DIRECTORY_DATABASE = "graph_directory";

    /** Each Redis Cluster master's memory: three of them hold about what the single Redis' 512 MB holds. */
    static final String CLUSTER_NODE_MAXMEMORY = "192mb";

    /**
     * Where the stores are.
     *
     * @param postgresServers  the PostgreSQL servers holding the four local shard databases: one, or several over
     *                         which {@link ShardServers#spread(int)} places them
     * @param postgresUser     a user that may create databases
     * @param postgresPassword its password, empty for trust authentication
     * @param redisHost        Redis host (standalone); {@code null} with a cluster
     * @param redisPort        Redis port (standalone); 0 with a cluster
     * @param redisCluster     the Redis Cluster's nodes; empty for a standalone Redis
     * @param kafkaBootstrap   Kafka bootstrap servers, {@code host:port[,host:port]}
     */
    record Endpoints(List<HostPort> postgresServers, String postgresUser, String postgresPassword,
                     String redisHost, int redisPort, List<HostPort> redisCluster, String kafkaBootstrap) {

        Endpoints {
            postgresServers = List.copyOf(postgresServers);
            redisCluster = List.copyOf(redisCluster);
        }

        /** The first (by default the only) PostgreSQL server's host: {@code graph.postgres.host}. */
        String postgresHost() {
            return postgresServers.get(0).host();
        }

        /** The first PostgreSQL server's port: {@code graph.postgres.port}. */
        int postgresPort() {
            return postgresServers.get(0).port();
        }

        /**
         * The shard databases that are not on the first server, and where they are: the services'
         * {@code graph.postgres.servers.<database>}, the importer's {@code --database-server}.
         *
         * @return database → server; empty with one server
         */
        Map<String, HostPort> databaseServers() {
            Map<String, HostPort> servers = new LinkedHashMap<>();
            if (postgresServers.size() > 1) {
                ShardServers.spread(postgresServers.size()).forEach((database, i) -> {
                    if (i > 0) {
                        servers.put(database, postgresServers.get(i));
                    }
                });
            }
            return servers;
        }

        /**
         * The JDBC URL of the fleet's shard directory ({@link #DIRECTORY_DATABASE} on the first PostgreSQL server):
         * the services' {@code graph.shards.directory.jdbc-url}, the {@code shards} commands' {@code --directory-url}.
         */
        String directoryUrl() {
            return jdbcUrl(postgresServers.get(0), DIRECTORY_DATABASE);
        }

        /** Whether Redis is a cluster. */
        boolean isRedisCluster() {
            return !redisCluster.isEmpty();
        }

        /**
         * The services' Redis URI: {@code redis://host:port}, or with a cluster every node's, comma-separated (the
         * seeds of a cluster client).
         */
        String redisUri() {
            if (!isRedisCluster()) {
                return "redis://" + redisHost + ":" + redisPort;
            }
            return redisCluster.stream().map(n -> "redis://" + n).collect(Collectors.joining(","));
        }

        /** The cluster's nodes as Spring Data Redis' {@code spring.data.redis.cluster.nodes}: {@code host:port,...}. */
        String redisNodes() {
            return redisCluster.stream().map(HostPort::toString).collect(Collectors.joining(","));
        }

        /**
         * Empties the caches (follow tokens, buckets and caches refill): {@code FLUSHDB} on a standalone Redis,
         * {@code FLUSHALL} on every master of a cluster.
         *
         * @throws IOException when Redis does not answer
         */
        void flushRedis() throws IOException {
            if (isRedisCluster()) {
                RedisCluster.flushAll(redisCluster.stream().map(HostPort::toString).toList());
            } else {
                RedisProcess.command(redisHost, redisPort, "FLUSHDB");
            }
        }

        /** Adds where the stores are to a fleet's {@code run/ports.properties}; {@link #read} reads it back. */
        void write(Properties ports) {
            ports.setProperty("postgres.host", postgresHost());
            ports.setProperty(PortPlan.POSTGRES, Integer.toString(postgresPort()));
            if (postgresServers.size() > 1) {
                ports.setProperty("postgres.servers", join(postgresServers));
            }
            if (isRedisCluster()) {
                ports.setProperty("redis.cluster", join(redisCluster));
            } else {
                ports.setProperty("redis.host", redisHost);
                ports.setProperty(PortPlan.REDIS, Integer.toString(redisPort));
            }
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
            String servers = ports.getProperty("postgres.servers");
            List<HostPort> postgres = servers != null ? HostPort.parseList(servers, "postgres.servers")
                    : List.of(new HostPort(ports.getProperty("postgres.host"),
                            Integer.parseInt(ports.getProperty(PortPlan.POSTGRES))));
            String cluster = ports.getProperty("redis.cluster");
            if (cluster != null) {
                return new Endpoints(postgres, user, password, null, 0, HostPort.parseList(cluster, "redis.cluster"),
                        ports.getProperty("kafka.bootstrap"));
            }
            return new Endpoints(postgres, user, password, ports.getProperty("redis.host"),
                    Integer.parseInt(ports.getProperty(PortPlan.REDIS)), List.of(), ports.getProperty("kafka.bootstrap"));
        }

        private static String join(List<HostPort> servers) {
            return servers.stream().map(HostPort::toString).collect(Collectors.joining(","));
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

    /**
     * The shape of the embedded stores, remembered by the data directory ({@link FleetDir#layout()}).
     *
     * @param postgresServers PostgreSQL servers, 1..{@link PortPlan#MAX_POSTGRES_SERVERS}
     * @param redisCluster    a Redis Cluster of six nodes instead of one Redis
     */
    record Layout(int postgresServers, boolean redisCluster) {

        /** One PostgreSQL server and one Redis: a fleet started without {@code --postgres-servers}/{@code --redis-cluster}. */
        static final Layout STANDARD = new Layout(1, false);

        /** @throws IllegalArgumentException when {@code postgresServers} is outside 1..4 */
        Layout {
            ShardServers.spread(postgresServers);
        }

        /** Adds this layout to a fleet's {@code fleet.properties}. */
        void write(Properties p) {
            p.setProperty("postgres-servers", Integer.toString(postgresServers));
            p.setProperty("redis", redisCluster ? "cluster" : "standalone");
        }

        /** The layout a {@code fleet.properties} records; {@link #STANDARD} for a data directory without one. */
        static Layout read(Properties p) {
            return new Layout(Integer.parseInt(p.getProperty("postgres-servers", "1")),
                    "cluster".equals(p.getProperty("redis")));
        }
    }

    private final List<AutoCloseable> started = new ArrayList<>();
    private final List<SupervisedStore> supervised = new ArrayList<>();
    private Endpoints endpoints;
    private LocalBroker broker;

    /**
     * Starts (or connects to) the three stores and creates the topics.
     *
     * @param dir      the data directory
     * @param ports    port plan for the embedded servers
     * @param external servers given by the user
     * @param layout   how many PostgreSQL servers, and whether Redis is a cluster (embedded stores only)
     * @param shardClients the service processes that connect to the shard databases (sizes {@code max_connections})
     * @param env      environment, for {@code GRAPH_SHARDS_USERNAME} / {@code GRAPH_SHARDS_PASSWORD}
     * @param pids     receives {@code name → pid} of the embedded server processes
     * @return the started stores; close them to stop the embedded ones
     * @throws IllegalStateException when a store cannot be started or reached
     */
    static Stores start(FleetDir dir, PortPlan ports, External external, Layout layout, int shardClients,
                        Map<String, String> env, Map<String, Long> pids) throws IOException {
        Stores stores = new Stores();
        try {
            stores.startAll(dir, ports, external, layout, shardClients, env, pids);
            return stores;
        } catch (RuntimeException | IOException e) {
            stores.close();
            throw e;
        }
    }

    Endpoints endpoints() {
        return endpoints;
    }

    /**
     * The embedded stores' processes for the launcher's supervisor, in start order: each PostgreSQL server, then the
     * Redis process or each Redis Cluster node, then the local Kafka broker; none for an external store.
     */
    List<SupervisedStore> supervised() {
        return List.copyOf(supervised);
    }

    /** The local broker process this launcher runs, empty when the user named a Kafka ({@code --kafka}). */
    Optional<LocalBroker> broker() {
        return Optional.ofNullable(broker);
    }

    private void startAll(FleetDir dir, PortPlan ports, External external, Layout layout, int shardClients,
                          Map<String, String> env, Map<String, Long> pids) throws IOException {
        List<HostPort> postgres = new ArrayList<>();
        String pgUser = env.getOrDefault("GRAPH_SHARDS_USERNAME", "postgres");
        String pgPassword = env.getOrDefault("GRAPH_SHARDS_PASSWORD", "");
        if (external.postgres() != null) {
            HostPort hp = HostPort.parse(external.postgres(), "--postgres");
            awaitTcp(hp.host(), hp.port(), Duration.ofSeconds(10), "PostgreSQL (--postgres)");
            postgres.add(hp);
        } else {
            for (int i = 0; i < layout.postgresServers(); i++) {
                String name = PortPlan.postgres(i);
                long t = System.nanoTime();
                Files.createDirectories(dir.postgres(i));
                LocalPostgres local = LocalPostgres.start(name, ports.port(name), dir.postgres(i), dir.log(name),
                        postgresSettings(shardClients));
                started.add(local);
                supervised.add(local);
                PostgresProcess pg = local.server();
                pg.pid().ifPresent(pid -> pids.put(name, pid));
                postgres.add(new HostPort(pg.host(), pg.port()));
                log.info("PostgreSQL (embedded) on {}:{}, data in {}, in {} ms", pg.host(), pg.port(), dir.postgres(i),
                        (System.nanoTime() - t) / 1_000_000);
            }
            pgUser = PostgresProcess.USER;
            pgPassword = "";
        }

        String redisHost = null;
        int redisPort = 0;
        List<HostPort> redisCluster = new ArrayList<>();
        if (external.redis() != null) {
            HostPort hp = HostPort.parse(external.redis(), "--redis");
            redisHost = hp.host();
            redisPort = hp.port();
            awaitTcp(redisHost, redisPort, Duration.ofSeconds(10), "Redis (--redis)");
        } else if (layout.redisCluster()) {
            long t = System.nanoTime();
            List<Integer> nodePorts = new ArrayList<>();
            for (int i = 0; i < PortPlan.REDIS_CLUSTER_NODES; i++) {
                nodePorts.add(ports.port(PortPlan.redisNode(i)));
            }
            RedisCluster cluster = RedisCluster.start(dir.redisCluster(), nodePorts, 3, 1, dir.logs(),
                    List.of("maxmemory " + CLUSTER_NODE_MAXMEMORY, "maxmemory-policy allkeys-lru"));
            started.add(cluster);
            Map<Integer, Long> nodePids = cluster.pids();
            for (int i = 0; i < nodePorts.size(); i++) {
                Long pid = nodePids.get(nodePorts.get(i));
                if (pid != null) {
                    pids.put(PortPlan.redisNode(i), pid);
                }
                supervised.add(new LocalRedis(PortPlan.redisNode(i), cluster.node(nodePorts.get(i))));
            }
            cluster.seeds().forEach(seed -> redisCluster.add(HostPort.parse(seed, "seed")));
            log.info("Redis Cluster (embedded, 3 masters + 3 replicas) on {}, in {} ms", cluster.seeds(),
                    (System.nanoTime() - t) / 1_000_000);
        } else {
            RedisProcess redis = RedisProcess.builder()
                    .port(ports.port(PortPlan.REDIS))
                    .directory(dir.redis())
                    .logFile(dir.log("redis"))
                    .setting("maxmemory 512mb")
                    .setting("maxmemory-policy allkeys-lru")
                    .build()
                    .start();
            LocalRedis local = new LocalRedis(PortPlan.REDIS, redis);
            started.add(local);
            supervised.add(local);
            redisHost = redis.host();
            redisPort = redis.port();
            redis.pid().ifPresent(pid -> pids.put(PortPlan.REDIS, pid));
            log.info("Redis (embedded) on {}:{}", redisHost, redisPort);
        }

        String kafka;
        if (external.kafka() != null) {
            kafka = external.kafka();
        } else {
            long t = System.nanoTime();
            broker = LocalBroker.start(dir, ports, PARTITIONS, Duration.ofSeconds(120));
            started.add(broker);
            supervised.add(broker);
            pids.put(LocalBroker.NAME, broker.child().pid());
            kafka = broker.bootstrapServers();
            log.info("Kafka (local KRaft broker process) on {}, log dir {}, in {} ms", kafka, dir.kafka(),
                    (System.nanoTime() - t) / 1_000_000);
        }
        createTopics(kafka);
        endpoints = new Endpoints(postgres, pgUser, pgPassword, redisHost, redisPort, redisCluster, kafka);
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
     * See docs/decisions/0026-durable-commits-in-the-launchers-postgresql.md.
     *
     * <p>{@code max_connections}: each service process has a pool of up to 10 connections per shard database, and
     * a server can hold all four databases: 40 per process, plus 240 for the importer, tools and a psql (400 with
     * the four of a standard fleet).
     *
     * @param shardClients the service processes that connect to the shard databases
     * @return setting name → value, in the order they are passed
     */
    static Map<String, String> postgresSettings(int shardClients) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("max_connections", Integer.toString(240 + 40 * shardClients));
        settings.put("shared_buffers", "256MB");
        settings.put("listen_addresses", "127.0.0.1");
        settings.put("fsync", "on");
        settings.put("synchronous_commit", "on");
        settings.put("full_page_writes", "on");
        settings.put("commit_delay", "50");
        settings.put("commit_siblings", "5");
        // After a crash the startup process first fsyncs every file of the data directory, one by one, before its redo
        // (5.4 s of an 11.6 s restart measured on the loaded 2-core machine, with a nearly empty graph); syncfs
        // flushes the whole file system once instead (Linux; PostgreSQL 17 docs, recovery_init_sync_method).
        settings.put("recovery_init_sync_method", "syncfs");
        return settings;
    }

    /** The settings of a standard fleet's PostgreSQL: four services ({@link #postgresSettings(int)}). */
    static Map<String, String> postgresSettings() {
        return postgresSettings(Instances.STANDARD.shardClients());
    }

    /** Creates {@code follow-events} (with its 7 days' retention, explicitly) and its dead-letter topic when absent. */
    static void createTopics(String bootstrap) {
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        try (Admin admin = Admin.create(config)) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = new ArrayList<>();
            if (!existing.contains(Topics.FOLLOW_EVENTS)) {
                missing.add(new NewTopic(Topics.FOLLOW_EVENTS, PARTITIONS, (short) 1).configs(Map.of(
                        TopicConfig.RETENTION_MS_CONFIG, Long.toString(Topics.FOLLOW_EVENTS_RETENTION_MS))));
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
     * A database's JDBC URL in the form of graph-store's {@code graph-shards-local.yml} and the importer's map.
     *
     * @return {@code jdbc:postgresql://host:port/database}
     */
    static String jdbcUrl(HostPort server, String database) {
        return "jdbc:postgresql://" + server + "/" + database;
    }

    /**
     * A {@code host:port} argument.
     *
     * @param host the host
     * @param port the port, 1..65535
     */
    record HostPort(String host, int port) {
        @Override
        public String toString() {
            return host + ":" + port;
        }

        /**
         * A comma-separated list of {@code host:port}.
         *
         * @throws IllegalArgumentException when an element is not {@code host:port}
         */
        static List<HostPort> parseList(String text, String option) {
            return Arrays.stream(text.split(",")).map(String::strip).filter(t -> !t.isEmpty())
                    .map(t -> parse(t, option)).toList();
        }

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
