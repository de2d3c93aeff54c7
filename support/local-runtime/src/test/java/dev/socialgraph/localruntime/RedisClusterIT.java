package dev.socialgraph.localruntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A local cluster of real processes, three masters and three replicas, used as the services use one: a Lettuce
 * cluster client with periodic (1 s) and adaptive topology refresh writes and reads keys; the master of one key's
 * slot is killed with SIGKILL, its replica takes over, and the same client reads and writes that slot again.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterIT {

    @TempDir
    static Path dir;

    private static RedisCluster cluster;
    private static RedisClusterClient client;
    private static StatefulRedisClusterConnection<String, String> connection;

    @BeforeAll
    static void startCluster() {
        Assumptions.assumeTrue(RedisCluster.available(), "redis-cli is not installed");
        cluster = RedisCluster.start(dir, RedisCluster.freePorts(6), 3, 1);
        client = RedisClusterClient.create(cluster.seeds().stream()
                .map(seed -> RedisURI.create("redis://" + seed)).toList());
        client.setOptions(ClusterClientOptions.builder()
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(Duration.ofSeconds(1))
                        .enableAllAdaptiveRefreshTriggers()
                        .build())
                .build());
        connection = client.connect();
        connection.setTimeout(Duration.ofSeconds(2));
    }

    @AfterAll
    static void stopCluster() {
        if (connection != null) {
            connection.close();
        }
        if (client != null) {
            client.shutdown();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void start_formsThreeMastersWithOneReplicaEach_servingEverySlot() {
        assertThat(cluster.ports()).hasSize(6);
        assertThat(cluster.uris().split(",")).hasSize(6).allMatch(uri -> uri.startsWith("redis://127.0.0.1:"));
        List<RedisCluster.Node> topology = RedisCluster.topology(cluster.seeds());
        assertThat(topology).filteredOn(RedisCluster.Node::master).hasSize(3)
                .allSatisfy(master -> assertThat(master.slotCount()).isGreaterThan(5_000));
        assertThat(topology).filteredOn(node -> !node.master()).hasSize(3);
        assertThat(topology.stream().mapToInt(RedisCluster.Node::slotCount).sum()).isEqualTo(RedisCluster.SLOTS);
        assertThat(cluster.pids()).hasSize(6);
    }

    @Test
    @Order(3)
    void killMasterOf_replicaTakesOver_andTheClusterClientReadsAndWritesTheSlotAgain() {
        RedisAdvancedClusterCommands<String, String> redis = connection.sync();
        for (int i = 0; i < 100; i++) {
            redis.set("user:" + i, "v" + i);
        }
        String key = "user:7";
        int master = cluster.masterOf(key);
        // Replication is asynchronous: make sure the replica has the key before its master dies.
        assertThat(connection.getConnection("127.0.0.1", master).sync().waitForReplication(1, 5_000)).isEqualTo(1);

        int killed = cluster.killMasterOf(key);
        cluster.awaitFailover();

        assertThat(killed).isEqualTo(master);
        assertThat(cluster.masterOf(key)).as("a replica serves the slot now").isNotEqualTo(killed);
        // The client learns the new topology from its periodic refresh or an adaptive trigger (connection lost,
        // MOVED); until then a command may time out.
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() ->
                assertThat(redis.get(key)).isEqualTo("v7"));
        redis.set(key, "after failover");
        assertThat(redis.get(key)).isEqualTo("after failover");
    }

    @Test
    @Order(2)
    void flushAll_emptiesEveryMaster() {
        RedisAdvancedClusterCommands<String, String> redis = connection.sync();
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
            redis.set("flush:a", "1");
            redis.set("flush:b", "2");
        });
        assertThat(redis.dbsize()).isGreaterThanOrEqualTo(2);

        cluster.flushAll();

        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().untilAsserted(() ->
                assertThat(redis.dbsize()).isZero());
    }
}
