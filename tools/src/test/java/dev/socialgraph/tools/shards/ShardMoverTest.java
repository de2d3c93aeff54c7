package dev.socialgraph.tools.shards;

import static dev.socialgraph.common.shard.ShardGroup.FOLLOWER;
import static dev.socialgraph.common.shard.ShardGroup.FOLLOWING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.tools.GraphTool;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The pure parts of a shard move: parsing, validation against the map, key order, the report. No server. */
class ShardMoverTest {

    private static final String URL = "jdbc:postgresql://127.0.0.1:5432/";

    /** Following 0..127 in f0, 128..255 in f1; follower likewise in r0, r1. */
    private static ShardMap map() {
        List<ShardRange> ranges = new ArrayList<>();
        for (ShardGroup group : ShardGroup.values()) {
            String p = group == FOLLOWING ? "f" : "r";
            ranges.add(new ShardRange(group, 0, 127, p + "0", URL + p + "0"));
            ranges.add(new ShardRange(group, 128, 255, p + "1", URL + p + "1"));
        }
        return ShardMap.of(256, ranges);
    }

    private static ShardMover.Request move(ShardGroup group, int first, int last, String database) {
        return new ShardMover.Request(group, first, last, database, URL + database, false);
    }

    @Test
    void parseShards_range_returnsBothEndsInclusive() {
        assertThat(ShardMover.parseShards("128-191", 256)).containsExactly(128, 191);
        assertThat(ShardMover.parseShards(" 0-255 ", 256)).containsExactly(0, 255);
    }

    @Test
    void parseShards_oneShard_isARangeOfOne() {
        assertThat(ShardMover.parseShards("7", 256)).containsExactly(7, 7);
    }

    @Test
    void parseShards_reversedOrPastTheLastShard_isRejectedNamingTheBounds() {
        assertThatThrownBy(() -> ShardMover.parseShards("191-128", 256))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("within 0-255");
        assertThatThrownBy(() -> ShardMover.parseShards("200-256", 256))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("200-256");
    }

    @Test
    void parseShards_notARange_isRejectedWithAnExample() {
        for (String bad : new String[] {"", "a-b", "-1", "1-", "1..5", "1-2-3", null}) {
            assertThatThrownBy(() -> ShardMover.parseShards(bad, 256))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("e.g. 128-191");
        }
    }

    @Test
    void parseGroup_anyCase_returnsTheGroup() {
        assertThat(ShardMover.parseGroup("following")).isEqualTo(FOLLOWING);
        assertThat(ShardMover.parseGroup("FOLLOWER")).isEqualTo(FOLLOWER);
        assertThatThrownBy(() -> ShardMover.parseGroup("followers"))
                .hasMessage("shard group must be following or follower, was 'followers'");
    }

    @Test
    void request_withANameOrUrlTheMoverCannotUse_isRejected() {
        assertThatThrownBy(() -> move(FOLLOWING, 0, 1, "Graph-2")).hasMessageContaining("lower-case identifier");
        assertThatThrownBy(() -> new ShardMover.Request(FOLLOWING, 0, 1, "g2", "jdbc:mysql://h/g2", false))
                .hasMessageContaining("jdbc:postgresql://");
        assertThatThrownBy(() -> move(FOLLOWING, 5, 4, "g2")).hasMessageContaining("not a range");
    }

    @Test
    void source_rangeWithinOneDatabase_isThatDatabasesRange() {
        assertThat(ShardMover.source(map(), move(FOLLOWING, 128, 191, "f2")))
                .hasValueSatisfying(r -> assertThat(r.database()).isEqualTo("f1"));
        assertThat(ShardMover.source(map(), move(FOLLOWER, 0, 0, "f1")))
                .hasValueSatisfying(r -> assertThat(r.database()).isEqualTo("r0"));
    }

    @Test
    void source_rangeAcrossTwoDatabases_isRefused() {
        assertThatThrownBy(() -> ShardMover.source(map(), move(FOLLOWING, 120, 130, "f2")))
                .isInstanceOf(ShardMoveException.class).hasMessageContaining("span several ranges")
                .hasMessageContaining("one database at a time");
    }

