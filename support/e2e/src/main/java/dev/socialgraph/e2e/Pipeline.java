package dev.socialgraph.e2e;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardDirectory;
import dev.socialgraph.store.shard.ShardMapPoller;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.PostgresServer;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The write pipeline on real servers: follow-write-service (HTTP, shard transaction, outbox relay) and cdc-consumer
 * (follower side), each in its own JVM from its runnable jar ({@link ServiceProcess}: its own classpath and
 * {@code application.yml}, as in production), on a fresh {@link TestShards} topology, one fresh Kafka topic from
 * test-support's servers (embedded by default, external through its {@code GRAPH_TEST_*} variables), and either a
 * fresh database of test-support's Redis or a Redis the caller names ({@link Redis}, e.g. a Redis Cluster).
 *
 * <p>Every setting is a command-line argument of the service, which outranks its {@code application.yml}. The exec
 * jars are looked up in the repository root's {@code <module>/target} ({@code RepositoryRoot}), so the working
 * directory may be anywhere inside the repository; Failsafe and the benchmark (see the README) run in this module's.
 * Output of each service goes to {@code target/<module>-<port>.log} of the working directory.
 */
public final class Pipeline implements AutoCloseable {

    /** Startup bound of one service JVM: generous, the test machine may have two busy cores. */
    static final Duration STARTUP = Duration.ofSeconds(180);

    /** The follow-token secret given to both services, and to the check service through its properties. */
    static final String TOKEN_SECRET = "e2e-pipeline-follow-token-secret-0123456789";

    /**
     * The Redis of the {@code following:{id}} cache, as every service names it: {@code graph.write.redis.uri/mode},
     * {@code graph.cdc.redis-uri/mode}, {@code graph.check.redis-uri/mode}.
     *
     * @param uri  one {@code redis://host:port[/db]} URI, or in cluster mode the seed nodes separated by commas
     * @param mode {@code standalone} or {@code cluster}
     */
    public record Redis(String uri, String mode) {

        public Redis {
            Objects.requireNonNull(uri, "uri");
            if (uri.isBlank()) {
                throw new IllegalArgumentException("a Redis URI is required");
            }
            if (!mode.equals("standalone") && !mode.equals("cluster")) {
                throw new IllegalArgumentException("Redis mode is standalone or cluster, was " + mode);
            }
        }

        /** One Redis server (or one of its databases), e.g. {@code redis://127.0.0.1:6379/3}. */
        public static Redis standalone(String uri) {
            return new Redis(uri, "standalone");
        }

        /** A Redis Cluster known by its seed nodes, e.g. {@code RedisCluster.uris()}. */
        public static Redis cluster(String seeds) {
            return new Redis(seeds, "cluster");
        }
    }

    /**
     * What a pipeline varies.
     *
     * @param prefix             lower-case name for its databases, topic and consumer group
     * @param relayPollInterval  the outbox relay's pause when its outbox is drained
     * @param celebrityThreshold follower count at which cdc-consumer moves a row into pages
     * @param pageSize           followers per celebrity page
     * @param partitions         partitions of the fresh topic
     * @param redis              the cache's Redis, or {@code null} for a fresh database of test-support's Redis
     * @param directory          whether the services route by a shard directory (a fresh database, polled every
     *                           {@link #DIRECTORY_POLL}), so shards can move while they run (docs/shard-moves.md)
     * @param serviceProperties  more Spring properties for every service of the pipeline (write, cdc-consumer and
     *                           {@link #checkServiceProperties()}), e.g. tracing settings; they win over the
     *                           pipeline's own
     */
    public record Settings(String prefix, Duration relayPollInterval, long celebrityThreshold, int pageSize,
                           int partitions, Redis redis, boolean directory, Map<String, String> serviceProperties) {

        public Settings {
            serviceProperties = Map.copyOf(serviceProperties);
        }

        /**
         * The services' own defaults (relay 200 ms, threshold 1,000,000, pages of 100,000), 4 partitions, a fresh
         * database of test-support's Redis.
         */
        public static Settings defaults(String prefix) {
            return new Settings(prefix, Duration.ofMillis(200), 1_000_000, 100_000, 4, null, false, Map.of());
        }

        public Settings withRelayPollInterval(Duration interval) {
            return new Settings(prefix, interval, celebrityThreshold, pageSize, partitions, redis, directory,
                    serviceProperties);
        }

        public Settings withCelebrityPages(long threshold, int size) {
            return new Settings(prefix, relayPollInterval, threshold, size, partitions, redis, directory,
                    serviceProperties);
        }

        /** The services use {@code redis} (e.g. {@link Redis#cluster(String)}) instead of test-support's Redis. */
        public Settings withRedis(Redis redis) {
            return new Settings(prefix, relayPollInterval, celebrityThreshold, pageSize, partitions,
                    Objects.requireNonNull(redis, "redis"), directory, serviceProperties);
        }

        /**
         * The services (and {@link #checkServiceProperties()}) route by a shard directory in a fresh database: its
         * version 1 is the topology's map, and shard moves publish the next ones.
         */
        public Settings withDirectory() {
            return new Settings(prefix, relayPollInterval, celebrityThreshold, pageSize, partitions, redis, true,
                    serviceProperties);
        }

        /** Every service of the pipeline also gets {@code properties} (added to, and winning over, earlier ones). */
        public Settings withServiceProperties(Map<String, String> properties) {
            Map<String, String> all = new LinkedHashMap<>(serviceProperties);
            all.putAll(properties);
            return new Settings(prefix, relayPollInterval, celebrityThreshold, pageSize, partitions, redis, directory,
                    all);
        }
    }

