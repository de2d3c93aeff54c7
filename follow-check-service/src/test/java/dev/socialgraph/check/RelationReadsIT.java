package dev.socialgraph.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.Transactions;
import dev.socialgraph.testsupport.PrivateRedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.net.http.HttpResponse;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Block and mute reads against real PostgreSQL shards, with rows written directly: the lists with their cursors, the
 * hidden-authors answer (including a blocked-by side in celebrity pages), the relations in the relationship answer
 * and who may see them, followers without the ones the owner blocks, and bad input. The bloom filters are off, so
 * the in-process filter of hidden pairs is never trusted and every answer here comes from the shards; the filter's
 * part is tested in {@code GraphReadHandlersTest} and {@code BloomIT}.
 */
@SpringBootTest(classes = FollowCheckServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class RelationReadsIT {

    static final TestShards SHARDS = TestShards.create("check_relations");
    static final PrivateRedisServer REDIS = TestServers.privateRedis();
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final long T0 = 1_700_000_000_000L;

    /** Users on both databases of each group (logical shards 5 and 200). */
    static final long A = 256L * 3_000 + 5;
    static final long B1 = 256L * 3_001 + 200;
    static final long B2 = 256L * 3_002 + 5;
    static final long MUTED = 256L * 3_003 + 200;
    static final long BLOCKS_A = 256L * 3_004 + 5;
    static final long FAN = 256L * 3_005 + 200;
    /** Blocked by {@value #PAGED_BLOCKERS} users, its blocked-by side in celebrity pages. */
    static final long HATED = 256L * 3_006 + 200;
    static final int PAGED_BLOCKERS = 30;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.shards.migrate-on-startup", () -> "true");
        registry.add("graph.check.redis-uri", () -> REDIS.uri(0));
        registry.add("graph.check.bloom.enabled", () -> "false");
    }

    @AfterAll
    static void close() {
        REDIS.close();
        SHARDS.close();
    }

    @Autowired
    ShardDataSources dataSources;

    @LocalServerPort
    int port;

    CheckHttp http;

    @BeforeEach
    void client() {
        http = new CheckHttp(port);
    }

    static boolean written;

    void write() throws SQLException {
        if (written) {
            return;
        }
        following(Relation.BLOCK, A, new long[] {B1, B2}, new long[] {T0 + 1, T0 + 2});
        following(Relation.MUTE, A, new long[] {MUTED}, new long[] {T0 + 3});
        following(Relation.BLOCK, BLOCKS_A, new long[] {A}, new long[] {T0 + 4});
        followers(Relation.BLOCK, A, new long[] {BLOCKS_A}, new long[] {T0 + 4});
        // B1 still follows A: the block's event has not removed it yet.
        following(Relation.FOLLOW, B1, new long[] {A}, new long[] {T0});
        followers(Relation.FOLLOW, A, new long[] {B1, FAN}, new long[] {T0, T0 + 5});
        long[] blockers = LongStream.rangeClosed(1, PAGED_BLOCKERS).map(i -> i * 256 + 9).toArray();
        long[] blockedAt = LongStream.rangeClosed(1, PAGED_BLOCKERS).map(i -> T0 + i).toArray();
        blockers[PAGED_BLOCKERS - 1] = A;
        Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWER, HATED), c -> {
            FollowerRepository rows = new FollowerRepository(Relation.BLOCK);
            CelebrityPageRepository pages = new CelebrityPageRepository(Relation.BLOCK);
            rows.writeNextVersion(c, rows.lockOrCreate(c, HATED), new long[0], new long[0], PAGED_BLOCKERS, true);
            for (int from = 0, page = 0; from < PAGED_BLOCKERS; from += 7, page++) {
                int to = Math.min(PAGED_BLOCKERS, from + 7);
                pages.upsert(c, new CelebrityPage(HATED, page, Arrays.copyOfRange(blockers, from, to),
                        Arrays.copyOfRange(blockedAt, from, to)));
            }
            return null;
        });
        written = true;
    }

    private void following(Relation relation, long source, long[] ids, long[] times) throws SQLException {
        FollowingRepository rows = new FollowingRepository(relation);
        Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWING, source),
                c -> rows.writeNextVersion(c, rows.lockOrCreate(c, source), ids, times));
    }

    private void followers(Relation relation, long target, long[] ids, long[] times) throws SQLException {
        FollowerRepository rows = new FollowerRepository(relation);
        Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWER, target),
                c -> rows.writeNextVersion(c, rows.lockOrCreate(c, target), ids, times, ids.length, false));
    }

    @Test
    void lists_areNewestFirst_withCursors() throws Exception {
        write();
        assertThat(walk("/internal/v1/users/" + A + "/blocking", 1))
                .containsExactly(List.of(B2, T0 + 2), List.of(B1, T0 + 1));
        assertThat(walk("/internal/v1/users/" + A + "/muting", 10)).containsExactly(List.of(MUTED, T0 + 3));
        assertThat(walk("/internal/v1/users/" + FAN + "/blocking", 10)).isEmpty();
    }

    @Test
    void hidden_namesTheAuthorsTheViewerBlocksIsBlockedByOrMutes() throws Exception {
        write();
        JsonNode answer = http.json(http.post("/internal/v1/users/" + A + "/hidden",
                "{\"ids\":[" + FAN + "," + B1 + "," + BLOCKS_A + "," + MUTED + "," + B2 + "," + B1 + ",77]}"));
        assertThat(ids(answer, "blocking")).containsExactly(Math.min(B1, B2), Math.max(B1, B2));
        assertThat(ids(answer, "blockedBy")).containsExactly(BLOCKS_A);
        assertThat(ids(answer, "muting")).containsExactly(MUTED);

        JsonNode paged = http.json(http.post("/internal/v1/users/" + HATED + "/hidden",
                "{\"ids\":[" + A + "," + FAN + ", 265]}"));
        assertThat(ids(paged, "blockedBy")).containsExactly(265L, A);
        assertThat(ids(paged, "blocking")).isEmpty();
    }

    @Test
    void relationship_carriesTheRelations_showsThemOnlyToTheirUsers_andNoFollowUnderABlock() throws Exception {
        write();
        JsonNode internal = http.json(http.get("/internal/v1/users/" + A + "/relationship/" + B1));
        assertThat(internal.toString()).isEqualTo(
                "{\"following\":false,\"followedBy\":false,\"blocking\":true,\"blockedBy\":false,\"muting\":false,"
                        + "\"protected\":false,\"requested\":false,\"requestedBy\":false}");
        JsonNode asB1 = http.json(http.get("/internal/v1/users/" + A + "/relationship/" + MUTED, "X-Viewer-Id",
                Long.toString(MUTED)));
        assertThat(asB1.toString()).isEqualTo("{\"following\":false,\"followedBy\":false,\"blocking\":false,"
                + "\"blockedBy\":false,\"protected\":false,\"requested\":false,\"requestedBy\":false}");
        JsonNode asThird = http.json(http.get("/internal/v1/users/" + B1 + "/relationship/" + A, "X-Viewer-Id",
                Long.toString(FAN)));
        assertThat(asThird.toString()).isEqualTo("{\"following\":true,\"followedBy\":false,\"protected\":false}");
    }

    @Test
    void followers_leaveOutTheOnesTheOwnerBlocks() throws Exception {
        write();
        assertThat(walk("/internal/v1/users/" + A + "/followers", 1, "followedAt"))
                .containsExactly(List.of(FAN, T0 + 5));
    }

    @Test
    void badInput_isA400NamingTheParameter() throws Exception {
        assertBad(http.post("/internal/v1/users/" + A + "/hidden", "{\"ids\":[1,0]}"), "ids[1]");
        assertBad(http.post("/internal/v1/users/" + A + "/hidden", "{\"ids\":\"1\"}"), "ids");
        assertBad(http.post("/internal/v1/users/" + A + "/hidden", "{\"ids\":" + LongStream.rangeClosed(1, 1001)
                .boxed().toList() + "}"), "ids");
        assertBad(http.post("/internal/v1/users/abc/hidden", "{\"ids\":[1]}"), "id");
        assertBad(http.get("/internal/v1/users/" + A + "/blocking?limit=0"), "limit");
        assertBad(http.get("/internal/v1/users/" + A + "/muting?cursor=not-a-cursor"), "cursor");
        // A cursor of one list is refused by another: blocking's cursor on muting.
        write();
        String blockingCursor = http.json(http.get("/internal/v1/users/" + A + "/blocking?limit=1")).get("nextCursor")
                .stringValue();
        assertBad(http.get("/internal/v1/users/" + A + "/muting?cursor=" + blockingCursor), "cursor");
    }

    private void assertBad(HttpResponse<String> response, String parameter) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        assertThat(JSON.readTree(response.body()).get("parameter").stringValue()).isEqualTo(parameter);
    }

    private static List<Long> ids(JsonNode answer, String field) {
        List<Long> out = new ArrayList<>();
        answer.get(field).forEach(n -> out.add(n.longValue()));
        return out;
    }

    List<List<Long>> walk(String path, int limit) throws Exception {
        return walk(path, limit, "createdAt");
    }

    List<List<Long>> walk(String path, int limit, String timeField) throws Exception {
        return http.walk(path, limit, timeField);
    }

}
