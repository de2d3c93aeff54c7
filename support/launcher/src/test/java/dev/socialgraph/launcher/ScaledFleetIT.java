package dev.socialgraph.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.shard.ShardAffinity;
import dev.socialgraph.localruntime.RedisCluster;
import dev.socialgraph.localruntime.RepositoryRoot;
import dev.socialgraph.wire.Headers;
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
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The multi-machine shape on one machine, in one fleet (one start: CI time):
 * {@code ./graph up --check-instances 3 --write-instances 2 --cdc-instances 2 --redis-cluster --postgres-servers 2}
 * on a four-edge graph. A follow through the gateway is answered by its follower's check instance, follows sent to
 * each write instance on its own port are visible through the gateway, both cdc-consumers are members of the one
 * consumer group and the follower side converges on the second PostgreSQL server, {@code status} shows every instance
 * and the Redis Cluster, and {@code down} leaves none of them running. Skipped where {@code redis-cli} is missing.
 */
class ScaledFleetIT {

    private static final Path REPO = RepositoryRoot.find();
    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();
    private static final List<String> CHECK_IDS = List.of("check-0", "check-1", "check-2");

    private static Path dataDir;
    private static PortPlan ports;
    private static String gateway;
    private static boolean stopped;

    @BeforeAll
    static void startFleet() throws Exception {
        Assumptions.assumeTrue(RedisCluster.available(), "redis-cli is not installed");
        dataDir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "scaled-fleet-it-");
        Path graph = dataDir.resolve("graph.tsv");
        Files.writeString(graph, "1\t2\n2\t3\n3\t1\n4\t1\n");
        ports = new PortPlan(PortPlan.freeTestOffset(new Random()));
        gateway = "http://127.0.0.1:" + ports.port(PortPlan.GATEWAY);

