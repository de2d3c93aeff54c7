package dev.socialgraph.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.store.shard.ShardDirectory;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code ./graph shards move|show} without a fleet: the tools command line each builds (directory URL, credentials,
 * the target's JDBC URL on the right server), their usage errors, and when an import is refused because shards were
 * moved.
 */
class ShardsTest {

    private static final String DIRECTORY = "jdbc:postgresql://127.0.0.1:15432/graph_directory";

    static Stores.Endpoints oneServer() {
        return new Stores.Endpoints(List.of(new Stores.HostPort("127.0.0.1", 15432)), "postgres", "", "127.0.0.1",
                16379, List.of(), "127.0.0.1:19092");
    }

    static Stores.Endpoints twoServers() {
        return new Stores.Endpoints(List.of(new Stores.HostPort("127.0.0.1", 15432),
                new Stores.HostPort("127.0.0.1", 15433)), "postgres", "secret", "127.0.0.1", 16379, List.of(),
                "127.0.0.1:19092");
    }

    @Test
    void move_onOneServer_fillsInDirectoryCredentialsAndTheTargetOnTheSourcesServer() {
        Stores.Endpoints stores = oneServer();

        assertThat(Shards.moveArguments(stores, Shards.configuredMap(stores), "following", "128-191",
                "graph_following_2", null)).containsExactly("shards", "move",
                "--group", "following",
                "--shards", "128-191",
                "--to-database", "graph_following_2",
                "--to-url", "jdbc:postgresql://127.0.0.1:15432/graph_following_2",
                "--directory-url", DIRECTORY,
                "--username", "postgres",
                "--password", "",
                "--create-database");
    }

    @Test
    void move_onTwoServers_defaultsToTheServerHoldingTheShards_andServerNChoosesAnother() {
        Stores.Endpoints stores = twoServers();
        ShardMap map = Shards.configuredMap(stores);

        // graph_follower_1 is on the second server (ShardServers.spread(2)), graph_following_1 on the first.
        assertThat(Shards.moveArguments(stores, map, "FOLLOWER", "200-255", "graph_follower_2", null))
                .containsSubsequence("--to-url", "jdbc:postgresql://127.0.0.1:15433/graph_follower_2")
                .containsSubsequence("--directory-url", DIRECTORY)
                .containsSubsequence("--password", "secret");
        assertThat(Shards.moveArguments(stores, map, "following", "128-191", "graph_following_2", null))
                .containsSubsequence("--to-url", "jdbc:postgresql://127.0.0.1:15432/graph_following_2");
        assertThat(Shards.moveArguments(stores, map, "following", "128-191", "graph_following_2", 1))
                .containsSubsequence("--to-url", "jdbc:postgresql://127.0.0.1:15433/graph_following_2");
        assertThat(Shards.moveArguments(stores, map, "following", "7", "graph_following_2", 0))
                .containsSubsequence("--shards", "7-7");
    }

    @Test
    void move_backToADatabaseOfTheMap_keepsThatDatabasesServer() {
        Stores.Endpoints stores = twoServers();
        ShardMap moved = Shards.configuredMap(stores).reassign(ShardGroup.FOLLOWER, 128, 191, "graph_follower_2",
                "jdbc:postgresql://127.0.0.1:15432/graph_follower_2");

        assertThat(Shards.moveArguments(stores, moved, "follower", "128-191", "graph_follower_1", null))
                .containsSubsequence("--to-url", "jdbc:postgresql://127.0.0.1:15433/graph_follower_1");
    }

    @Test
    void move_badValues_nameTheOption() {
        Stores.Endpoints stores = twoServers();
        ShardMap map = Shards.configuredMap(stores);

        assertThatThrownBy(() -> Shards.moveArguments(stores, map, "followee", "0-1", "d", null))
                .hasMessageContaining("--group must be following or follower");
        for (String shards : List.of("191-128", "0-256", "a-b", "-1", "")) {
            assertThatThrownBy(() -> Shards.moveArguments(stores, map, "following", shards, "d", null))
                    .as(shards).hasMessageContaining("--shards must be A-B with 0 <= A <= B <= 255");
        }
        for (String database : List.of("Graph", "1db", "a-b", "x".repeat(64))) {
            assertThatThrownBy(() -> Shards.moveArguments(stores, map, "following", "0-1", database, null))
                    .as(database).hasMessageContaining("--to must be a lower-case PostgreSQL name");
        }
        assertThatThrownBy(() -> Shards.moveArguments(stores, map, "following", "0-1", "graph_directory", null))
                .hasMessageContaining("is the shard directory");
        assertThatThrownBy(() -> Shards.moveArguments(stores, map, "following", "0-1", "d", 2))
                .hasMessageContaining("--server 2: this fleet has 2 PostgreSQL server(s), numbered 0..1");
        ShardMap spread = map.reassign(ShardGroup.FOLLOWING, 100, 127, "graph_following_2",
                "jdbc:postgresql://127.0.0.1:15433/graph_following_2");
        assertThatThrownBy(() -> Shards.moveArguments(stores, spread, "following", "0-127", "d", null))
                .hasMessageContaining("are on several servers (127.0.0.1:15432, 127.0.0.1:15433)")
                .hasMessageContaining("--server N");
    }

    @Test
    void show_fillsInDirectoryAndCredentials() {
        assertThat(Shards.showArguments(twoServers())).containsExactly("shards", "show", "--directory-url", DIRECTORY,
                "--username", "postgres", "--password", "secret");
    }

    @Test
    void commandLine_parsesMoveAndShowUnderShards() {
        CommandLine cli = new CommandLine(new GraphLauncher());
        CommandLine.ParseResult parsed = cli.parseArgs("shards", "move", "--group", "following", "--shards",
                "128-191", "--to", "graph_following_2", "--server", "1");
        Shards.Move move = (Shards.Move) parsed.subcommand().subcommand().commandSpec().userObject();
        assertThat(move.group).isEqualTo("following");
        assertThat(move.range).isEqualTo("128-191");
        assertThat(move.database).isEqualTo("graph_following_2");
        assertThat(move.server).isEqualTo(1);

        assertThat(new CommandLine(new GraphLauncher()).parseArgs("shards", "show").subcommand().subcommand()
                .commandSpec().userObject()).isInstanceOf(Shards.Show.class);
        assertThatThrownBy(() -> new CommandLine(new GraphLauncher()).parseArgs("shards", "move", "--group",
                "following")).hasMessageContaining("Missing required options");
    }

    @Test
    void configuredMap_isTheLocalTopologyOnTheServersTheServicesAreGiven() {
        ShardMap map = Shards.configuredMap(twoServers());

        assertThat(map.logicalShardCount()).isEqualTo(256);
        assertThat(map.rangeOfShard(ShardGroup.FOLLOWING, 127).jdbcUrl())
                .isEqualTo("jdbc:postgresql://127.0.0.1:15432/graph_following_0");
        assertThat(map.rangeOfShard(ShardGroup.FOLLOWING, 128).jdbcUrl())
                .isEqualTo("jdbc:postgresql://127.0.0.1:15432/graph_following_1");
        assertThat(map.rangeOfShard(ShardGroup.FOLLOWER, 0).jdbcUrl())
                .isEqualTo("jdbc:postgresql://127.0.0.1:15433/graph_follower_0");
        assertThat(map.rangeOfShard(ShardGroup.FOLLOWER, 255).jdbcUrl())
                .isEqualTo("jdbc:postgresql://127.0.0.1:15433/graph_follower_1");
    }

    @Test
    void importRefusal_noDirectoryOrVersionOne_letsTheImportRun() {
        ShardMap configured = Shards.configuredMap(oneServer());

        assertThat(Shards.importRefusal(configured, Optional.empty())).isEmpty();
        assertThat(Shards.importRefusal(configured, Optional.of(new ShardDirectory.Versioned(1, configured))))
                .isEmpty();
    }

    @Test
    void importRefusal_movedShards_refusesNamingThemAndHowToMoveThemBack() {
        ShardMap configured = Shards.configuredMap(oneServer());
        ShardMap moved = configured.reassign(ShardGroup.FOLLOWING, 128, 191, "graph_following_2",
                "jdbc:postgresql://127.0.0.1:15432/graph_following_2");

        assertThat(Shards.importRefusal(configured, Optional.of(new ShardDirectory.Versioned(2, moved))))
                .hasValueSatisfying(message -> assertThat(message)
                        .contains("shard map version 2 of graph_directory")
                        .contains("following 128-191 on graph_following_2 (configured: graph_following_1)")
                        .contains("./graph shards move --group following --shards 128-191 --to graph_following_1")
                        .contains("--dataset FILE"));
    }

    @Test
    void importRefusal_movedAcrossTheConfiguredSplit_namesOneRunPerConfiguredDatabase() {
        ShardMap configured = Shards.configuredMap(oneServer());
        ShardMap moved = configured.reassign(ShardGroup.FOLLOWER, 100, 150, "graph_follower_2",
                "jdbc:postgresql://127.0.0.1:15432/graph_follower_2");

        assertThat(Shards.importRefusal(configured, Optional.of(new ShardDirectory.Versioned(2, moved))))
                .hasValueSatisfying(message -> assertThat(message)
                        .contains("follower 100-127 on graph_follower_2 (configured: graph_follower_0), "
                                + "follower 128-150 on graph_follower_2 (configured: graph_follower_1)"));
    }

    @Test
    void importRefusal_everyShardMovedBack_letsTheImportRunAtAnyVersion() {
        ShardMap configured = Shards.configuredMap(oneServer());
        ShardMap back = configured.reassign(ShardGroup.FOLLOWING, 128, 191, "graph_following_2",
                        "jdbc:postgresql://127.0.0.1:15432/graph_following_2")
                .reassign(ShardGroup.FOLLOWING, 128, 191, "graph_following_1",
                        "jdbc:postgresql://127.0.0.1:15432/graph_following_1");

        assertThat(Shards.importRefusal(configured, Optional.of(new ShardDirectory.Versioned(3, back)))).isEmpty();
    }
}
