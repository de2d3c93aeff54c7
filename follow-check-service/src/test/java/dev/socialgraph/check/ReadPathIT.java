package dev.socialgraph.check;

import dev.socialgraph.cache.FollowingCacheScripts;
import dev.socialgraph.check.cache.LocalFollowingCache;
import dev.socialgraph.check.feed.FeedLag;
import dev.socialgraph.common.keys.RedisKeys;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.testsupport.ActuatorProbe;
import dev.socialgraph.testsupport.PrivateRedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The read path against real PostgreSQL shards and a private Redis, checked against a model of a generated graph
 * kept by the test: checks, batch checks, lists (including a celebrity whose followers live in pages), counts,
 * common following and relationships, with Redis up, stopped and flushed.
 */
@SpringBootTest(classes = FollowCheckServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ReadPathIT {

    static final TestShards SHARDS = TestShards.create("check_read");
    static final PrivateRedisServer REDIS = TestServers.privateRedis();
    static final String TOKEN_SECRET = "dev-only-follow-token-secret-change-me-0123456789";

    /** Users 1000..1059 land in both databases of each group (shards 232..255 and 0..35). */
    static final long FIRST_USER = 1000;
    static final int USERS = 60;
    static final long CELEBRITY = 5000;
    static final long BASE_TIME = 1_700_000_000_000L;
    /** Small, so that the model's users (up to 21 follows) exercise the "most recent per node" cut. */
    static final int SUGGESTIONS_FAN_OUT = 5;

    /** follower -> (followee -> followedAt): the graph as the test wrote it. */
    static final Map<Long, TreeMap<Long, Long>> MODEL = new HashMap<>();
    static boolean written;

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.shards.migrate-on-startup", () -> "true");
        registry.add("graph.shards.connection-timeout", () -> "1s"); // a database that is down fails fast
        // Longer than that: a pair on a database that refuses connections gets the store's own 503 before its
        // deadline's 504 (pairs_aPairOnADatabaseThatIsDown_…); FollowingPairsHandlerTest covers the deadline.
        registry.add("graph.check.pair-timeout", () -> "3s");
        registry.add("graph.check.redis-uri", () -> REDIS.uri(0));
        registry.add("graph.check.bloom.enabled", () -> "false"); // rows are written without events here (BloomIT)
        // Without events there is no feed; the test declares it caught up (feedCaughtUp) so that the in-process
        // cache answers. The rows it reads do not change after writeGraph, so nothing can make it stale.
        registry.add("graph.check.feed.max-lag", () -> "1d");
        registry.add("graph.check.suggestions-fan-out", () -> Integer.toString(SUGGESTIONS_FAN_OUT));
    }

    @Autowired
    ShardDataSources dataSources;

    @Autowired
    LocalFollowingCache localCache;

    @Autowired
    FeedLag feedLag;

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @BeforeAll
    static void model() {
        Random random = new Random(42);
        for (int i = 0; i < USERS; i++) {
            long user = FIRST_USER + i;
            TreeMap<Long, Long> followees = new TreeMap<>();
            int k = random.nextInt(21);
            for (int j = 0; j < k; j++) {
                long other = FIRST_USER + random.nextInt(USERS);
                if (other != user) {
                    followees.put(other, BASE_TIME + random.nextInt(400)); // few distinct times: many ties
                }
            }
            if (random.nextInt(10) < 8) {
                followees.put(CELEBRITY, BASE_TIME + random.nextInt(400));
            }
            MODEL.put(user, followees);
        }
    }

    CheckHttp http;

    @BeforeEach
    void feedCaughtUp() {
        http = new CheckHttp(port);
        long now = System.currentTimeMillis();
        feedLag.caughtUp(new FeedLag.OutboxMark(now, now));
    }

    @AfterAll
    static void close() {
        REDIS.close();
        SHARDS.close();
    }

    void writeGraph() throws Exception {
        if (written) {
            return;
        }
        GraphWriter writer = new GraphWriter(dataSources);
        Map<Long, List<long[]>> followersOf = new HashMap<>();
        for (Map.Entry<Long, TreeMap<Long, Long>> e : MODEL.entrySet()) {
            long[] ids = e.getValue().keySet().stream().mapToLong(Long::longValue).toArray();
            long[] times = e.getValue().values().stream().mapToLong(Long::longValue).toArray();
            if (ids.length > 0) {
                writer.writeFollowing(e.getKey(), ids, times);
            }
            e.getValue().forEach((followee, at) ->
                    followersOf.computeIfAbsent(followee, x -> new ArrayList<>()).add(new long[] {at, e.getKey()}));
        }
        for (Map.Entry<Long, List<long[]>> e : followersOf.entrySet()) {
            List<long[]> pairs = e.getValue();
            pairs.sort(Comparator.<long[]>comparingLong(p -> p[0]).thenComparingLong(p -> p[1]));
            long[] ids = pairs.stream().mapToLong(p -> p[1]).toArray();
            long[] times = pairs.stream().mapToLong(p -> p[0]).toArray();
            if (e.getKey() == CELEBRITY) {
                writer.writeCelebrity(CELEBRITY, ids, times, 7);
            } else {
                writer.writeFollowers(e.getKey(), ids, times);
            }
        }
        written = true;
    }

    // ---------------------------------------------------------------- model answers

    static boolean follows(long a, long b) {
        return MODEL.getOrDefault(a, new TreeMap<>()).containsKey(b);
    }

    /** {@code [userId, followedAt]} newest first, ties by id descending. */
    static List<List<Long>> newestFirst(Map<Long, Long> entries) {
        List<List<Long>> out = new ArrayList<>();
        entries.forEach((id, at) -> out.add(List.of(id, at)));
        out.sort(Comparator.<List<Long>>comparingLong(p -> p.get(1)).thenComparingLong(p -> p.get(0)).reversed());
        return out;
    }

    static Map<Long, Long> followersInModel(long followee) {
        Map<Long, Long> out = new HashMap<>();
        MODEL.forEach((follower, followees) -> {
            Long at = followees.get(followee);
            if (at != null) {
                out.put(follower, at);
            }
        });
        return out;
    }

    static List<Long> allUsers() {
        List<Long> users = new ArrayList<>();
        for (int i = 0; i < USERS; i++) {
            users.add(FIRST_USER + i);
        }
        users.add(CELEBRITY);
        return users;
    }

    // ---------------------------------------------------------------- HTTP

    boolean check(long a, long b) throws Exception {
        return http.json(http.get("/internal/v1/users/" + a + "/following/" + b)).get("following").booleanValue();
    }

    /** Walks a follow list with the given page size; returns {@code [userId, followedAt]} in order. */
    List<List<Long>> walk(String path, int limit) throws Exception {
        return http.walk(path, limit, "followedAt");
    }


    // ---------------------------------------------------------------- tests

    @Test
    void check_answersEveryPairLikeTheModel_fromShardThenCaches() throws Exception {
        writeGraph();
        Random random = new Random(7);
        for (int round = 0; round < 2; round++) { // second round: answered by the caches the first one filled
            for (long a : allUsers()) {
                Set<Long> targets = new HashSet<>(MODEL.getOrDefault(a, new TreeMap<>()).keySet());
                for (int i = 0; i < 8; i++) {
                    targets.add(FIRST_USER + random.nextInt(USERS + 5));
                }
                targets.add(CELEBRITY);
                for (long b : targets) {
                    assertThat(check(a, b)).as("%d follows %d", a, b).isEqualTo(follows(a, b));
                }
            }
        }
    }

    @Test
    void contains_splitsTheBatchLikeTheModel() throws Exception {
        writeGraph();
        for (long a : allUsers()) {
            TreeSet<Long> asked = new TreeSet<>(MODEL.getOrDefault(a, new TreeMap<>()).keySet());
            for (long b = FIRST_USER; b < FIRST_USER + USERS + 3; b += 3) {
                asked.add(b);
            }
            StringBuilder body = new StringBuilder("{\"ids\":[");
            for (long b : asked) {
                body.append(b).append(',');
            }
            body.append('"').append(asked.first()).append("\"]}"); // duplicates and string ids are accepted
            for (int round = 0; round < 2; round++) {
                JsonNode answer = http.json(http.post("/internal/v1/users/" + a + "/following/contains",
                        "application/json", body.toString()));
                List<Long> yes = new ArrayList<>();
                List<Long> no = new ArrayList<>();
                for (long b : asked) {
                    (follows(a, b) ? yes : no).add(b);
                }
                assertThat(longs(answer.get("following"))).as("user %d", a).isEqualTo(yes);
                assertThat(longs(answer.get("notFollowing"))).as("user %d", a).isEqualTo(no);
            }
        }
    }

    static List<Long> longs(JsonNode array) {
        List<Long> out = new ArrayList<>();
        array.forEach(n -> out.add(n.longValue()));
        return out;
    }

    @Test
    void lists_walkNewestFirstLikeTheModel_includingCelebrityPages() throws Exception {
        writeGraph();
        for (long user : allUsers()) {
            List<List<Long>> following = newestFirst(MODEL.getOrDefault(user, new TreeMap<>()));
            List<List<Long>> followers = newestFirst(followersInModel(user));
            for (int limit : new int[] {1, 4, 1000}) {
                assertThat(walk("/internal/v1/users/" + user + "/following", limit)).as("following of %d", user)
                        .isEqualTo(following);
                assertThat(walk("/internal/v1/users/" + user + "/followers", limit)).as("followers of %d", user)
                        .isEqualTo(followers);
            }
        }
        assertThat(followersInModel(CELEBRITY)).hasSizeGreaterThan(30); // spans several 7-entry pages
        JsonNode first = http.json(http.get("/internal/v1/users/" + CELEBRITY + "/followers"));
        assertThat(first.get("items").size()).isEqualTo(Math.min(50, followersInModel(CELEBRITY).size()));
    }

    @Test
    void countsCommonAndRelationship_matchTheModel() throws Exception {
        writeGraph();
        Random random = new Random(11);
        for (long a : allUsers()) {
            JsonNode counts = http.json(http.get("/internal/v1/users/" + a + "/counts"));
            assertThat(counts.get("following").longValue()).isEqualTo(MODEL.getOrDefault(a, new TreeMap<>()).size());
            assertThat(counts.get("followers").longValue()).isEqualTo(followersInModel(a).size());

            long b = FIRST_USER + random.nextInt(USERS);
            TreeSet<Long> common = new TreeSet<>(MODEL.getOrDefault(a, new TreeMap<>()).keySet());
            common.retainAll(MODEL.getOrDefault(b, new TreeMap<>()).keySet());
            List<Long> walked = new ArrayList<>();
            String cursor = null;
            do {
                JsonNode page = http.json(http.get("/internal/v1/users/" + a + "/common-following/" + b + "?limit=2"
                        + (cursor == null ? "" : "&cursor=" + cursor)));
                page.get("items").forEach(n -> walked.add(n.get("userId").longValue()));
                cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").stringValue();
            } while (cursor != null);
            assertThat(walked).as("common of %d and %d", a, b).isEqualTo(new ArrayList<>(common));

            JsonNode relationship = http.json(http.get("/internal/v1/users/" + a + "/relationship/" + b));
            assertThat(relationship.get("following").booleanValue()).isEqualTo(follows(a, b));
            assertThat(relationship.get("followedBy").booleanValue()).isEqualTo(follows(b, a));
        }
    }

    /**
     * Each read of a batch answered as its own GET when memory holds it, and deferred otherwise: lists with cursors and
     * string ids, the celebrity's followers past its window, counts, common following, the relationship with a viewer,
     * a follow token (its user's own row is read from the shard: deferred), and reads with bad input, whose problems
     * are their own and leave the others answered.
     */
    @Test
    void reads_answerEachReadAsItsOwnGetWouldNow_fromMemory_orDeferIt() throws Exception {
        writeGraph();
        String token = new FollowTokens(TOKEN_SECRET.getBytes(StandardCharsets.UTF_8), Clock.systemUTC())
                .issue(FIRST_USER);
        JsonNode page = http.json(http.get("/internal/v1/users/" + CELEBRITY + "/followers?limit=3"));
        String cursor = page.get("nextCursor").stringValue();
        // {path, query or null, follow token or null, viewer or null}
        String[][] asked = {
                {"/internal/v1/users/" + FIRST_USER + "/following", "limit=3", null, null},
                {"/internal/v1/users/" + FIRST_USER + "/following", "limit=3&stringify_ids=true", null, null},
                {"/internal/v1/users/" + FIRST_USER + "/following", "limit=3", token, null},
                {"/internal/v1/users/" + CELEBRITY + "/followers", "limit=3&cursor=" + cursor, null, null},
                {"/internal/v1/users/" + (FIRST_USER + 1) + "/followers", null, null, null},
                {"/internal/v1/users/" + FIRST_USER + "/counts", null, null, null},
                {"/internal/v1/users/" + FIRST_USER + "/common-following/" + (FIRST_USER + 1), "limit=2", null, null},
                {"/internal/v1/users/" + FIRST_USER + "/relationship/" + (FIRST_USER + 1), null, null,
                        String.valueOf(FIRST_USER)},
                {"/internal/v1/users/" + FIRST_USER + "/following", "limit=0", null, null},
                {"/internal/v1/users/" + FIRST_USER + "/followers", "cursor=not-a-cursor", null, null},
                {"/internal/v1/users/" + FIRST_USER + "/counts", "stringify_ids=maybe", null, null}};
        List<HttpResponse<String>> own = new ArrayList<>();
        StringBuilder body = new StringBuilder("{\"reads\":[");
        for (int i = 0; i < asked.length; i++) {
            String[] read = asked[i];
            List<String> headers = new ArrayList<>();
            if (read[2] != null) {
                headers.addAll(List.of("X-Follow-Token", read[2]));
            }
            if (read[3] != null) {
                headers.addAll(List.of("X-Viewer-Id", read[3]));
            }
            // Its own GET first: the answer to compare with, and the rows it reads are then in memory.
            own.add(http.get(read[0] + (read[1] == null ? "" : "?" + read[1]), headers.toArray(String[]::new)));
            body.append(i == 0 ? "" : ",").append("{\"path\":\"").append(read[0]).append('"');
            if (read[1] != null) {
                body.append(",\"query\":\"").append(read[1]).append('"');
            }
            body.append(",\"headers\":{");
            if (read[2] != null) {
                body.append("\"X-Follow-Token\":\"").append(read[2]).append('"');
            }
            if (read[3] != null) {
                body.append(read[2] != null ? "," : "").append("\"X-Viewer-Id\":\"").append(read[3]).append('"');
            }
            body.append("}}");
        }
        Map<String, Double> countedBefore = batchReadsCounted();
        HttpResponse<String> response = http.post("/internal/v1/reads", body.append("]}").toString());
        assertThat(response.headers().firstValue("X-Served-By")).isPresent();
        JsonNode results = http.json(response).get("results");
        assertThat(results).hasSize(asked.length);
        Map<String, Double> expected = new HashMap<>(countedBefore);
        for (int i = 0; i < asked.length; i++) {
            JsonNode result = results.get(i);
            String name = asked[i][0] + "?" + asked[i][1];
            String counted = result.has("deferred") ? "deferred"
                    : result.get("status").intValue() == 200 ? "answered" : "problem";
            expected.merge(counted, 1.0, Double::sum);
            if (result.has("deferred")) {
                assertThat(result.get("deferred").booleanValue()).as(name).isTrue();
                continue;
            }
            assertThat(result.get("status").intValue()).as("status of %s", name).isEqualTo(own.get(i).statusCode());
            assertThat(result.get("body")).as("body of %s", name).isEqualTo(JSON.readTree(own.get(i).body()));
            assertThat(result.has("retryAfter")).isEqualTo(own.get(i).headers().firstValue("Retry-After").isPresent());
        }
        assertThat(results.get(0).has("status")).as("a following list memory holds is answered").isTrue();
        assertThat(results.get(1).get("body").get("items").get(0).get("userId").isString()).isTrue();
        assertThat(results.get(2).has("deferred")).as("a follow token reads its user's row from the shard").isTrue();
        assertThat(results.get(3).has("deferred")).as("celebrity pages past the window are read from the shard")
                .isTrue();
        assertThat(results.get(8).get("status").intValue()).isEqualTo(400);
        assertThat(results.get(8).get("body").get("parameter").stringValue()).isEqualTo("limit");
        assertThat(results.get(9).get("body").get("parameter").stringValue()).isEqualTo("cursor");
        assertThat(results.get(10).get("body").get("parameter").stringValue()).isEqualTo("stringify_ids");
        // Counted before the answer is written: each read once, by its result.
        assertThat(batchReadsCounted()).isEqualTo(expected);
    }

    /** {@code graph.check.read-batch.reads} as scraped, by {@code result}: answered, deferred, problem. */
    private Map<String, Double> batchReadsCounted() {
        Map<String, Double> counted = new HashMap<>();
        for (String line : ActuatorProbe.get(managementPort, "/actuator/prometheus").body().split("\n")) {
            if (line.startsWith("graph_check_read_batch_reads_total{")) {
                String result = line.replaceAll(".*result=\"([a-z]+)\".*", "$1");
                counted.put(result, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
            }
        }
        assertThat(counted).containsOnlyKeys("answered", "deferred", "problem");
        return counted;
    }

    @Test
    void reads_badBatch_is400NamingTheField_andAnswersNothing() throws Exception {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("[]", "body");
        cases.put("{\"reads\":[]}", "reads");
        cases.put("{\"reads\":[{\"path\":\"/internal/v1/users/1/following/2\"}]}", "reads[0].path");
        cases.put("{\"reads\":[{\"path\":\"/internal/v1/users/1/suggestions\"}]}", "reads[0].path");
        cases.put("{\"reads\":[{\"path\":\"/internal/v1/users/1/counts\"},{\"path\":7}]}", "reads[1].path");
        cases.put("{\"reads\":[{\"path\":\"/internal/v1/users/1/counts\",\"headers\":{\"X-Follow-Token\":\""
                + "x".repeat(65) + "\"}}]}", "reads[0].headers.X-Follow-Token");
        StringBuilder many = new StringBuilder("{\"reads\":[");
        for (int i = 0; i < 33; i++) {
            many.append(i == 0 ? "" : ",").append("{\"path\":\"/internal/v1/users/1/counts\"}");
        }
        cases.put(many.append("]}").toString(), "reads");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            HttpResponse<String> response = http.post("/internal/v1/reads", c.getKey());
            assertThat(response.statusCode()).as(c.getKey()).isEqualTo(400);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(JSON.readTree(response.body()).get("parameter").stringValue()).as(c.getKey())
                    .isEqualTo(c.getValue());
        }
    }

    void setAccountState(long user, int state) throws Exception {
        new GraphWriter(dataSources).setAccountState(user, state);
    }

    /** Takes {@code excluded} inactive users out of a count, as a state change's job does. */
    void setCountOffset(long user, int counted, long excluded) throws Exception {
        ShardGroup group = counted == 0 ? ShardGroup.FOLLOWING : ShardGroup.FOLLOWER;
        try (Connection c = dataSources.forUser(group, user).getConnection();
             java.sql.PreparedStatement ps = c.prepareStatement("""
                     INSERT INTO count_offsets (user_id, counted, excluded) VALUES (?, ?, ?)
                     ON CONFLICT (user_id, counted) DO UPDATE SET excluded = excluded.excluded""")) {
            ps.setLong(1, user);
            ps.setInt(2, counted);
            ps.setLong(3, excluded);
            ps.executeUpdate();
        }
    }

    /** The followers of {@code user} whom {@code viewer} follows, walked two at a time. */
    List<Long> known(long viewer, long user) throws Exception {
        List<Long> out = new ArrayList<>();
        for (List<Long> item : http.walk("/internal/v1/users/" + user + "/followers/known", 2, "followedAt",
                "X-Viewer-Id", Long.toString(viewer))) {
            out.add(item.get(0));
        }
        return out;
    }

    List<Long> ids(String path) throws Exception {
        List<Long> out = new ArrayList<>();
        for (List<Long> item : walk(path, 2)) {
            out.add(item.get(0));
        }
        return out;
    }

    @Test
    void inactiveAccount_isInvisibleInEveryRead_andEveryEdgeIsBackOnReactivation() throws Exception {
        // Users of their own (the model's answers do not change): 7001..7004, and a celebrity 7100 with pages.
        GraphWriter writer = new GraphWriter(dataSources);
        long t = BASE_TIME;
        writer.follow(7001, 7002, t + 1);
        writer.follow(7001, 7003, t + 2);
        writer.follow(7002, 7001, t + 3);
        writer.follow(7002, 7003, t + 4);
        writer.follow(7003, 7001, t + 5);
        writer.follow(7004, 7002, t + 6);
        writer.follow(7004, 7003, t + 7);
        for (long follower = 7001; follower <= 7004; follower++) {
            writer.follow(follower, 7100, t + follower - 7000); // the following side too: it is the truth
        }
        writer.writeCelebrity(7100, new long[] {7001, 7002, 7003, 7004}, new long[] {t + 1, t + 2, t + 3, t + 4}, 2);
        List<List<Long>> suggestedBefore = suggestions(7004, 10);
        assertThat(suggestedBefore).contains(List.of(7001L, 2L)); // through 7002 and 7003
        // Followers 7004 knows, newest first by 7004's follow: of a follower row, and of a celebrity's pages.
        assertThat(known(7004, 7001)).containsExactly(7003L, 7002L);
        assertThat(known(7004, 7100)).containsExactly(7003L, 7002L);
        assertThat(known(7003, 7100)).containsExactly(7001L);

        setAccountState(7003, 1); // deactivated
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !check(7001, 7003));
        assertThat(check(7003, 7001)).isFalse();
        JsonNode batch = http.json(http.post("/internal/v1/users/7001/following/contains", "{\"ids\":[7002,7003]}"));
        assertThat(batch.get("following").toString()).isEqualTo("[7002]");
        assertThat(batch.get("notFollowing").toString()).isEqualTo("[7003]");
        assertThat(ids("/internal/v1/users/7001/following")).containsExactly(7100L, 7002L); // same time: greater id first
        assertThat(ids("/internal/v1/users/7001/followers")).containsExactly(7002L);
        assertThat(ids("/internal/v1/users/7100/followers")).containsExactly(7004L, 7002L, 7001L); // pages too
        assertThat(ids("/internal/v1/users/7003/following")).isEmpty();
        assertThat(ids("/internal/v1/users/7003/followers")).isEmpty();
        JsonNode inactiveCounts = http.json(http.get("/internal/v1/users/7003/counts"));
        assertThat(inactiveCounts.get("followers").longValue()).isZero();
        assertThat(inactiveCounts.get("following").longValue()).isZero();
        assertThat(http.json(http.get("/internal/v1/users/7001/common-following/7004")).get("items").toString())
                .isEqualTo("[{\"userId\":7002},{\"userId\":7100}]");
        assertThat(known(7004, 7001)).containsExactly(7002L);
        assertThat(known(7004, 7100)).containsExactly(7002L);
        assertThat(known(7003, 7100)).isEmpty();
        JsonNode relationship = http.json(http.get("/internal/v1/users/7001/relationship/7003"));
        assertThat(relationship.get("following").booleanValue()).isFalse();
        assertThat(relationship.get("followedBy").booleanValue()).isFalse();
        // 7003 is no longer the intermediate that made 7001 a suggestion for 7004, though the list was cached.
        assertThat(suggestions(7004, 10)).contains(List.of(7001L, 1L));
        assertThat(suggestions(7003, 10)).isEmpty();

        // The job's count exclusions: 7001's followers and following counts each lose 7003.
        setCountOffset(7001, 0, 1);
        setCountOffset(7001, 1, 1);
        JsonNode counts = http.json(http.get("/internal/v1/users/7001/counts"));
        assertThat(counts.get("following").longValue()).isEqualTo(2); // 7002 and 7100
        assertThat(counts.get("followers").longValue()).isEqualTo(1);

        setCountOffset(7001, 0, 0);
        setCountOffset(7001, 1, 0);
        setAccountState(7003, 0); // reactivated
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> check(7001, 7003));
        assertThat(check(7003, 7001)).isTrue();
        assertThat(ids("/internal/v1/users/7001/following")).containsExactly(7003L, 7100L, 7002L);
        assertThat(ids("/internal/v1/users/7100/followers")).containsExactly(7004L, 7003L, 7002L, 7001L);
        assertThat(suggestions(7004, 10)).isEqualTo(suggestedBefore);
        assertThat(http.json(http.get("/internal/v1/users/7001/counts")).get("following").longValue())
                .as("from the row in memory, less the inactive users by the view: at once").isEqualTo(3);
        // 7001's followers fit in a window: counted from it, less the inactive users by the view, once the view has
        // polled the reactivation (a count kept apart, of a followee with more followers, moves by the job's recount).
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                http.json(http.get("/internal/v1/users/7001/counts")).get("followers").longValue()).isEqualTo(2));
    }

    /** Depth 2 with the fan-out cut, skipping self and followed, by mutual count then id: {@code [id, count]}. */
    static List<List<Long>> expectedSuggestions(long a) {
        Map<Long, Long> counts = new HashMap<>();
        for (List<Long> hop : mostRecent(MODEL.getOrDefault(a, new TreeMap<>()))) {
            for (List<Long> candidate : mostRecent(MODEL.getOrDefault(hop.get(0), new TreeMap<>()))) {
                long c = candidate.get(0);
                if (c != a && !follows(a, c)) {
                    counts.merge(c, 1L, Long::sum);
                }
            }
        }
        List<List<Long>> out = new ArrayList<>();
        counts.forEach((id, n) -> out.add(List.of(id, n)));
        out.sort(Comparator.<List<Long>>comparingLong(p -> -p.get(1)).thenComparingLong(p -> p.get(0)));
        return out;
    }

    static List<List<Long>> mostRecent(Map<Long, Long> following) {
        List<List<Long>> all = newestFirst(following);
        return all.subList(0, Math.min(SUGGESTIONS_FAN_OUT, all.size()));
    }

    List<List<Long>> suggestions(long a, int limit) throws Exception {
        List<List<Long>> out = new ArrayList<>();
        http.json(http.get("/internal/v1/users/" + a + "/suggestions?limit=" + limit)).get("items").forEach(
                n -> out.add(List.of(n.get("userId").longValue(), n.get("mutualCount").longValue())));
        return out;
    }

    @Test
    void suggestions_matchTheModel_computedCachedAndAfterFlush() throws Exception {
        writeGraph();
        int nonEmpty = 0;
        for (long a : allUsers()) {
            List<List<Long>> expected = expectedSuggestions(a);
            nonEmpty += expected.isEmpty() ? 0 : 1;
            assertThat(suggestions(a, 1000)).as("suggestions for %d", a).isEqualTo(expected); // computed
            assertThat(suggestions(a, 1000)).as("cached suggestions for %d", a).isEqualTo(expected);
            assertThat(suggestions(a, 3)).isEqualTo(expected.subList(0, Math.min(3, expected.size())));
        }
        assertThat(nonEmpty).isGreaterThan(USERS / 2);
        try (RedisClient client = RedisClient.create(REDIS.uri(0));
             StatefulRedisConnection<String, String> redis = client.connect()) {
            redis.sync().flushall();
        }
        assertThat(suggestions(FIRST_USER + 1, 1000)).isEqualTo(expectedSuggestions(FIRST_USER + 1));
        assertThat(http.json(http.get("/internal/v1/users/" + CELEBRITY + "/suggestions")).get("items")).isEmpty();
    }

    @Test
    void redisStoppedThenBackEmpty_everyAnswerStaysCorrect() throws Exception {
        writeGraph();
        assertChecksAndBatchesMatchModel(); // caches warm
        REDIS.stop();
        try {
            localCache.clear();
            assertChecksAndBatchesMatchModel();
        } finally {
            REDIS.start(); // comes back empty: the flushed case
        }
        localCache.clear();
        assertChecksAndBatchesMatchModel();
        assertChecksAndBatchesMatchModel(); // now from the refilled Redis
    }

    @Test
    void redisHanging_answersFromTheShardWithinTheCommandTimeout() throws Exception {
        writeGraph();
        assertChecksAndBatchesMatchModel(); // caches warm
        localCache.clear();
        try (RedisClient client = RedisClient.create(REDIS.uri(0));
             StatefulRedisConnection<String, String> redis = client.connect()) {
            redis.sync().clientPause(3000); // every client's commands now wait 3 s: a hung server
            long start = System.nanoTime();
            for (long a = FIRST_USER; a < FIRST_USER + 4; a++) {
                assertThat(check(a, CELEBRITY)).as("%d follows the celebrity", a).isEqualTo(follows(a, CELEBRITY));
            }
            // Four checks, each one SMISMEMBER and one FILL bounded by the 100 ms timeout, then the shard.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(2500));
        }
        try (RedisClient client = RedisClient.create(REDIS.uri(0));
             StatefulRedisConnection<String, String> redis = client.connect()) {
            redis.setTimeout(Duration.ofSeconds(10));
            assertThat(redis.sync().ping()).isEqualTo("PONG"); // returns when the pause is over
        }
    }

    @Test
    void redisFlushed_everyAnswerStaysCorrect() throws Exception {
        writeGraph();
        assertChecksAndBatchesMatchModel(); // caches warm
        try (RedisClient client = RedisClient.create(REDIS.uri(0));
             StatefulRedisConnection<String, String> redis = client.connect()) {
            redis.sync().flushall();
        }
        localCache.clear();
        assertChecksAndBatchesMatchModel();
    }

    void assertChecksAndBatchesMatchModel() throws Exception {
        for (long a : allUsers()) {
            for (long b = FIRST_USER; b < FIRST_USER + USERS; b += 5) {
                assertThat(check(a, b)).as("%d follows %d", a, b).isEqualTo(follows(a, b));
            }
            assertThat(check(a, CELEBRITY)).isEqualTo(follows(a, CELEBRITY));
            JsonNode answer = http.json(http.post("/internal/v1/users/" + a + "/following/contains", "application/json",
                    "{\"ids\":[" + CELEBRITY + "," + (FIRST_USER + 1) + "]}"));
            assertThat(longs(answer.get("following")).contains(CELEBRITY)).isEqualTo(follows(a, CELEBRITY));
        }
    }

    @Test
    void followToken_readsTheActorsOwnWriteDespiteAStaleLocalCache() throws Exception {
        long actor = 20_001;
        long target = 20_002;
        GraphWriter writer = new GraphWriter(dataSources);
        writer.follow(actor, 20_003, BASE_TIME);
        assertThat(check(actor, target)).isFalse(); // fills the local cache and Redis at the old version

        long version = writer.follow(actor, target, BASE_TIME + 1);
        try (RedisClient client = RedisClient.create(REDIS.uri(0));
             StatefulRedisConnection<String, String> redis = client.connect()) { // what the write service does
            redis.sync().eval(FollowingCacheScripts.APPLY, ScriptOutputType.INTEGER,
                    new String[] {RedisKeys.following(actor), RedisKeys.followingVersion(actor)},
                    Long.toString(version), FollowingCacheScripts.ADD, Long.toString(target), "3600");
        }
        String token = new FollowTokens(TOKEN_SECRET.getBytes(StandardCharsets.UTF_8), Clock.systemUTC()).issue(actor);
        HttpResponse<String> response = http.get("/internal/v1/users/" + actor + "/following/" + target,
                "X-Follow-Token", token);
        assertThat(http.json(response).get("following").booleanValue()).isTrue();

        String foreign = new FollowTokens(TOKEN_SECRET.getBytes(StandardCharsets.UTF_8), Clock.systemUTC()).issue(target);
        assertThat(http.get("/internal/v1/users/" + actor + "/following/" + target, "X-Follow-Token", foreign)
                .statusCode())
                .isEqualTo(200); // another actor's token is ignored, not an error
    }

    @Test
    void followToken_readsTheActorsOwnWriteWhenTheWriteThroughToRedisFailed() throws Exception {
        long actor = 20_011;
        long target = 20_012;
        GraphWriter writer = new GraphWriter(dataSources);
        writer.follow(actor, 20_013, BASE_TIME);
        assertThat(check(actor, target)).isFalse(); // fills the local cache and Redis at the old version
        // The follow commits, but the write service's Redis update fails (DESIGN.md 3 step 3: logged, the write
        // still succeeds): Redis keeps the old set until the event arrives. The token must still see the write.
        writer.follow(actor, target, BASE_TIME + 1);
        String token = new FollowTokens(TOKEN_SECRET.getBytes(StandardCharsets.UTF_8), Clock.systemUTC()).issue(actor);
        HttpResponse<String> response = http.get("/internal/v1/users/" + actor + "/following/" + target,
                "X-Follow-Token", token);
        assertThat(http.json(response).get("following").booleanValue()).isTrue();
    }

    @Test
    void cursorWalk_duringFollowsAndUnfollows_neverRepeatsNorSkipsAStableItem() throws Exception {
        GraphWriter writer = new GraphWriter(dataSources);
        long owner = 30_001;
        long followee = 30_500;
        Random random = new Random(3);
        Map<Long, Long> initial = new LinkedHashMap<>();
        for (int i = 0; i < 120; i++) {
            long id = 31_000 + i;
            long at = BASE_TIME + random.nextInt(60);
            initial.put(id, at);
            writer.follow(owner, id, at);   // owner's following list
            writer.follow(id, followee, at); // followee's follower list
        }
        Set<Long> removedFollowing = new HashSet<>();
        Set<Long> removedFollowers = new HashSet<>();
        List<Long> seenFollowing = new ArrayList<>();
        List<Long> seenFollowers = new ArrayList<>();
        String followingCursor = null;
        String followersCursor = null;
        long next = 40_000;
        boolean followingDone = false;
        boolean followersDone = false;
        while (!followingDone || !followersDone) {
            if (!followingDone) {
                JsonNode page = http.json(http.get("/internal/v1/users/" + owner + "/following?limit=9"
                        + (followingCursor == null ? "" : "&cursor=" + followingCursor)));
                page.get("items").forEach(n -> seenFollowing.add(n.get("userId").longValue()));
                followingDone = page.get("nextCursor").isNull();
                followingCursor = followingDone ? null : page.get("nextCursor").stringValue();
            }
            if (!followersDone) {
                JsonNode page = http.json(http.get("/internal/v1/users/" + followee + "/followers?limit=9"
                        + (followersCursor == null ? "" : "&cursor=" + followersCursor)));
                page.get("items").forEach(n -> seenFollowers.add(n.get("userId").longValue()));
                followersDone = page.get("nextCursor").isNull();
                followersCursor = followersDone ? null : page.get("nextCursor").stringValue();
            }
            for (int i = 0; i < 3; i++) { // change the rows between pages: unfollows, and follows old and new
                long gone = 31_000 + random.nextInt(120);
                writer.unfollow(owner, gone);
                removedFollowing.add(gone);
                long leaver = 31_000 + random.nextInt(120);
                writer.unfollow(leaver, followee);
                removedFollowers.add(leaver);
                long at = BASE_TIME + random.nextInt(120) - 30;
                writer.follow(owner, next, at);
                writer.follow(next, followee, at);
                next++;
            }
        }
        assertThat(seenFollowing).doesNotHaveDuplicates();
        assertThat(seenFollowers).doesNotHaveDuplicates();
        Set<Long> stableFollowing = new HashSet<>(initial.keySet());
        stableFollowing.removeAll(removedFollowing);
        Set<Long> stableFollowers = new HashSet<>(initial.keySet());
        stableFollowers.removeAll(removedFollowers);
        assertThat(seenFollowing).containsAll(stableFollowing);
        assertThat(seenFollowers).containsAll(stableFollowers);
        assertThat(removedFollowing).isNotEmpty();
    }

    @Test
    void badInput_is400ProblemJsonNamingTheParameter() throws Exception {
        writeGraph();
        String cursorOfA = http.json(http.get("/internal/v1/users/1001/following?limit=1")).get("nextCursor")
                .stringValue();
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("/internal/v1/users/abc/following/1", "id");
        cases.put("/internal/v1/users/0/following/1", "id");
        cases.put("/internal/v1/users/-5/following/1", "id");
        cases.put("/internal/v1/users/007/following/1", "id");
        cases.put("/internal/v1/users/99999999999999999999/following/1", "id");
        cases.put("/internal/v1/users/1/following/x1", "targetId");
        cases.put("/internal/v1/users/1/following?limit=0", "limit");
        cases.put("/internal/v1/users/1/following?limit=1001", "limit");
        cases.put("/internal/v1/users/1/following?limit=ten", "limit");
        cases.put("/internal/v1/users/1/followers?limit=-1", "limit");
        cases.put("/internal/v1/users/1/following?cursor=garbage", "cursor");
        cases.put("/internal/v1/users/1/following?cursor=" + cursorOfA, "cursor");  // foreign owner
        cases.put("/internal/v1/users/1001/followers?cursor=" + cursorOfA, "cursor"); // foreign kind
        cases.put("/internal/v1/users/1001/following?cursor=" + cursorOfA.substring(0, 55) + "A", "cursor");
        cases.put("/internal/v1/users/1/common-following/zz", "otherId");
        cases.put("/internal/v1/users/-3/followers/known", "id");
        cases.put("/internal/v1/users/2/followers/known", "X-Viewer-Id"); // who asks is required
        cases.put("/internal/v1/users/1/relationship/0", "otherId");
        cases.put("/internal/v1/users/x/suggestions", "id");
        cases.put("/internal/v1/users/1/suggestions?limit=1001", "limit");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            assertProblem(http.get(c.getKey()), 400, c.getValue());
        }
        assertProblem(http.get("/internal/v1/users/2/followers/known?cursor=" + cursorOfA, "X-Viewer-Id", "1001"), 400,
                "cursor"); // the viewer's, but of another kind
        assertProblem(http.get("/internal/v1/users/2/followers/known?limit=0", "X-Viewer-Id", "1001"), 400, "limit");
        assertProblem(http.get("/internal/v1/users/2/followers/known", "X-Viewer-Id", "x"), 400, "X-Viewer-Id");
        assertProblem(http.get("/internal/v1/users/1/following/2", "X-Follow-Token", "A".repeat(65)), 400,
                "X-Follow-Token");
        String contains = "/internal/v1/users/1/following/contains";
        assertProblem(http.post(contains, "application/json", "{\"ids\": [1, 2"), 400, "body");
        assertProblem(http.post(contains, "application/json", ""), 400, "body");
        assertProblem(http.post(contains, "application/json", "[1,2]"), 400, "body");
        assertProblem(http.post(contains, "application/json", "{\"ids\": 5}"), 400, "ids");
        assertProblem(http.post(contains, "application/json", "{\"ids\": [1, 0]}"), 400, "ids[1]");
        assertProblem(http.post(contains, "application/json", "{\"ids\": [1.5]}"), 400, "ids[0]");
        assertProblem(http.post(contains, "application/json", "{\"ids\": [\"x\"]}"), 400, "ids[0]");
        assertProblem(http.post(contains, "application/json", "{\"ids\": [99999999999999999999]}"), 400, "ids[0]");
        StringBuilder big = new StringBuilder("{\"ids\":[1");
        for (int i = 2; i <= 1001; i++) {
            big.append(',').append(i);
        }
        assertProblem(http.post(contains, "application/json", big.append("]}").toString()), 400, "ids");
        assertProblem(http.post(contains, "text/plain", "{\"ids\":[1]}"), 415, "Content-Type");
        // A legal batch padded past the codecs' default 256 KB buffer (under the 1 MB body limit) is read, not a 500.
        HttpResponse<String> padded = http.post(contains, "application/json",
                "{\"ids\":[1]" + " ".repeat(600_000) + "}");
        assertThat(padded.statusCode()).as(padded.body()).isEqualTo(200);
        assertProblem(http.post("/internal/v1/users/zz/following/contains", "application/json", "{\"ids\":[1]}"),
                400, "id");
    }

    static final String PAIRS = "/internal/v1/following/pairs";

    /** One pair of a pairs request: {@code {"followerId":…,"followeeId":…[,"followToken":…]}}. */
    static String pair(Object follower, Object followee, String token) {
        return "{\"followerId\":" + follower + ",\"followeeId\":" + followee
                + (token == null ? "" : ",\"followToken\":\"" + token + "\"") + "}";
    }

    /** The single check's body, {@code {"following":…}}, with {@code X-Follow-Token} when {@code token} is set. */
    String single(long follower, long followee, String token) throws Exception {
        String path = "/internal/v1/users/" + follower + "/following/" + followee;
        return http.json(token == null ? http.get(path) : http.get(path, "X-Follow-Token", token)).toString();
    }

    /**
     * Each pair answered as its single check, in order: follows and non-follows, read-your-writes with a pair's own
     * token, an inactive user, a follow under the followee's block, ids as strings.
     */
    @Test
    void pairs_answerEachPairAsItsSingleCheckWouldNow() throws Exception {
        GraphWriter writer = new GraphWriter(dataSources);
        long t = BASE_TIME;
        long before = writer.follow(8001, 8002, t + 1);
        // The follow commits and reaches neither the in-process cache nor Redis yet (no event, a failed write-through).
        writer.follow(8001, 8007, t + 5);
        Runnable stale = () -> { // 8001's array in process as it was before: what the feed has not patched yet
            localCache.invalidate(8001);
            assertThat(localCache.put(new FollowingRow(8001, new long[] {8002}, new long[] {t + 1}, before),
                    localCache.ticket(8001))).isTrue();
        };
        writer.follow(8003, 8004, t + 2);
        writer.block(8004, 8003, t + 6); // 8003's follow of its blocker stands until the block's event
        writer.follow(8005, 8001, t + 3);
        writer.follow(8006, 8005, t + 4);
        setAccountState(8005, 1); // deactivated
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !check(8006, 8005));
        FollowTokens tokens = new FollowTokens(TOKEN_SECRET.getBytes(StandardCharsets.UTF_8), Clock.systemUTC());
        String of8001 = tokens.issue(8001);
        String of8004 = tokens.issue(8004);
        Object[][] asked = {
                {8001L, 8002L, null}, {8002L, 8001L, null}, {8001L, 8007L, null}, {8001L, 8007L, of8001},
                {8005L, 8001L, null}, {8006L, 8005L, null}, {8003L, 8004L, null}, {8003L, 8004L, of8004}};
        StringBuilder body = new StringBuilder("{\"pairs\":[");
        for (int i = 0; i < asked.length; i++) {
            Object[] p = asked[i];
            body.append(i == 0 ? "" : ",").append(pair(p[0], "\"" + p[1] + "\"", (String) p[2])); // ids as strings too
        }

        stale.run();
        HttpResponse<String> response = http.post(PAIRS, body.append("]}").toString());
        assertThat(response.headers().firstValue("X-Served-By")).isPresent();
        List<String> results = new ArrayList<>();
        http.json(response).get("results").forEach(r -> results.add(r.toString()));
        assertThat(results).containsExactly("{\"following\":true}", "{\"following\":false}",
                "{\"following\":false}", // the in-process cache has not seen the follow yet
                "{\"following\":true}", // 8001's token reads its row: read-your-writes
                "{\"following\":false}", "{\"following\":false}", // 8005 is deactivated
                "{\"following\":true}", // the filter of hidden pairs is off here: the block is not read
                "{\"following\":false}"); // the blocker's token reads its block

        stale.run(); // the token's read refreshed the cache: the single checks start from the same state
        List<String> singles = new ArrayList<>();
        for (Object[] p : asked) {
            singles.add(single((Long) p[0], (Long) p[1], (String) p[2]));
        }
        assertThat(results).isEqualTo(singles);

        List<String> requests = new ArrayList<>();
        for (String line : ActuatorProbe.get(managementPort, "/actuator/prometheus").body().split("\n")) {
            if (line.startsWith("http_server_requests_seconds_count{") && line.contains("uri=\"" + PAIRS + "\"")) {
                requests.add(line);
            }
        }
        assertThat(requests).as("timed like the batch check").anyMatch(line -> line.contains("status=\"200\""));
    }

    @Test
    void pairs_badInput_is400NamingTheField_andAnswersNothing() throws Exception {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("{\"pairs\": [", "body");
        cases.put("", "body");
        cases.put("[]", "body");
        cases.put("{\"ids\":[1]}", "pairs");
        cases.put("{\"pairs\":[]}", "pairs");
        cases.put("{\"pairs\":" + "[" + (pair(1, 2, null) + ",").repeat(1000) + pair(1, 2, null) + "]}", "pairs");
        cases.put("{\"pairs\":[" + pair(1, 2, null) + ",\"1:2\"]}", "pairs[1]");
        cases.put("{\"pairs\":[" + pair(1, 2, null) + "," + pair(1, 2, null) + ",{\"followeeId\":2}]}",
                "pairs[2].followerId");
        cases.put("{\"pairs\":[" + pair(-1, 2, null) + "]}", "pairs[0].followerId");
        cases.put("{\"pairs\":[" + pair(1, "\"007\"", null) + "]}", "pairs[0].followeeId");
        cases.put("{\"pairs\":[" + pair(1, 2, null) + ",{\"followerId\":1,\"followeeId\":2,\"followToken\":[]}]}",
                "pairs[1].followToken");
        cases.put("{\"pairs\":[" + pair(1, 2, null) + "," + pair(1, 2, "A".repeat(65)) + "]}", "pairs[1].followToken");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            assertProblem(http.post(PAIRS, c.getKey()), 400, c.getValue());
        }
        assertProblem(http.post(PAIRS + "?stringify_ids=1", "{\"pairs\":[" + pair(1, 2, null) + "]}"), 400,
                "stringify_ids");
        assertProblem(http.post(PAIRS, "text/plain", "{\"pairs\":[" + pair(1, 2, null) + "]}"), 415, "Content-Type");
        HttpResponse<String> get = http.get(PAIRS);
        assertThat(get.statusCode()).isEqualTo(405);
        assertThat(get.headers().firstValue("Allow")).hasValue("POST");
    }

    /** A pair whose follower's database is down gets that check's 503 problem; the other pairs are answered. */
    @Test
    void pairs_aPairOnADatabaseThatIsDown_isA503Problem_andTheOthersAreAnswered() throws Exception {
        writeGraph();
        String database = followingDatabaseOf128To255();
        long neverRead = FIRST_USER + 256 * 33; // shard 232, in no cache
        long routedElsewhere = allUsers().stream() // shards 0..35, the other database
                .filter(u -> u >= FIRST_USER + 24 && u != CELEBRITY && !MODEL.get(u).isEmpty()).findFirst()
                .orElseThrow();
        long followee = MODEL.get(routedElsewhere).firstKey();
        refuseConnections(database);
        try {
            JsonNode results = http.json(http.post(PAIRS, "{\"pairs\":[" + pair(routedElsewhere, followee, null) + ","
                    + pair(neverRead, followee, null) + "," + pair(routedElsewhere, neverRead, null) + "]}"))
                    .get("results");
            assertThat(results.get(0).toString()).isEqualTo("{\"following\":true}");
            assertThat(results.get(2).toString()).isEqualTo("{\"following\":false}");
            JsonNode problem = results.get(1);
            assertThat(problem.get("status").intValue()).as(problem.toString()).isEqualTo(503);
            assertThat(problem.get("type").stringValue())
                    .isEqualTo("https://socialgraph.dev/problems/shard-unavailable");
            assertThat(problem.get("instance").stringValue())
                    .isEqualTo("/internal/v1/users/" + neverRead + "/following/" + followee);
            HttpResponse<String> singleCheck = http.get("/internal/v1/users/" + neverRead + "/following/" + followee);
            assertThat(singleCheck.statusCode()).isEqualTo(503);
            JsonNode singleProblem = JSON.readTree(singleCheck.body());
            for (String member : new String[] {"type", "title", "status", "detail", "instance"}) {
                assertThat(problem.get(member)).as(member).isEqualTo(singleProblem.get(member));
            }
        } finally {
            allowConnections(database);
        }
        Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(http.post(PAIRS,
                "{\"pairs\":[" + pair(neverRead, followee, null) + "]}").body()).isEqualTo(
                "{\"results\":[{\"following\":false}]}"));
    }

    @Test
    void wrongMethodOrUnknownPath_isProblemJson() throws Exception {
        HttpResponse<String> put = HTTP.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/internal/v1/users/1/following/2"))
                .header("X-Service-Token", ServiceProcess.SERVICE_TOKEN)
                .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(put.statusCode()).as(put.body()).isEqualTo(405);
        assertThat(put.headers().firstValue("Allow")).hasValue("GET");
        assertThat(put.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(JSON.readTree(put.body()).get("status").intValue()).isEqualTo(405);

        HttpResponse<String> unknown = http.get("/internal/v1/users/1/nothing-here");
        assertThat(unknown.statusCode()).as(unknown.body()).isEqualTo(404);
        assertThat(unknown.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(unknown.headers().firstValue("X-Served-By")).as("errors name the instance too").isPresent();
    }

    void assertProblem(HttpResponse<String> response, int status, String parameter) {
        assertThat(response.statusCode()).as(response.uri() + " " + response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/problem+json"));
        JsonNode problem = JSON.readTree(response.body());
        assertThat(problem.get("parameter").stringValue()).as(response.uri().toString()).isEqualTo(parameter);
        assertThat(problem.get("status").intValue()).isEqualTo(status);
    }

    /** The following database of shards 128..255 (user {@code FIRST_USER}'s, shard 232). */
    static String followingDatabaseOf128To255() {
        return SHARDS.shardMap().ranges(ShardGroup.FOLLOWING).get(1).database();
    }

    /** Refuses every connection to {@code database} and ends the open ones, until {@link #allowConnections}. */
    static void refuseConnections(String database) throws Exception {
        try (Connection c = TestServers.postgres().dataSource("postgres").getConnection();
             Statement st = c.createStatement()) {
            st.execute("ALTER DATABASE \"" + database + "\" ALLOW_CONNECTIONS false");
            st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + database + "'");
        }
    }

    static void allowConnections(String database) throws Exception {
        try (Connection c = TestServers.postgres().dataSource("postgres").getConnection();
             Statement st = c.createStatement()) {
            st.execute("ALTER DATABASE \"" + database + "\" ALLOW_CONNECTIONS true");
        }
    }

    @Test
    void shardDatabaseDown_is503ForItsUsersOnly() throws Exception {
        writeGraph();
        String database = followingDatabaseOf128To255();
        long routedThere = FIRST_USER;      // shard 232
        long routedElsewhere = FIRST_USER + 40; // shard 16
        http.get("/internal/v1/users/" + routedThere + "/following"); // its row is in memory now
        refuseConnections(database);
        try {
            assertThat(http.get("/internal/v1/users/" + routedThere + "/following").statusCode())
                    .as("memory answers a read it holds, the database down or not").isEqualTo(200);
            localCache.invalidate(routedThere);
            HttpResponse<String> down = http.get("/internal/v1/users/" + routedThere + "/following");
            assertThat(down.statusCode()).as(down.body()).isEqualTo(503);
            assertThat(down.headers().firstValue("Content-Type")).hasValueSatisfying(
                    t -> assertThat(t).startsWith("application/problem+json"));
            assertThat(walk("/internal/v1/users/" + routedElsewhere + "/following", 1000))
                    .isEqualTo(newestFirst(MODEL.get(routedElsewhere)));
        } finally {
            allowConnections(database);
        }
        Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(http.get("/internal/v1/users/" + routedThere + "/following").statusCode()).isEqualTo(200));
        assertThat(walk("/internal/v1/users/" + routedThere + "/following", 1000))
                .isEqualTo(newestFirst(MODEL.get(routedThere)));
    }

    @Test
    void redisHit_admitsTheUsersRowFromTheShardToTheLocalCache() throws Exception {
        writeGraph();
        long a = allUsers().stream().filter(u -> MODEL.getOrDefault(u, new TreeMap<>()).size() > 3).findFirst()
                .orElseThrow();
        localCache.clear();
        check(a, CELEBRITY); // from Redis, or from the shard, which fills Redis
        localCache.clear();
        check(a, FIRST_USER); // from Redis: queues the admission, read from the shard after the answer
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> localCache.row(a) != null);
        FollowingRow entry = localCache.row(a);
        assertThat(entry.followingIds())
                .containsExactly(MODEL.get(a).keySet().stream().mapToLong(Long::longValue).toArray());
        assertThat(entry.version()).isPositive();
    }

    @Test
    void everyRouteButTheSingleCheck_hasItsRequestLatencyAndErrorMetric() throws Exception {
        writeGraph();
        check(1001, 1002);
        for (String path : new String[] {"/internal/v1/users/1001/following", "/internal/v1/users/1002/followers",
                "/internal/v1/users/1001/counts", "/internal/v1/users/1001/relationship/1002",
                "/internal/v1/users/1001/suggestions", "/internal/v1/users/0/counts"}) {
            http.get(path);
        }
        // A request's observation stops after its response is written, so the last one may reach the registry a
        // moment after the client has its answer.
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            List<String> requests = new ArrayList<>();
            for (String line : ActuatorProbe.get(managementPort, "/actuator/prometheus").body().split("\n")) {
                if (line.startsWith("http_server_requests_seconds_count{")) {
                    requests.add(line);
                }
            }
            for (String uri : new String[] {"following", "followers", "counts", "relationship/{otherId}",
                    "suggestions"}) {
                assertThat(requests).as(uri)
                        .anyMatch(line -> line.contains("uri=\"/internal/v1/users/{id}/" + uri + "\""));
            }
            assertThat(requests).as("an error is counted by status").anyMatch(line -> line.contains("status=\"400\"")
                    && line.contains("uri=\"/internal/v1/users/{id}/counts\""));
            assertThat(requests).as("the single check keeps graph.check.latency only")
                    .noneMatch(line -> line.contains("method=\"GET\"") && line.contains("/following/{targetId}"));
        });
    }

    @Test
    void latencyMetric_isTaggedByLayerAndNeverByUser() throws Exception {
        writeGraph();
        localCache.clear();
        try (RedisClient client = RedisClient.create(REDIS.uri(0));
             StatefulRedisConnection<String, String> redis = client.connect()) {
            redis.sync().flushall();
        }
        check(1001, 1002); // shard
        check(1001, 1003); // local
        localCache.clear();
        check(1001, 1004); // redis
        HttpResponse<String> scrape = ActuatorProbe.get(managementPort, "/actuator/prometheus");
        assertThat(scrape.statusCode()).isEqualTo(200);
        String metrics = scrape.body();
        for (String layer : new String[] {"local", "redis", "shard"}) {
            assertThat(metrics).contains("graph_check_latency_seconds_bucket{application=\"follow-check-service\","
                    + "layer=\"" + layer + "\"");
        }
        assertThat(metrics).doesNotContain("1001\"");
        List<Double> shardBuckets = new ArrayList<>(); // the SLO buckets of DESIGN.md 8: 0.3 ms and 1 ms
        for (String line : metrics.split("\n")) {
            if (line.startsWith("graph_check_latency_seconds_bucket{") && line.contains("layer=\"shard\"")) {
                String le = line.substring(line.indexOf("le=\"") + 4);
                le = le.substring(0, le.indexOf('"'));
                shardBuckets.add(le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le));
            }
        }
        assertThat(shardBuckets).contains(0.0003, 0.001);
    }
}
