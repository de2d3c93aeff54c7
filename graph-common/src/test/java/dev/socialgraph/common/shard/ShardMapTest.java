package dev.socialgraph.common.shard;

import static dev.socialgraph.common.shard.ShardGroup.FOLLOWER;
import static dev.socialgraph.common.shard.ShardGroup.FOLLOWING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ShardMapTest {

    private static ShardRange r(ShardGroup g, int first, int last, String db) {
        return new ShardRange(g, first, last, db, "jdbc:postgresql://127.0.0.1:5432/" + db);
    }

    private static final ShardMap LOCAL = ShardMap.of(256, List.of(
            r(FOLLOWING, 0, 127, "graph_following_0"), r(FOLLOWING, 128, 255, "graph_following_1"),
            r(FOLLOWER, 0, 127, "graph_follower_0"), r(FOLLOWER, 128, 255, "graph_follower_1")));

    @Test
    void logicalShard_isFloorModOfTheUserId() {
        assertThat(LOCAL.logicalShard(1)).isEqualTo(1);
        assertThat(LOCAL.logicalShard(256)).isZero();
        assertThat(LOCAL.logicalShard(383)).isEqualTo(127);
        assertThat(LOCAL.logicalShard(384)).isEqualTo(128);
        assertThat(LOCAL.logicalShard(Long.MAX_VALUE)).isEqualTo(255);
        // Never negative, even for ids the API rejects.
        assertThat(LOCAL.logicalShard(-1)).isEqualTo(255);
        assertThat(LOCAL.logicalShard(Long.MIN_VALUE)).isZero();
    }

    @Test
    void route_picksTheDatabaseOfTheGroupsRange() {
        assertThat(LOCAL.route(FOLLOWING, 383).database()).isEqualTo("graph_following_0");
        assertThat(LOCAL.route(FOLLOWING, 384).database()).isEqualTo("graph_following_1");
        assertThat(LOCAL.route(FOLLOWER, 384).database()).isEqualTo("graph_follower_1");
        assertThat(LOCAL.route(FOLLOWER, 813286).database())
                .isEqualTo(Math.floorMod(813286, 256) < 128 ? "graph_follower_0" : "graph_follower_1");
    }

    @Test
    void databases_listsEachPhysicalDatabaseOnceFollowingFirst() {
        ShardMap shared = ShardMap.of(4, List.of(r(FOLLOWING, 0, 1, "a"), r(FOLLOWING, 2, 3, "b"),
                r(FOLLOWER, 0, 3, "a")));
        assertThat(shared.databases().values()).containsExactly("a", "b");
        assertThat(LOCAL.databases().values())
                .containsExactly("graph_following_0", "graph_following_1", "graph_follower_0", "graph_follower_1");
    }

    @Test
    void of_whenRangesLeaveAGap_namesTheGroupAndTheMissingShards() {
        assertThatThrownBy(() -> ShardMap.of(256, List.of(
                r(FOLLOWING, 0, 99, "f0"), r(FOLLOWING, 128, 255, "f1"), r(FOLLOWER, 0, 255, "g"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("FOLLOWING")
                .hasMessageContaining("100..127")
                .hasMessageContaining("gap");
    }

    @Test
    void of_whenTheTailIsUncovered_namesTheMissingShards() {
        assertThatThrownBy(() -> ShardMap.of(256, List.of(r(FOLLOWING, 0, 255, "f"), r(FOLLOWER, 0, 200, "g"))))
                .hasMessageContaining("FOLLOWER").hasMessageContaining("201..255");
    }

    @Test
    void of_whenAGroupIsMissing_reportsTheWholeRangeAsAGap() {
        assertThatThrownBy(() -> ShardMap.of(8, List.of(r(FOLLOWING, 0, 7, "f"))))
                .hasMessageContaining("FOLLOWER").hasMessageContaining("0..7");
    }

    @Test
    void of_whenRangesOverlap_namesTheShardAndBothDatabases() {
        assertThatThrownBy(() -> ShardMap.of(256, List.of(
                r(FOLLOWING, 0, 130, "f0"), r(FOLLOWING, 128, 255, "f1"), r(FOLLOWER, 0, 255, "g"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("logical shard 128 is assigned twice")
                .hasMessageContaining("f0").hasMessageContaining("f1");
    }

    @Test
    void of_whenARangeGoesPastTheLastShard_saysSo() {
        assertThatThrownBy(() -> ShardMap.of(128, List.of(r(FOLLOWING, 0, 255, "f"), r(FOLLOWER, 0, 127, "g"))))
                .hasMessageContaining("past the last logical shard 127");
    }

    @Test
    void shardRange_rejectsEmptyAndNegativeRanges() {
        assertThatThrownBy(() -> r(FOLLOWING, 5, 4, "x")).hasMessageContaining("lastShard (4) must be >= firstShard (5)");
        assertThatThrownBy(() -> r(FOLLOWING, -1, 4, "x")).hasMessageContaining("firstShard must be >= 0");
        assertThatThrownBy(() -> new ShardRange(FOLLOWING, 0, 1, " ", "jdbc:x")).hasMessageContaining("database name");
    }

    @Test
    void rangeOfShard_rejectsShardsOutsideTheMap() {
        assertThat(LOCAL.rangeOfShard(FOLLOWER, 128).database()).isEqualTo("graph_follower_1");
        assertThatThrownBy(() -> LOCAL.rangeOfShard(FOLLOWER, 256)).hasMessageContaining("outside 0..255");
    }

    @Test
    void reassign_cutsTheRangeOut_leavesTheOtherGroup_andMovingBackGivesTheOriginalMap() {
        ShardMap moved = LOCAL.reassign(FOLLOWING, 128, 191, "graph_following_2",
                "jdbc:postgresql://127.0.0.1:5432/graph_following_2");

        assertThat(moved.ranges(FOLLOWING)).extracting(ShardRange::toString).containsExactly(
                "FOLLOWING[0..127]->graph_following_0", "FOLLOWING[128..191]->graph_following_2",
                "FOLLOWING[192..255]->graph_following_1");
        assertThat(moved.ranges(FOLLOWER)).isEqualTo(LOCAL.ranges(FOLLOWER));
        assertThat(moved.route(FOLLOWING, 128 + 256).database()).isEqualTo("graph_following_2");
        assertThat(moved.route(FOLLOWING, 192).database()).isEqualTo("graph_following_1");

        ShardMap back = moved.reassign(FOLLOWING, 128, 191, "graph_following_1",
                "jdbc:postgresql://127.0.0.1:5432/graph_following_1");
        assertThat(back).isEqualTo(LOCAL);
        assertThat(back.ranges(FOLLOWING)).hasSize(2);
    }

    @Test
    void reassign_toTheNeighboursDatabase_joinsTheRanges() {
        ShardMap joined = LOCAL.reassign(FOLLOWER, 128, 129, "graph_follower_0",
                "jdbc:postgresql://127.0.0.1:5432/graph_follower_0");
        assertThat(joined.ranges(FOLLOWER)).extracting(ShardRange::toString).containsExactly(
                "FOLLOWER[0..129]->graph_follower_0", "FOLLOWER[130..255]->graph_follower_1");
    }

    @Test
    void reassign_refusesShardsOutsideTheMap() {
        assertThatThrownBy(() -> LOCAL.reassign(FOLLOWING, 200, 256, "x", "jdbc:postgresql://h/x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("200..256");
        assertThatThrownBy(() -> LOCAL.reassign(FOLLOWING, 5, 4, "x", "jdbc:postgresql://h/x"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
