package dev.socialgraph.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The opt-in Docker path ({@code GRAPH_TEST_CONTAINERS=true}), started directly rather than through
 * {@link TestServers} so that it runs whatever the environment chose. Skipped where no Docker engine
 * answers.
 */
@Tag("docker")
@EnabledIf("dockerAvailable")
class ContainersIT {

    static boolean dockerAvailable() {
        return Containers.dockerAvailable();
    }

    @Test
    void postgres_createUseAndDropDatabase() throws Exception {
        PostgresServer postgres = Containers.postgres();
        try {
            String database = postgres.createDatabase("container");
            try (Connection connection = postgres.dataSource(database).getConnection();
                    Statement statement = connection.createStatement();
                    ResultSet row = statement.executeQuery("SELECT current_database(), current_setting('server_version_num')")) {
                assertThat(row.next()).isTrue();
                assertThat(row.getString(1)).isEqualTo(database);
                assertThat(row.getInt(2)).isBetween(170_000, 179_999);
            }
            postgres.dropDatabase(database);
        } finally {
            postgres.close();
        }
    }

    @Test
    void redis_freshDatabaseSetAndGet() throws Exception {
        RedisServer redis = Containers.redis();
        RedisClient client = RedisClient.create();
        try (StatefulRedisConnection<String, String> connection = client.connect(RedisURI.create(redis.uri(redis.freshDatabase())))) {
            connection.sync().set("key", "value");

            assertThat(connection.sync().get("key")).isEqualTo("value");
            assertThat(connection.sync().info("server")).contains("redis_version:7.");
        } finally {
            client.shutdown();
            redis.close();
        }
    }

    @Test
    void kafka_createTopicProduceAndConsume() throws Exception {
        KafkaServer kafka = Containers.kafka();
        try {
            String topic = kafka.createTopic("container", 2);
            try (KafkaProducer<String, String> producer = KafkaClients.durableProducer(kafka.bootstrapServers())) {
                producer.send(new ProducerRecord<>(topic, "1", "one")).get(30, TimeUnit.SECONDS);
            }

            assertThat(KafkaClients.consume(kafka.bootstrapServers(), topic, 1)).singleElement()
                    .satisfies(record -> assertThat(record.value()).isEqualTo("one"));
        } finally {
            kafka.close();
        }
    }
}
