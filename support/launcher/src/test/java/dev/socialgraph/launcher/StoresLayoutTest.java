package dev.socialgraph.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The stores' layouts without starting them: a Redis Cluster and several PostgreSQL servers, as the services, the
 * importer and {@code run/} see them. The standard layout's properties must stay what they were.
 */
class StoresLayoutTest {

    @TempDir
    Path dir;

    static Stores.Endpoints standalone() {
        return new Stores.Endpoints(List.of(new Stores.HostPort("127.0.0.1", 5432)), "postgres", "", "127.0.0.1", 6379,
                List.of(), "127.0.0.1:9092");
    }

    static Stores.Endpoints clusterAndTwoServers() {
        List<Stores.HostPort> nodes = new ArrayList<>();
        for (int port = 16380; port <= 16385; port++) {
            nodes.add(new Stores.HostPort("127.0.0.1", port));
        }
        return new Stores.Endpoints(List.of(new Stores.HostPort("127.0.0.1", 15432),
                new Stores.HostPort("127.0.0.1", 15433)), "postgres", "", null, 0, nodes, "127.0.0.1:19092");
    }

    @Test
    void spread_oneServer_keepsEveryDatabaseOnIt() {
        assertThat(ShardServers.spread(1)).containsOnlyKeys(ShardServers.DATABASES).allSatisfy((db, i) ->
                assertThat(i).isZero());
    }

    @Test
    void spread_twoOrMoreServers_neverPutsAGroupsFollowingAndFollowerDatabaseOnOneServer() {
        for (int servers = 2; servers <= PortPlan.MAX_POSTGRES_SERVERS; servers++) {
            Map<String, Integer> placement = ShardServers.spread(servers);
            for (int range = 0; range < 2; range++) {
                assertThat(placement.get("graph_following_" + range)).as("%d servers, range %d", servers, range)
                        .isNotEqualTo(placement.get("graph_follower_" + range));
            }
            assertThat(placement.values()).as("every server holds a database").containsAll(
                    IntStream.range(0, servers).boxed().toList());
        }
        assertThat(ShardServers.spread(2)).containsExactly(entry("graph_following_0", 0),
                entry("graph_follower_0", 1), entry("graph_following_1", 0), entry("graph_follower_1", 1));
        assertThatThrownBy(() -> ShardServers.spread(0)).hasMessageContaining("--postgres-servers");
        assertThatThrownBy(() -> ShardServers.spread(5)).hasMessageContaining("four databases");
    }

