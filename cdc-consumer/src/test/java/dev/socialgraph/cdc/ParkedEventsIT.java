package dev.socialgraph.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Events parked for a follower database that is down: over {@code max-parked-events} the consumer pauses its
 * partitions, and a consumer restarted meanwhile reads them again from the committed offset; nothing is lost.
 */
@SpringBootTest(classes = CdcConsumerApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
@DirtiesContext
class ParkedEventsIT {

    private static final TestShards SHARDS = TestShards.create("cdc_parked");
    private static final CdcHarness KAFKA = new CdcHarness("cdc-parked");
    private static final long T0 = 1_700_000_000_000L;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        KAFKA.properties(SHARDS).forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.cdc.max-parked-events", () -> "3");
    }

    @AfterAll
    static void close() {
        KAFKA.close();
        SHARDS.close();
    }

    @Autowired
    ShardDataSources dataSources;
    @Autowired
    KafkaListenerEndpointRegistry listeners;

    @Test
    void databaseDown_pastTheBound_pausesPartitions_andARestartLosesNoParkedEvent() throws Exception {
        long down = 256L * 100 + 3; // first follower database
        long up = 256L * 100 + 200; // second
        String downDatabase = SHARDS.shardMap().route(ShardGroup.FOLLOWER, down).database();
        DataSource admin = TestServers.postgres().dataSource(SHARDS.shardMap().route(ShardGroup.FOLLOWER, up).database());
        MessageListenerContainer container = listeners.getListenerContainer("cdc-consumer");
        setConnectionsAllowed(admin, downDatabase, false);
        try {
            TopicPartition partition = null;
            for (long follower = 1; follower <= 5; follower++) {
                partition = new TopicPartition(KAFKA.topic,
                        KAFKA.publish(FollowEvent.follow(follower, down, T0 + follower, 1, T0 + follower)).partition());
            }
            TopicPartition parked = partition;
            await().atMost(Duration.ofSeconds(30)).until(() -> container.isPartitionPaused(parked));
            assertThat(KAFKA.lag()).isEqualTo(5);
            container.stop(); // the parked events were never committed
        } finally {
            setConnectionsAllowed(admin, downDatabase, true);
        }

        // The new consumer reads them again; its partitions are not paused (the container makes new consumers).
        container.start();
        KAFKA.publish(FollowEvent.follow(1, up, T0 + 1, 2, T0 + 1));
        KAFKA.awaitCaughtUp();
        assertThat(CdcHarness.followers(dataSources, down)).containsExactly(new long[] {1, T0 + 1},
                new long[] {2, T0 + 2}, new long[] {3, T0 + 3}, new long[] {4, T0 + 4}, new long[] {5, T0 + 5});
        assertThat(CdcHarness.row(dataSources, down).orElseThrow().followerCount()).isEqualTo(5);
        assertThat(CdcHarness.followers(dataSources, up)).containsExactly(new long[] {1, T0 + 1});
        assertThat(container.getAssignedPartitions()).noneMatch(container::isPartitionPauseRequested);
    }

    private static void setConnectionsAllowed(DataSource admin, String database, boolean allowed) throws Exception {
        try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("ALTER DATABASE \"" + database + "\" ALLOW_CONNECTIONS " + allowed);
            if (!allowed) {
                statement.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
                        + database + "' AND pid <> pg_backend_pid()");
            }
        }
    }
}
