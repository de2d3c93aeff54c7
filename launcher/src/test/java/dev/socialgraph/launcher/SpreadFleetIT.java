package dev.socialgraph.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.runtime.RedisCluster;
import dev.socialgraph.runtime.RedisProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ./graph up --redis-cluster --postgres-servers 2}: the fleet on a local Redis Cluster of six processes and
 * two PostgreSQL servers with the shard databases spread over them. A follow through the gateway reaches the
 * follower side (on the second server), {@code status} shows the cluster, {@code import} empties every master, and
 * {@code down} leaves no Redis node running. Skipped where {@code redis-cli} is missing.
 */
class SpreadFleetIT {

    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();

    private static Path dataDir;
    private static PortPlan ports;
    private static String gateway;

    @BeforeAll
    static void startFleet() throws Exception {
        Assumptions.assumeTrue(RedisCluster.available(), "redis-cli is not installed");
        dataDir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "spread-fleet-it-");
        Path graph = dataDir.resolve("graph.tsv");
        Files.writeString(graph, "1\t2\n2\t3\n3\t1\n4\t1\n");
        ports = new PortPlan(PortPlan.freeTestOffset(new Random()));
        gateway = "http://127.0.0.1:" + ports.port(PortPlan.GATEWAY);

        Result up = graph("up", "--detach", "--redis-cluster", "--postgres-servers", "2", "--dataset",
                graph.toString(), "--port-offset", Integer.toString(ports.offset()));
        assertThat(up.code()).as("./graph up output:\n%s", up.output()).isZero();
        assertThat(up.output()).contains("Redis Cluster 127.0.0.1:" + ports.port(PortPlan.redisNode(0)),
                "PostgreSQL 127.0.0.1:" + ports.port(PortPlan.postgres(0)) + " 127.0.0.1:"
                        + ports.port(PortPlan.postgres(1)));
    }

    @AfterAll
    static void stopFleet() throws Exception {
        if (dataDir != null) {
            graph("down");
        }
    }

    @Test
    void aFollowReachesTheFollowerSide_onTheSecondServer_throughTheCluster() throws Exception {
        String token = DevTokens.mint(Files.readString(dataDir.resolve("jwt-secret")).strip(), 5, Duration.ofHours(1),
                Instant.now());
        HttpResponse<String> put = http.send(HttpRequest.newBuilder(URI.create(gateway + "/v1/me/following/1"))
                .header("Authorization", "Bearer " + token).PUT(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);

        // graph_follower_0 and graph_follower_1 live on the second server (ShardServers.spread(2)).
        String url = "jdbc:postgresql://127.0.0.1:" + ports.port(PortPlan.postgres(1)) + "/postgres";
        try (Connection c = DriverManager.getConnection(url, "postgres", "");
             ResultSet rs = c.createStatement().executeQuery("SELECT datname FROM pg_database ORDER BY datname")) {
            List<String> databases = new ArrayList<>();
            while (rs.next()) {
                databases.add(rs.getString(1));
            }
            assertThat(databases).contains("graph_follower_0", "graph_follower_1")
                    .doesNotContain("graph_following_0", "graph_following_1");
        }
        await().atMost(2, TimeUnit.MINUTES).untilAsserted(() -> {
            HttpResponse<String> followers = http.send(HttpRequest.newBuilder(
                            URI.create(gateway + "/v1/users/1/followers?limit=10"))
                    .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(followers.body()).contains("\"userId\":5", "\"userId\":3", "\"userId\":4");
        });

        Result status = graph("status");
        assertThat(status.output()).contains("redis cluster 127.0.0.1:" + ports.port(PortPlan.redisNode(0)),
                "cluster_state ok", "3 replicas");

        Result imported = graph("import", dataDir.resolve("graph.tsv").toString());
        assertThat(imported.code()).as(imported.output()).isZero();
        for (int i = 0; i < PortPlan.REDIS_CLUSTER_NODES; i++) {
            assertThat(RedisProcess.command("127.0.0.1", ports.port(PortPlan.redisNode(i)), "DBSIZE"))
                    .as("keys on node %d after the import's flush", i).startsWith(":0");
        }
    }

    private record Result(int code, String output) {
    }

    private static Result graph(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", REPO.resolve("graph").toString(), "--no-build"));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("GRAPH_DATA_DIR", dataDir.toString());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Path log = dataDir.resolve("graph-" + args[0] + "-" + System.nanoTime() + ".out");
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        if (!p.waitFor(15, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("./graph " + String.join(" ", args) + " did not finish:\n"
                    + Files.readString(log));
        }
        return new Result(p.exitValue(), Files.readString(log));
    }
}