    @Test
    void theSpreadDatabases_areTheLocalShardMapsDatabases_eachWithItsServerPlaceholder() throws IOException {
        String yml;
        try (InputStream in = getClass().getResourceAsStream("/graph-shards-local.yml")) {
            assertThat(in).as("graph-store's graph-shards-local.yml on the classpath").isNotNull();
            yml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<String> databases = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^\\s+database: (\\S+)$").matcher(yml);
        while (m.find()) {
            databases.add(m.group(1));
        }
        assertThat(databases).containsExactlyInAnyOrderElementsOf(ShardServers.DATABASES);
        for (String database : databases) {
            assertThat(yml).contains("jdbc:postgresql://${graph.postgres.servers." + database
                    + ":${graph.postgres.host}:${graph.postgres.port}}/" + database);
        }
    }

    @Test
    void standardLayout_servicesGetOneRedisAndOnePostgres_asBefore() {
        Map<String, Map<String, String>> byName = properties(standalone());

        assertThat(byName.get(PortPlan.WRITE)).containsEntry("graph.write.redis.uri", "redis://127.0.0.1:6379")
                .doesNotContainKey("graph.write.redis.mode");
        assertThat(byName.get(PortPlan.CDC)).containsEntry("graph.cdc.redis-uri", "redis://127.0.0.1:6379")
                .doesNotContainKey("graph.cdc.redis-mode");
        assertThat(byName.get(PortPlan.CHECK)).containsEntry("graph.check.redis-uri", "redis://127.0.0.1:6379")
                .doesNotContainKey("graph.check.redis-mode");
        assertThat(byName.get(PortPlan.GATEWAY)).containsEntry("spring.data.redis.host", "127.0.0.1")
                .containsEntry("spring.data.redis.port", "6379")
                .doesNotContainKey("spring.data.redis.cluster.nodes");
        assertThat(byName.values()).allSatisfy(p -> assertThat(p.keySet())
                .noneMatch(k -> k.startsWith("graph.postgres.servers.")));
        assertThat(byName.get(PortPlan.RECONCILER)).containsEntry("graph.postgres.host", "127.0.0.1")
                .containsEntry("graph.postgres.port", "5432");
    }

    @Test
    void redisCluster_everyRedisClientGetsTheSeedsAndClusterMode() {
        Map<String, Map<String, String>> byName = properties(clusterAndTwoServers());
        String seeds = "redis://127.0.0.1:16380,redis://127.0.0.1:16381,redis://127.0.0.1:16382,"
                + "redis://127.0.0.1:16383,redis://127.0.0.1:16384,redis://127.0.0.1:16385";

        assertThat(byName.get(PortPlan.WRITE)).containsEntry("graph.write.redis.uri", seeds)
                .containsEntry("graph.write.redis.mode", "cluster");
        assertThat(byName.get(PortPlan.CDC)).containsEntry("graph.cdc.redis-uri", seeds)
                .containsEntry("graph.cdc.redis-mode", "cluster");
        assertThat(byName.get(PortPlan.CHECK)).containsEntry("graph.check.redis-uri", seeds)
                .containsEntry("graph.check.redis-mode", "cluster");
        assertThat(byName.get(PortPlan.GATEWAY))
                .containsEntry("spring.data.redis.cluster.nodes", "127.0.0.1:16380,127.0.0.1:16381,127.0.0.1:16382,"
                        + "127.0.0.1:16383,127.0.0.1:16384,127.0.0.1:16385")
                .containsEntry("spring.data.redis.lettuce.cluster.refresh.adaptive", "true")
                .containsEntry("spring.data.redis.lettuce.cluster.refresh.period", "1s")
                .doesNotContainKeys("spring.data.redis.host", "spring.data.redis.port");
    }

    @Test
    void twoPostgresServers_everyServiceAndTheImporterFindTheSpreadDatabases() {
        Stores.Endpoints stores = clusterAndTwoServers();
        Map<String, Map<String, String>> byName = properties(stores);

        for (String service : List.of(PortPlan.WRITE, PortPlan.CDC, PortPlan.CHECK, PortPlan.RECONCILER)) {
            assertThat(byName.get(service)).as(service)
                    .containsEntry("graph.postgres.host", "127.0.0.1")
                    .containsEntry("graph.postgres.port", "15432")
                    .containsEntry("graph.postgres.servers.graph_follower_0", "127.0.0.1:15433")
                    .containsEntry("graph.postgres.servers.graph_follower_1", "127.0.0.1:15433")
                    .doesNotContainKeys("graph.postgres.servers.graph_following_0",
                            "graph.postgres.servers.graph_following_1");
        }
        assertThat(stores.databaseServers()).hasSize(2);
    }

    @Test
    void shardDirectory_everyShardClientGetsItOnTheFirstServer_theGatewayNot() {
        Stores.Endpoints stores = clusterAndTwoServers();
        List<ServiceFleet.Spec> specs = Specs.of(new PortPlan(0), stores, new FleetDir(dir), 2000, 1000,
                new Instances(3, 2, 2));

        assertThat(stores.directoryUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:15432/graph_directory");
        assertThat(specs).filteredOn(s -> !s.name().equals(PortPlan.GATEWAY)).hasSize(8).allSatisfy(s ->
                assertThat(s.properties()).as(s.name())
                        .containsEntry("graph.shards.directory.jdbc-url", stores.directoryUrl()));
        assertThat(specs).filteredOn(s -> s.name().equals(PortPlan.GATEWAY)).singleElement().satisfies(s ->
                assertThat(s.properties().keySet()).noneMatch(k -> k.startsWith("graph.shards.")));
        // Only the first write instance may create the directory database (graph.shards.create-databases, the
        // write service's default); it is ready before any other shard client starts.
        assertThat(specs.get(0).properties()).doesNotContainKey("graph.shards.create-databases");
        assertThat(specs.get(1).properties()).containsEntry("graph.shards.create-databases", "false");
    }

    @Test
    void endpoints_roundTripThroughThePortsFile() {
        for (Stores.Endpoints stores : List.of(standalone(), clusterAndTwoServers())) {
            Properties ports = new Properties();
            stores.write(ports);
            assertThat(Stores.Endpoints.read(ports, "postgres", "")).isEqualTo(stores);
        }
    }

    @Test
    void layout_isRememberedByTheDataDirectory() throws IOException {
        FleetDir fleet = new FleetDir(dir);
        fleet.create();
        assertThat(fleet.layout()).isEmpty();
        fleet.writeLayout(new Stores.Layout(3, true), Instances.STANDARD);
        assertThat(fleet.layout()).hasValue(new Stores.Layout(3, true));
    }

    @Test
    void up_withoutOptions_startsTheRecordedLayout_andRefusesToMoveStoredDatabases() throws IOException {
        FleetDir fleet = new FleetDir(dir);
        fleet.create();
        assertThat(up().layout(fleet)).isEqualTo(Stores.Layout.STANDARD);
        fleet.writeLayout(new Stores.Layout(2, true), Instances.STANDARD);
        assertThat(up().layout(fleet)).isEqualTo(new Stores.Layout(2, true));
        assertThat(up("--no-redis-cluster").layout(fleet)).isEqualTo(new Stores.Layout(2, false));
        assertThat(up("--redis", "127.0.0.1:6379").layout(fleet)).as("an external Redis is never a local cluster")
                .isEqualTo(new Stores.Layout(2, false));

        Files.writeString(fleet.imported(), "dataset=none\n");
        assertThat(up("--postgres-servers", "2").layout(fleet)).isEqualTo(new Stores.Layout(2, true));
        assertThatThrownBy(() -> up("--postgres-servers", "1").layout(fleet))
                .hasMessageContaining("keeps its shard databases on 2 PostgreSQL server(s)");
        assertThatThrownBy(() -> up("--redis-cluster", "--redis", "127.0.0.1:6379").layout(fleet))
                .hasMessageContaining("cannot be combined with --redis");
    }

    @Test
    void portPlan_clusterNodesAndTheirBusesFollowRedis_andAnOffsetPast65535IsRefused() {
        PortPlan plan = new PortPlan(100);
        assertThat(plan.port(PortPlan.redisNode(0))).isEqualTo(16480);
        assertThat(plan.port(PortPlan.redisNode(5))).isEqualTo(16485);
        assertThat(plan.port(PortPlan.redisNode(5) + "-bus")).isEqualTo(26485);
        assertThat(plan.port(PortPlan.postgres(3))).isEqualTo(15535);
        assertThat(PortPlan.redisCluster()).hasSize(12);
        assertThatThrownBy(() -> new PortPlan(40_000).port(PortPlan.redisNode(0) + "-bus"))
                .hasMessageContaining("past 65535");
    }

    private static GraphLauncher.Up up(String... args) {
        GraphLauncher.Up up = new GraphLauncher.Up();
        new CommandLine(up).parseArgs(args);
        return up;
    }

    private Map<String, Map<String, String>> properties(Stores.Endpoints stores) {
        Map<String, Map<String, String>> byName = new HashMap<>();
        for (ServiceFleet.Spec spec : Specs.of(new PortPlan(0), stores, new FleetDir(dir), 2000, 1000, Instances.STANDARD)) {
            byName.put(spec.name(), spec.properties());
        }
        return byName;
    }
}
