package dev.socialgraph.e2e;

import dev.socialgraph.cdc.CdcConsumerApplication;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.CelebrityPage;
import dev.socialgraph.store.CelebrityPageRepository;
import dev.socialgraph.store.FollowerRepository;
import dev.socialgraph.store.FollowerRow;
import dev.socialgraph.store.FollowingRepository;
import dev.socialgraph.store.FollowingRow;
import dev.socialgraph.store.ShardDataSources;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.ServiceProcess;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import dev.socialgraph.write.FollowWriteServiceApplication;
import java.net.URL;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The write pipeline in this JVM: follow-write-service (HTTP, shard transaction, outbox relay) and cdc-consumer
 * (follower side), each its own Spring application on a random port, sharing a fresh {@link TestShards}
 * topology, one fresh Redis database and one fresh Kafka topic from test-support's servers (embedded by
 * default, external through its {@code GRAPH_TEST_*} variables).
 *
 * <p>Both services have a {@code classpath:application.yml}, and on one classpath only the first is found. Each
 * application is therefore pointed at the file inside its own jar (or classes directory) with
 * {@code spring.config.location}, and every setting here is passed as a command-line argument, which outranks
 * that file. Auto-configurations apply to both applications; the only one that matters is Spring Kafka's
 * (cdc-consumer's dependency), which in the write service creates templates and an admin but no listener
 * container, because the listener lives in the cdc-consumer's package, which the write service does not scan.
 */
public final class Pipeline implements AutoCloseable {

    /**
     * What a pipeline varies.
     *
     * @param prefix             lower-case name for its databases, topic and consumer group
     * @param relayPollInterval  the outbox relay's pause when its outbox is drained
     * @param celebrityThreshold follower count at which cdc-consumer moves a row into pages
     * @param pageSize           followers per celebrity page
     * @param partitions         partitions of the fresh topic
     */
    public record Settings(String prefix, Duration relayPollInterval, long celebrityThreshold, int pageSize,
                           int partitions) {

        /** The services' own defaults (relay 200 ms, threshold 1,000,000, pages of 100,000), 4 partitions. */
        public static Settings defaults(String prefix) {
            return new Settings(prefix, Duration.ofMillis(200), 1_000_000, 100_000, 4);
        }

        public Settings withRelayPollInterval(Duration interval) {
            return new Settings(prefix, interval, celebrityThreshold, pageSize, partitions);
        }

        public Settings withCelebrityPages(long threshold, int size) {
            return new Settings(prefix, relayPollInterval, threshold, size, partitions);
        }
    }

    private final TestShards shards;
    private final ConfigurableApplicationContext write;
    private final ConfigurableApplicationContext cdc;
    private final ShardDataSources dataSources;
    private final String topic;
    private final Map<String, String> checkProperties;

    private Pipeline(TestShards shards, ConfigurableApplicationContext write, ConfigurableApplicationContext cdc,
                     String topic, Map<String, String> checkProperties) {
        this.shards = shards;
        this.checkProperties = Map.copyOf(checkProperties);
        this.write = write;
        this.cdc = cdc;
        this.dataSources = write.getBean(ShardDataSources.class);
        this.topic = topic;
    }

    /** Creates the databases, Redis database and topics, then starts the write service and the consumer. */
    public static Pipeline start(Settings settings) {
        TestShards shards = TestShards.create(settings.prefix());
        RedisServer redis = TestServers.redis();
        String redisUri = redis.uri(redis.freshDatabase());
        KafkaServer kafka = TestServers.kafka();
        String topic = kafka.createTopic(settings.prefix().replace('_', '-') + "-follow-events",
                settings.partitions());
        String dltTopic = kafka.createTopic(topic + ".DLT", 1);

        Map<String, String> common = new LinkedHashMap<>(shards.springProperties());
        common.put("server.port", "0");
        common.put("spring.main.banner-mode", "off");
        common.put("logging.level.org.apache.kafka", "warn");
        common.put("logging.level.kafka", "warn");
        common.put("spring.kafka.bootstrap-servers", kafka.bootstrapServers());
        // Both services refuse requests without it; the configs loaded here are the services' own, which read it
        // from GRAPH_SERVICE_TOKEN, so it is given explicitly.
        common.put("graph.service-token", ServiceProcess.SERVICE_TOKEN);

        Map<String, String> writeProps = new LinkedHashMap<>(common);
        writeProps.put("spring.application.name", "follow-write-service");
        writeProps.put("spring.config.location", ownConfig(FollowWriteServiceApplication.class));
        // The write service owns the schema and migrates it at start-up, so it starts first.
        writeProps.put("graph.shards.migrate-on-startup", "true");
        writeProps.put("graph.write.topic", topic);
        writeProps.put("graph.write.redis.uri", redisUri);
        writeProps.put("graph.write.relay.bootstrap-servers", kafka.bootstrapServers());
        writeProps.put("graph.write.relay.poll-interval", settings.relayPollInterval().toMillis() + "ms");

        Map<String, String> cdcProps = new LinkedHashMap<>(common);
        cdcProps.put("spring.application.name", "cdc-consumer");
        cdcProps.put("spring.config.location", ownConfig(CdcConsumerApplication.class));
        cdcProps.put("graph.shards.migrate-on-startup", "false");
        cdcProps.put("graph.shards.pool-size", "4");
        cdcProps.put("graph.cdc.topic", topic);
        cdcProps.put("graph.cdc.dlt-topic", dltTopic);
        cdcProps.put("graph.cdc.group-id", "cdc-" + topic);
        cdcProps.put("graph.cdc.redis-uri", redisUri);
        cdcProps.put("graph.cdc.celebrity-threshold", Long.toString(settings.celebrityThreshold()));
        cdcProps.put("graph.cdc.page-size", Integer.toString(settings.pageSize()));
        cdcProps.put("graph.cdc.retry-backoff", "200ms");
        cdcProps.put("spring.kafka.listener.poll-timeout", "500ms");

        ConfigurableApplicationContext write = null;
        try {
            write = run(FollowWriteServiceApplication.class, writeProps);
            ConfigurableApplicationContext cdc = run(CdcConsumerApplication.class, cdcProps);
            Map<String, String> checkProps = new LinkedHashMap<>(shards.springProperties());
            checkProps.put("graph.shards.migrate-on-startup", "false");
            checkProps.put("graph.check.redis-uri", redisUri);
            checkProps.put("graph.check.bloom.kafka-bootstrap", kafka.bootstrapServers());
            checkProps.put("graph.check.bloom.topic", topic);
            checkProps.put("logging.level.org.apache.kafka", "warn");
            return new Pipeline(shards, write, cdc, topic, checkProps);
        } catch (RuntimeException e) {
            if (write != null) {
                write.close();
            }
            shards.close();
            throw e;
        }
    }

    private static ConfigurableApplicationContext run(Class<?> application, Map<String, String> properties) {
        String[] args = properties.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue())
                .toArray(String[]::new);
        return new SpringApplicationBuilder(application).registerShutdownHook(false).run(args);
    }

    /** The {@code application.yml} next to {@code application}'s classes: in its jar or its classes directory. */
    static String ownConfig(Class<?> application) {
        URL location = application.getProtectionDomain().getCodeSource().getLocation();
        String url = location.toString();
        return url.endsWith(".jar") ? "jar:" + url + "!/application.yml" : url + "application.yml";
    }

    /**
     * Settings for a follow-check-service on this pipeline's shards, Redis and topic, to run from its jar
     * ({@code ServiceProcess}: it is a reactive application, and this JVM's classpath makes Spring choose a servlet
     * one).
     *
     * @return shard map, Redis URI, broker and topic; add or override before starting
     */
    public Map<String, String> checkServiceProperties() {
        return checkProperties;
    }

    /** The service credential both services were started with ({@code X-Service-Token}). */
    public String serviceToken() {
        return ServiceProcess.SERVICE_TOKEN;
    }

    /** The write service's HTTP port. */
    public int writePort() {
        return write.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    /** The write service's application context. */
    public ConfigurableApplicationContext writeContext() {
        return write;
    }

    /** The cdc-consumer's application context. */
    public ConfigurableApplicationContext cdcContext() {
        return cdc;
    }

    /** The topic both services use. */
    public String topic() {
        return topic;
    }

    /** The write service's pools over the shard databases (both groups). */
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

    /** Stops the consumer, then the write service (and its relays), then drops the databases. */
    @Override
    public void close() {
        try {
            cdc.close();
        } finally {
            try {
                write.close();
            } finally {
                shards.close();
            }
        }
    }
}
