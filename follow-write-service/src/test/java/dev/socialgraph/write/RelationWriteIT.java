package dev.socialgraph.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.outbox.OutboxEntry;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Blocks and mutes over HTTP against real shard databases: the rows and outbox of each relation, the follows a block
 * removes and refuses (both ways, across databases), idempotent repeats, bad input and a block racing follows. The
 * relay is off: what the event consumer does with the events is tested in the cdc-consumer and e2e modules.
 */
@DirtiesContext
@SpringBootTest(classes = FollowWriteServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class RelationWriteIT {

    private static final TestShards SHARDS = TestShards.create("write_relation");
    private static final RedisServer REDIS = TestServers.redis();
    private static final String REDIS_URI = REDIS.uri(REDIS.freshDatabase());

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.write.redis.uri", () -> REDIS_URI);
        registry.add("graph.write.relay.enabled", () -> false);
    }

    @AfterAll
    static void close() {
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    ShardDataSources dataSources;

    @Autowired
    ShardMap shardMap;

    WriteHttp http;
    ShardRows rows;

    @BeforeEach
    void setUp() {
        http = new WriteHttp(port);
        rows = new ShardRows(dataSources);
    }

    /** Logical shard 5 (first following database) and 200 (second), offset by {@code n} so tests do not meet. */
    private static long firstDb(int n) {
        return 256L * (10_000 + n) + 5;
    }

    private static long secondDb(int n) {
        return 256L * (10_000 + n) + 200;
    }

    @Test
    void block_removesTheBlockersFollow_inOneTransaction_andLeavesTheReverseFollowToTheConsumer() {
        long blocker = firstDb(1);
        long blocked = secondDb(1);
        assertThat(shardMap.route(ShardGroup.FOLLOWING, blocker).database())
                .isNotEqualTo(shardMap.route(ShardGroup.FOLLOWING, blocked).database());
        assertThat(http.follow(blocker, blocked).status()).isEqualTo(200);
        assertThat(http.follow(blocked, blocker).status()).isEqualTo(200);

        WriteHttp.Reply reply = http.relation("blocking", true, blocker, blocked);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().get("userId").asLong()).isEqualTo(blocker);
        assertThat(reply.body().get("targetId").asLong()).isEqualTo(blocked);
        assertThat(reply.body().get("relation").asString()).isEqualTo("block");
        assertThat(reply.body().get("active").asBoolean()).isTrue();
        assertThat(reply.body().get("version").asLong()).isEqualTo(1);
        assertThat(reply.body().get("followToken").asString()).hasSize(64);
        long createdAt = reply.body().get("createdAt").asLong();
        assertThat(rows.followingRow(blocker).orElseThrow().followingIds()).doesNotContain(blocked);
        assertThat(rows.row(Relation.BLOCK, blocker).orElseThrow().followingIds()).containsExactly(blocked);
        assertThat(rows.row(Relation.BLOCK, blocker).orElseThrow().followedAt()).containsExactly(createdAt);
        assertThat(rows.outboxOf(blocker)).extracting(OutboxEntry::type).containsExactly(
                FollowEvent.Type.FOLLOW, FollowEvent.Type.UNFOLLOW, FollowEvent.Type.BLOCK);
        assertThat(rows.outboxOf(blocker).getLast().version()).isEqualTo(1);
        // The blocked user's follow lives on the other database: the block's event removes it there.
        assertThat(rows.followingRow(blocked).orElseThrow().followingIds()).containsExactly(blocker);
    }

    @Test
    void whileABlockStands_neitherSideCanFollow_andNothingIsWritten() {
        long blocker = secondDb(2);
        long blocked = firstDb(2);
        assertThat(http.relation("blocking", true, blocker, blocked).status()).isEqualTo(200);
        long before = rows.totalRows();

        WriteHttp.Reply blockedFollows = http.follow(blocked, blocker);
        WriteHttp.Reply blockerFollows = http.follow(blocker, blocked);

        assertThat(blockedFollows.status()).isEqualTo(403);
        assertThat(blockedFollows.contentType()).startsWith("application/problem+json");
        assertThat(blockedFollows.body().get("type").asString()).isEqualTo("https://socialgraph.dev/problems/blocked");
        assertThat(blockerFollows.status()).isEqualTo(409);
        assertThat(blockerFollows.contentType()).startsWith("application/problem+json");
        assertThat(blockerFollows.body().get("type").asString())
                .isEqualTo("https://socialgraph.dev/problems/blocking");
        assertThat(blockerFollows.body().get("parameter").asString()).isEqualTo("followeeId");
        assertThat(rows.totalRows()).isEqualTo(before);
        assertThat(rows.followingRow(blocked)).isEmpty();
        assertThat(rows.followingRow(blocker).orElseThrow().followingIds()).isEmpty();
    }

    @Test
    void unblock_restoresNoFollow_andFollowsWorkAgain() {
        long blocker = firstDb(3);
        long blocked = secondDb(3);
        http.follow(blocker, blocked);
        http.relation("blocking", true, blocker, blocked);

        WriteHttp.Reply unblock = http.relation("blocking", false, blocker, blocked);

        assertThat(unblock.status()).isEqualTo(200);
        assertThat(unblock.body().get("active").asBoolean()).isFalse();
        assertThat(unblock.body().get("createdAt").isNull()).isTrue();
        assertThat(rows.followingRow(blocker).orElseThrow().followingIds()).isEmpty();
        assertThat(rows.outboxOf(blocker).getLast().type()).isEqualTo(FollowEvent.Type.UNBLOCK);
        assertThat(http.follow(blocked, blocker).status()).isEqualTo(200);
        assertThat(http.follow(blocker, blocked).status()).isEqualTo(200);
    }

    @Test
    void repeats_writeNothing_andKeepTheFirstTime() {
        long user = firstDb(4);
        long target = secondDb(4);
        WriteHttp.Reply first = http.relation("muting", true, user, target);
        List<OutboxEntry> outbox = rows.outboxOf(user);

        WriteHttp.Reply again = http.relation("muting", true, user, target);

        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body().get("createdAt").asLong()).isEqualTo(first.body().get("createdAt").asLong());
        assertThat(again.body().get("version").asLong()).isEqualTo(1);
        assertThat(rows.outboxOf(user)).isEqualTo(outbox);
        assertThat(http.relation("blocking", false, user, target).body().get("version").asLong()).isZero();
        assertThat(http.relation("muting", false, user, target).body().get("version").asLong()).isEqualTo(2);
        assertThat(http.relation("muting", false, user, target).body().get("version").asLong()).isEqualTo(2);
    }

    /** The removal an unfollow runs too (FollowWriteIT has the unfollow's case): no row, nothing locked or written. */
    @Test
    void unblockAndUnmute_ofUserWithoutRows_replyUnchangedAndCreateNothing() {
        long user = secondDb(8);
        long target = firstDb(8);
        long before = rows.totalRows();

        for (String list : List.of("blocking", "muting")) {
            WriteHttp.Reply reply = http.relation(list, false, user, target);

            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.body().get("active").asBoolean()).isFalse();
            assertThat(reply.body().get("createdAt").isNull()).isTrue();
            assertThat(reply.body().get("version").asLong()).isZero();
        }
        assertThat(rows.totalRows()).isEqualTo(before);
        assertThat(rows.row(Relation.BLOCK, user)).isEmpty();
        assertThat(rows.row(Relation.MUTE, user)).isEmpty();
    }

    @Test
    void mute_touchesNoFollow() {
        long user = secondDb(5);
        long target = firstDb(5);
        http.follow(user, target);
        http.follow(target, user);

        assertThat(http.relation("muting", true, user, target).body().get("active").asBoolean()).isTrue();

        assertThat(rows.followingRow(user).orElseThrow().followingIds()).containsExactly(target);
        assertThat(rows.followingRow(target).orElseThrow().followingIds()).containsExactly(user);
        assertThat(rows.row(Relation.MUTE, user).orElseThrow().followingIds()).containsExactly(target);
        assertThat(http.follow(user, target).status()).isEqualTo(200);
    }

    @ParameterizedTest(name = "{0} {1}/{2}/{3} -> {4}")
    @CsvSource({
            "PUT, 42, blocking, 42, targetId",
            "PUT, 42, muting, 42, targetId",
            "DELETE, 42, blocking, 42, targetId",
            "PUT, abc, blocking, 7, userId",
            "PUT, 0, muting, 7, userId",
            "PUT, 42, blocking, -7, targetId",
            "DELETE, 42, muting, 9223372036854775808, targetId",
    })
    void badInput_isA400NamingTheParameter_andWritesNothing(String method, String userId, String list,
                                                            String targetId, String parameter) {
        long before = rows.totalRows();

        WriteHttp.Reply reply = http.send(method, "/internal/v1/users/" + userId + "/" + list + "/" + targetId);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.body().get("parameter").asString()).isEqualTo(parameter);
        assertThat(rows.totalRows()).isEqualTo(before);
    }

    /** The blocker's follow and block serialize on one row lock: however they interleave, both never hold. */
    @Test
    void aBlockRacingTheBlockersOwnFollows_neverLeavesBoth() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 20; round++) {
                long blocker = firstDb(100 + round);
                long blocked = secondDb(100 + round);
                List<Future<WriteHttp.Reply>> replies = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    replies.add(pool.submit(() -> http.follow(blocker, blocked)));
                }
                replies.add(pool.submit(() -> http.relation("blocking", true, blocker, blocked)));
                for (Future<WriteHttp.Reply> reply : replies) {
                    assertThat(reply.get().status()).isIn(200, 409);
                }
                FollowingRow follows = rows.followingRow(blocker).orElseThrow();
                assertThat(follows.followingIds()).doesNotContain(blocked);
                assertThat(rows.row(Relation.BLOCK, blocker).orElseThrow().followingIds()).containsExactly(blocked);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