    @Test
    void source_rangeAlreadyInTheTarget_isEmpty() {
        assertThat(ShardMover.source(map(), move(FOLLOWING, 130, 140, "f1"))).isEmpty();
        ShardMap moved = map().reassign(FOLLOWING, 128, 191, "f2", URL + "f2");
        assertThat(ShardMover.source(moved, move(FOLLOWING, 128, 191, "f2"))).isEmpty();
        assertThat(ShardMover.source(moved, move(FOLLOWING, 192, 200, "f2")).map(ShardRange::database))
                .hasValue("f1");
    }

    @Test
    void source_afterAMove_rangeSpanningTheMovedPart_isRefused() {
        ShardMap moved = map().reassign(FOLLOWING, 128, 191, "f2", URL + "f2");
        assertThatThrownBy(() -> ShardMover.source(moved, move(FOLLOWING, 180, 200, "f0")))
                .isInstanceOf(ShardMoveException.class).hasMessageContaining("span several ranges");
    }

    @Test
    void source_targetNameOfAnotherDatabase_isRefused() {
        ShardMover.Request clash = new ShardMover.Request(FOLLOWING, 0, 10, "f1", URL + "elsewhere", false);
        assertThatThrownBy(() -> ShardMover.source(map(), clash)).isInstanceOf(ShardMoveException.class)
                .hasMessageContaining("clashes with database f1");
    }

    @Test
    void source_shardsPastTheMapsLastShard_isRefused() {
        ShardMap small = ShardMap.of(16, List.of(new ShardRange(FOLLOWING, 0, 15, "f0", URL + "f0"),
                new ShardRange(FOLLOWER, 0, 15, "r0", URL + "r0")));
        assertThatThrownBy(() -> ShardMover.source(small, move(FOLLOWING, 8, 16, "f2")))
                .isInstanceOf(ShardMoveException.class).hasMessageContaining("not within 0..15");
    }

    @Test
    void compare_keys_isLexicographicBySignedValue() {
        assertThat(RangeCopier.compare(new long[] {1, 0}, new long[] {1, 2})).isNegative();
        assertThat(RangeCopier.compare(new long[] {2, 0}, new long[] {1, 2})).isPositive();
        assertThat(RangeCopier.compare(new long[] {5, 1, 3}, new long[] {5, 1, 3})).isZero();
    }

    @Test
    void tables_ofEachGroup_leaveTheOutboxOut() {
        assertThat(RangeCopier.tables(FOLLOWING)).extracting(RangeCopier.Table::name)
                .containsExactly("following_adjacency", "account_states", "account_jobs", "count_exclusions",
                        "count_offsets");
        assertThat(RangeCopier.tables(FOLLOWER)).extracting(RangeCopier.Table::name)
                .containsExactly("follower_adjacency", "celebrity_followers_page", "count_exclusions",
                        "count_offsets");
    }

    @Test
    void ranges_ofShards_joinsNeighbours() {
        assertThat(ShardsCommand.ranges(List.of(1, 2, 3, 7, 9, 10))).isEqualTo("1..3, 7, 9..10");
        assertThat(ShardsCommand.ranges(List.of())).isEmpty();
    }

    @Test
    void report_ofAMove_namesRoundsFenceAndVersions() {
        MoveSummary summary = new MoveSummary(FOLLOWING, 128, 191, "f1", "f2", 1, 2,
                List.of(new MoveSummary.Round(1200, 0, 80), new MoveSummary.Round(14, 1, 9)),
                new MoveSummary.Round(2, 0, 3), 41, 12, List.of(), 1200, 900);
        assertThat(summary.report()).contains("following shards 128..191: f1 -> f2, shard map version 1 -> 2")
                .contains("copy round 1: 1,200 rows copied, 0 deleted, 80 ms")
                .contains("final round (fenced): 2 rows copied").contains("fence held 41 ms (outbox drain 12 ms)")
                .contains("1,200 rows of the range deleted from f1");
        assertThat(summary.alreadyThere()).isFalse();
    }

    @Test
    void cli_moveWithBadShards_isAUsageErrorBeforeConnecting() {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new GraphTool());
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute("shards", "move", "--group", "following", "--shards", "191-128", "--to-database",
                "g2", "--to-url", "jdbc:postgresql://127.0.0.1:1/g2", "--directory-url",
                "jdbc:postgresql://127.0.0.1:1/dir");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("191-128");
    }
}