    /** How often the services (and this pipeline's own pools) read the shard directory. */
    public static final Duration DIRECTORY_POLL = Duration.ofMillis(200);

    private final TestShards shards;
    private final Directory directory;
    private final ServiceProcess write;
    private final ServiceProcess cdc;
    private final ShardDataSources dataSources;
    private final String topic;
    private final Map<String, String> checkProperties;

    private Pipeline(TestShards shards, Directory directory, ServiceProcess write, ServiceProcess cdc,
                     ShardDataSources dataSources, String topic, Map<String, String> checkProperties) {
        this.shards = shards;
        this.directory = directory;
        this.write = write;
        this.cdc = cdc;
        this.dataSources = dataSources;
        this.topic = topic;
        this.checkProperties = Map.copyOf(checkProperties);
    }

    /**
     * Creates the databases, Redis database (unless {@link Settings#redis()} names one) and topics, then starts the
     * write service, which migrates the shards, and then the consumer; each is ready when this returns.
     *
     * @throws IllegalStateException when a service does not become ready within {@link #STARTUP} (its log's tail is
     *                               in the message) or its exec jar is missing; whatever was started is stopped
     */
    public static Pipeline start(Settings settings) {
        TestShards shards = TestShards.create(settings.prefix());
        Redis redis = settings.redis();
        if (redis == null) {
            RedisServer server = TestServers.redis();
            redis = Redis.standalone(server.uri(server.freshDatabase()));
        }
        KafkaServer kafka = TestServers.kafka();
        String topic = kafka.createTopic(settings.prefix().replace('_', '-') + "-follow-events",
                settings.partitions());
        String dltTopic = kafka.createTopic(topic + ".DLT", 1);

        Directory directory = settings.directory() ? Directory.create(settings.prefix(), shards) : null;
        Map<String, String> shardProps = new LinkedHashMap<>(shards.springProperties());
        if (directory != null) {
            shardProps.put("graph.shards.directory.jdbc-url", directory.jdbcUrl());
            shardProps.put("graph.shards.directory.poll-interval", DIRECTORY_POLL.toMillis() + "ms");
        }
        Map<String, String> common = new LinkedHashMap<>(shardProps);
        common.put("spring.main.banner-mode", "off");
        common.put("logging.level.org.apache.kafka", "warn");
        common.put("logging.level.kafka", "warn");

        Map<String, String> writeProps = new LinkedHashMap<>(common);
        // The write service owns the schema and migrates it at start-up, so it starts first.
        writeProps.put("graph.shards.migrate-on-startup", "true");
        writeProps.put("graph.write.topic", topic);
        writeProps.put("graph.write.token-secret", TOKEN_SECRET);
        writeProps.put("graph.write.redis.uri", redis.uri());
        writeProps.put("graph.write.redis.mode", redis.mode());
        writeProps.put("graph.write.relay.bootstrap-servers", kafka.bootstrapServers());
        writeProps.put("graph.write.relay.poll-interval", settings.relayPollInterval().toMillis() + "ms");

        Map<String, String> cdcProps = new LinkedHashMap<>(common);
        cdcProps.put("spring.kafka.bootstrap-servers", kafka.bootstrapServers());
        cdcProps.put("spring.kafka.listener.poll-timeout", "500ms");
        cdcProps.put("graph.shards.migrate-on-startup", "false");
        cdcProps.put("graph.shards.pool-size", "4");
        cdcProps.put("graph.cdc.topic", topic);
        cdcProps.put("graph.cdc.dlt-topic", dltTopic);
        cdcProps.put("graph.cdc.group-id", "cdc-" + topic);
        cdcProps.put("graph.cdc.redis-uri", redis.uri());
        cdcProps.put("graph.cdc.redis-mode", redis.mode());
        cdcProps.put("graph.cdc.celebrity-threshold", Long.toString(settings.celebrityThreshold()));
        cdcProps.put("graph.cdc.page-size", Integer.toString(settings.pageSize()));
        cdcProps.put("graph.cdc.retry-backoff", "200ms");

        Map<String, String> checkProps = new LinkedHashMap<>(shardProps);
        checkProps.put("graph.shards.migrate-on-startup", "false");
        checkProps.put("graph.check.token-secret", TOKEN_SECRET);
        checkProps.put("graph.check.redis-uri", redis.uri());
        checkProps.put("graph.check.redis-mode", redis.mode());
        checkProps.put("graph.check.bloom.kafka-bootstrap", kafka.bootstrapServers());
        checkProps.put("graph.check.bloom.topic", topic);
        // The follower-side cache learns what the cdc-consumer applied from this group's committed offsets.
        checkProps.put("graph.check.follower-side.cdc-group", "cdc-" + topic);
        checkProps.put("logging.level.org.apache.kafka", "warn");
        writeProps.putAll(settings.serviceProperties());
        cdcProps.putAll(settings.serviceProperties());
        checkProps.putAll(settings.serviceProperties());

        ServiceProcess write = null;
        ServiceProcess cdc = null;
        try {
            write = ServiceProcess.start("follow-write-service", writeProps, STARTUP);
            cdc = ServiceProcess.start("cdc-consumer", cdcProps, STARTUP);
            ShardDataSources dataSources = new ShardDataSources(shards.shardMap(), new ShardDataSources.PoolSettings(
                    shards.username(), shards.password(), 4, Duration.ofSeconds(10), "e2e"));
            if (directory != null) {
                directory.follow(dataSources);
            }
            return new Pipeline(shards, directory, write, cdc, dataSources, topic, checkProps);
        } catch (RuntimeException e) {
            try {
                closeAll(cdc, write, directory, shards);
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /**
     * Settings for a follow-check-service on this pipeline's shards, Redis and topic, to run with
     * {@link ServiceProcess}; its follow-token secret is the write service's, so the tokens of the write replies are
     * valid there.
     *
     * @return shard map, Redis URI and mode, token secret, broker and topic; copy to add or override before starting
     */
    public Map<String, String> checkServiceProperties() {
        return checkProperties;
    }

    /** The service credential both services were started with ({@code X-Service-Token}). */
    public String serviceToken() {
        return ServiceProcess.SERVICE_TOKEN;
    }

    /** The write service's HTTP port (127.0.0.1). */
    public int writePort() {
        return write.port();
    }

    /** The cdc-consumer's HTTP port (127.0.0.1). */
    public int cdcPort() {
        return cdc.port();
    }

    /** The write service's management port (127.0.0.1): its actuator endpoints. */
    public int writeManagementPort() {
        return write.managementPort();
    }

    /** The cdc-consumer's management port (127.0.0.1): its actuator endpoints. */
    public int cdcManagementPort() {
        return cdc.managementPort();
    }

    /** The topic both services use. */
    public String topic() {
        return topic;
    }

    /**
     * The shard directory the services route by, with {@link Settings#withDirectory()}.
     *
     * @return it, or empty without a directory
     */
    public Optional<ShardDirectory> directory() {
        return Optional.ofNullable(directory).map(Directory::directory);
    }

    /** JDBC URL of the shard directory's database; throws without {@link Settings#withDirectory()}. */
    public String directoryUrl() {
        if (directory == null) {
            throw new IllegalStateException("this pipeline has no shard directory (Settings.withDirectory())");
        }
        return directory.jdbcUrl();
    }

    /** The shard topology's databases and credentials. */
    public TestShards shards() {
        return shards;
    }

    /**
     * Pools over the shard databases (both groups), this JVM's own, for reading what the services wrote. With a
     * directory they follow its newest map as the services do (polled every {@link #DIRECTORY_POLL}).
     */
    public ShardDataSources dataSources() {
        return dataSources;
    }

    /** {@code followerId}'s following row, read from the database the shard map names. */
    public Optional<FollowingRow> followingRow(long followerId) {
        try (Connection c = dataSources.forUser(ShardGroup.FOLLOWING, followerId).getConnection()) {
            return new FollowingRepository().find(c, followerId);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code followeeId}'s follower row, read from the database the shard map names. */
    public Optional<FollowerRow> followerRow(long followeeId) {
        try (Connection c = dataSources.forUser(ShardGroup.FOLLOWER, followeeId).getConnection()) {
            return new FollowerRepository().find(c, followeeId);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The follower side of {@code followeeId}, row then celebrity pages in page order, read in one transaction.
     *
     * @return the row (or an empty one) and every page
     */
    public FollowerSide followerSide(long followeeId) {
        try (Connection c = dataSources.forUser(ShardGroup.FOLLOWER, followeeId).getConnection()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try {
                FollowerRow row = new FollowerRepository().find(c, followeeId).orElse(FollowerRow.empty(followeeId));
                List<CelebrityPage> pages = new CelebrityPageRepository().all(c, followeeId);
                return new FollowerSide(row, pages);
            } finally {
                c.rollback();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A followee's follower row and celebrity pages at one moment.
     *
     * @param row   the row (count, version, celebrity flag, and the followers while not a celebrity)
     * @param pages the celebrity pages in page order, empty while not a celebrity
     */
    public record FollowerSide(FollowerRow row, List<CelebrityPage> pages) {

        /** Every follower as {@code {followerId, followedAt}}, row first, then pages in order. */
        public List<long[]> entries() {
            List<long[]> all = new ArrayList<>();
            for (int i = 0; i < row.followerIds().length; i++) {
                all.add(new long[] {row.followerIds()[i], row.followedAt()[i]});
            }
            for (CelebrityPage page : pages) {
                for (int i = 0; i < page.followerIds().length; i++) {
                    all.add(new long[] {page.followerIds()[i], page.followedAt()[i]});
                }
            }
            return all;
        }
    }

    /**
     * Stops the consumer, then the write service (each gracefully: SIGTERM, its relays and listener finish), then
     * closes the pools and drops the databases.
     */
    @Override
    public void close() {
        closeAll(cdc, write, directory, dataSources, shards);
    }

    /** The shard directory's database, its directory and the poller that keeps this pipeline's pools current. */
    private static final class Directory implements AutoCloseable {
        private final PostgresServer postgres;
        private final String database;
        private final ShardDirectory directory;
        private ShardMapPoller poller;

        private Directory(PostgresServer postgres, String database, ShardDirectory directory) {
            this.postgres = postgres;
            this.database = database;
            this.directory = directory;
        }

        /** A fresh database with the directory's tables and the topology's map as version 1. */
        static Directory create(String prefix, TestShards shards) {
            PostgresServer postgres = TestServers.postgres();
            String database = postgres.createDatabase(prefix + "_directory");
            ShardDirectory directory = new ShardDirectory(postgres.dataSource(database));
            try {
                directory.install();
                directory.bootstrap(shards.shardMap());
            } catch (SQLException e) {
                postgres.dropDatabase(database);
                throw new IllegalStateException("cannot set up the shard directory " + database, e);
            }
            return new Directory(postgres, database, directory);
        }

        String jdbcUrl() {
            return postgres.jdbcUrl(database);
        }

        ShardDirectory directory() {
            return directory;
        }

        void follow(ShardDataSources dataSources) {
            poller = new ShardMapPoller(directory, dataSources, "e2e-pipeline", DIRECTORY_POLL);
        }

        @Override
        public void close() {
            if (poller != null) {
                poller.close();
            }
            postgres.dropDatabase(database);
        }
    }

    /** Closes each in order, every one even when an earlier one fails; the first failure is thrown. */
    private static void closeAll(AutoCloseable... resources) {
        RuntimeException failure = null;
        for (AutoCloseable resource : resources) {
            if (resource == null) {
                continue;
            }
            try {
                resource.close();
            } catch (Exception e) {
                RuntimeException wrapped = e instanceof RuntimeException r ? r : new IllegalStateException(e);
                if (failure == null) {
                    failure = wrapped;
                } else {
                    failure.addSuppressed(wrapped);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
