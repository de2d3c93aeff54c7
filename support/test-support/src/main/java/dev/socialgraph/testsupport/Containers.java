package dev.socialgraph.testsupport;

import org.apache.kafka.common.utils.AppInfoParser;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Starts the servers of the opt-in Docker path ({@code GRAPH_TEST_CONTAINERS=true}). Kept apart so
 * that Testcontainers' classes load only when it is used.
 */
final class Containers {

    static final String POSTGRES_IMAGE = "postgres:17";
    static final String REDIS_IMAGE = "redis:7";
    /** The broker image matching the Kafka client on the classpath, e.g. {@code apache/kafka:4.2.1}. */
    static final String KAFKA_IMAGE = "apache/kafka:" + AppInfoParser.getVersion();

    private static final int REDIS_PORT = 6379;

    private Containers() {
    }

    /** Whether a Docker engine answers; false rather than an exception when none does. */
    static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    static PostgresServer postgres() {
        PostgreSQLContainer container = new PostgreSQLContainer(DockerImageName.parse(POSTGRES_IMAGE))
                .withUsername("postgres")
                .withDatabaseName("postgres");
        // Test data need not survive a crash; services open a pool per shard database.
        container.withCommand("postgres", "-c", "fsync=off", "-c", "full_page_writes=off",
                "-c", "max_connections=300");
        container.start();
        return PostgresServer.fromAdminUrl(Source.CONTAINERS, container.getJdbcUrl(), container.getUsername(),
                container.getPassword(), container::stop);
    }

    static RedisServer redis() {
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(REDIS_IMAGE))
                .withExposedPorts(REDIS_PORT);
        container.start();
        return new RedisServer(Source.CONTAINERS, "redis", null, container.getHost(),
                container.getMappedPort(REDIS_PORT), container::stop);
    }

    /** The apache/kafka image runs a combined broker and controller in KRaft mode. */
    static KafkaServer kafka() {
        KafkaContainer container = new KafkaContainer(DockerImageName.parse(KAFKA_IMAGE));
        container.start();
        return new KafkaServer(Source.CONTAINERS, container.getBootstrapServers(), container::stop);
    }
}