        Result up = graph("up", "--detach", "--check-instances", "3", "--write-instances", "2", "--cdc-instances", "2",
                "--redis-cluster", "--postgres-servers", "2", "--dataset", graph.toString(), "--port-offset", Integer.toString(ports.offset()));
        assertThat(up.code()).as("./graph up output:\n%s", up.output()).isZero();
        assertThat(up.output()).contains("check :" + ports.port(PortPlan.check(0)) + " :"
                + ports.port(PortPlan.check(1)) + " :" + ports.port(PortPlan.check(2)) + "  write :"
                + ports.port(PortPlan.write(0)) + " :" + ports.port(PortPlan.write(1)) + "  cdc-consumer :"
                + ports.port(PortPlan.cdc(0)) + " :" + ports.port(PortPlan.cdc(1)),
                "Redis Cluster 127.0.0.1:" + ports.port(PortPlan.redisNode(0)),
                "PostgreSQL 127.0.0.1:" + ports.port(PortPlan.postgres(0)) + " 127.0.0.1:"
                        + ports.port(PortPlan.postgres(1)));
    }

    @AfterAll
    static void stopFleet() throws Exception {
        if (dataDir != null && !stopped) {
            graph("down");
        }
    }

    @Test
    void everyInstanceServes_andDownStopsThemAll() throws Exception {
        // Through the gateway: user 101 follows 1, and its check instance (the owner of its logical shard) says so.
        HttpResponse<String> follow = send(HttpRequest.newBuilder(URI.create(gateway + "/v1/me/following/1"))
                .header("Authorization", "Bearer " + token(101)).PUT(HttpRequest.BodyPublishers.noBody()));
        assertThat(follow.statusCode()).as(follow.body()).isEqualTo(200);
        // Straight to each write instance: 102 through the first, 103 through the second.
        String serviceToken = Files.readString(dataDir.resolve("service-token")).strip();
        for (int i = 0; i < 2; i++) {
            long actor = 102 + i;
            HttpResponse<String> direct = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                            + ports.port(PortPlan.write(i)) + "/internal/v1/users/" + actor + "/following/1"))
                    .header(Headers.SERVICE_TOKEN, serviceToken).PUT(HttpRequest.BodyPublishers.noBody()));
            assertThat(direct.statusCode()).as("%s: %s", PortPlan.write(i), direct.body()).isEqualTo(200);
        }
        for (long actor = 101; actor <= 103; actor++) {
            String owner = ShardAffinity.owner((int) Math.floorMod(actor, 256L), CHECK_IDS);
            long a = actor;
            await().atMost(2, TimeUnit.MINUTES).untilAsserted(() -> {
                HttpResponse<String> check = send(HttpRequest.newBuilder(
                        URI.create(gateway + "/v1/users/" + a + "/following/1")).header("Authorization", "Bearer " + token(a)));
                assertThat(check.body()).as("%d follows 1", a).contains("\"following\":true");
                assertThat(check.headers().firstValue("X-Served-By")).hasValue(owner);
            });
        }

        // Both cdc-consumers share the partitions of one group; the follower side converges.
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                "127.0.0.1:" + ports.port(PortPlan.KAFKA)))) {
            await().atMost(2, TimeUnit.MINUTES).untilAsserted(() -> {
                ConsumerGroupDescription group = admin.describeConsumerGroups(List.of("cdc-consumer")).all()
                        .get(10, TimeUnit.SECONDS).get("cdc-consumer");
                assertThat(group.members()).hasSize(2).allSatisfy(m ->
                        assertThat(m.assignment().topicPartitions()).isNotEmpty());
                assertThat(group.members().stream().mapToInt(m -> m.assignment().topicPartitions().size()).sum())
                        .isEqualTo(12);
            });
        }
        await().atMost(2, TimeUnit.MINUTES).untilAsserted(() -> assertThat(
                send(HttpRequest.newBuilder(URI.create(gateway + "/v1/users/1/followers?limit=10"))
                        .header("Authorization", "Bearer " + token(1))).body())
                .contains("\"userId\":101", "\"userId\":102", "\"userId\":103", "\"userId\":3", "\"userId\":4"));

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

        List<String> names = List.of(PortPlan.GATEWAY, PortPlan.check(0), PortPlan.check(1), PortPlan.check(2),
                PortPlan.write(0), PortPlan.write(1), PortPlan.cdc(0), PortPlan.cdc(1), PortPlan.RECONCILER);
        Result status = graph("status");
        assertThat(status.output()).contains("redis cluster 127.0.0.1:" + ports.port(PortPlan.redisNode(0)),
                "cluster_state ok", "3 replicas");
        List<Long> pids = new ArrayList<>();
        for (String name : names) {
            String row = status.output().lines().filter(l -> l.startsWith(name + " ")).findFirst()
                    .orElseThrow(() -> new AssertionError(name + " missing in:\n" + status.output()));
            assertThat(row).as(name).contains(" ready ", String.valueOf(ports.port(name)));
            pids.add(Long.parseLong(Files.readString(dataDir.resolve("run/" + name + ".pid")).strip()));
        }

        Result down = graph("down");
        stopped = true;
        assertThat(down.code()).as(down.output()).isZero();
        assertThat(pids).allSatisfy(pid -> assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive))
                .as("pid %d after down", pid).isEmpty());
    }

    private static String token(long user) throws Exception {
        return DevTokens.mint(Files.readString(dataDir.resolve("jwt-secret")).strip(), user, Duration.ofHours(1),
                Instant.now());
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private record Result(int code, String output) {
    }

    private static Result graph(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", REPO.resolve("graph").toString(), "--no-build"));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("GRAPH_DATA_DIR", dataDir.toString());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        // The C1 compiler only, as ServiceProcess's test services: these fleets live for one test class, and C2's
        // compile threads would take the two cores from five starting JVMs. What is tested does not depend on it.
        pb.environment().put("GRAPH_JAVA_OPTS", "-XX:TieredStopAtLevel=1");
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
