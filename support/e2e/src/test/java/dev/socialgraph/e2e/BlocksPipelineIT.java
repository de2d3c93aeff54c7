package dev.socialgraph.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Blocks and mutes through the whole write pipeline (write service, outbox, relay, Kafka, cdc-consumer) on real
 * servers: the invariant that no follow survives between two users while a block stands between them, under races
 * of a follow and a block on different databases, and every relation's rows and reverse side against a model of
 * random operations.
 */
class BlocksPipelineIT {

    static final Duration CONVERGENCE = Duration.ofSeconds(60);

    static Pipeline pipeline;
    static WriteClient client;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.start(Pipeline.Settings.defaults("e2e_blocks").withRelayPollInterval(Duration.ofMillis(50)));
        client = new WriteClient(pipeline.writePort(), pipeline.serviceToken());
    }

    @AfterAll
    static void stop() {
        if (pipeline != null) {
            pipeline.close();
        }
    }

    /** A user id on logical shard {@code shard} (0..127: first database of its group, 128..255: second). */
    static long user(long n, int shard) {
        return 256L * n + shard;
    }

    /**
     * B follows A while A blocks B, A and B on different databases, many times: the follow either is refused, or
     * lands and is removed (by its own re-check or by the block's event). In half the rounds B's follow is made
     * first, so the consumer's removal is exercised every run; in all rounds a follow by A races the block too.
     */
    @Test
    void aFollowRacingABlock_onAnotherDatabase_neverSurvivesIt() throws Exception {
        int rounds = 40;
        ExecutorService threads = Executors.newFixedThreadPool(3);
        List<long[]> pairs = new ArrayList<>();
        try {
            for (int r = 0; r < rounds; r++) {
                long blocker = user(1_000 + r, 5);
                long blocked = user(1_000 + r, 200);
                pairs.add(new long[] {blocker, blocked});
                if (r % 2 == 0) {
                    assertThat(client.follow(blocked, blocker).status()).isEqualTo(200);
                }
                Future<WriteClient.Reply> follow = threads.submit(() -> client.follow(blocked, blocker));
                Future<WriteClient.Reply> ownFollow = threads.submit(() -> client.follow(blocker, blocked));
                Future<Integer> block = threads.submit(() -> client.relation("blocking", true, blocker, blocked));
                assertThat(block.get()).isEqualTo(200);
                assertThat(follow.get().status()).isIn(200, 403);
                assertThat(ownFollow.get().status()).isIn(200, 409);
            }
        } finally {
            threads.shutdownNow();
        }
        await("no follow under a block").atMost(CONVERGENCE).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            for (long[] pair : pairs) {
                long blocker = pair[0];
                long blocked = pair[1];
                assertThat(targets(Relation.FOLLOW, blocked)).as("%d follows its blocker", blocked).doesNotContain(blocker);
                assertThat(targets(Relation.FOLLOW, blocker)).as("%d follows whom it blocks", blocker).doesNotContain(blocked);
                assertThat(reverse(Relation.FOLLOW, blocker)).doesNotContain(blocked);
                assertThat(reverse(Relation.FOLLOW, blocked)).doesNotContain(blocker);
                assertThat(reverse(Relation.BLOCK, blocked)).containsExactly(blocker);
            }
        });
        // Only now: a refused follow also removes a follow it finds, which would hide the consumer's part above.
        long[] last = pairs.getLast();
        assertThat(client.follow(last[1], last[0]).status()).as("while the block stands").isEqualTo(403);
        assertThat(client.follow(last[0], last[1]).status()).as("while the block stands").isEqualTo(409);
    }

    /** Random follows, blocks and mutes among a few users on both databases, each answer and the end state. */
    @Test
    void randomOperations_matchAModelOfAllThreeRelations() throws Exception {
        long[] users = new long[8];
        for (int i = 0; i < users.length; i++) {
            users[i] = user(2_000 + i, i % 2 == 0 ? 7 : 190);
        }
        Set<List<Long>> follows = new HashSet<>();
        Set<List<Long>> blocks = new HashSet<>();
        Set<List<Long>> mutes = new HashSet<>();
        Random random = new Random(15);
        for (int op = 0; op < 400; op++) {
            long a = users[random.nextInt(users.length)];
            long b = random.nextInt(20) == 0 ? a : users[random.nextInt(users.length)];
            List<Long> ab = List.of(a, b);
            List<Long> ba = List.of(b, a);
            int kind = random.nextInt(6);
            String what = op + ": " + a + " " + List.of("follow", "unfollow", "block", "unblock", "mute", "unmute")
                    .get(kind) + " " + b;
            int expected;
            if (a == b) {
                expected = 400;
            } else if (kind == 0 && blocks.contains(ba)) {
                expected = 403; // blocked by the target: checked first
            } else if (kind == 0 && blocks.contains(ab)) {
                expected = 409;
            } else {
                expected = 200;
            }
            int status = switch (kind) {
                case 0 -> client.follow(a, b).status();
                case 1 -> client.unfollow(a, b).status();
                case 2 -> client.relation("blocking", true, a, b);
                case 3 -> client.relation("blocking", false, a, b);
                case 4 -> client.relation("muting", true, a, b);
                default -> client.relation("muting", false, a, b);
            };
            assertThat(status).as(what).isEqualTo(expected);
            if (expected != 200) {
                continue;
            }
            switch (kind) {
                case 0 -> follows.add(ab);
                case 1 -> follows.remove(ab);
                case 2 -> {
                    blocks.add(ab);
                    follows.remove(ab);
                    follows.remove(ba);
                }
                case 3 -> blocks.remove(ab);
                case 4 -> mutes.add(ab);
                default -> mutes.remove(ab);
            }
        }
        assertThat(blocks).isNotEmpty();
        assertThat(mutes).isNotEmpty();
        await("every relation as the model has it").atMost(CONVERGENCE).pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    for (long u : users) {
                        assertThat(targets(Relation.FOLLOW, u)).as("whom %d follows", u).isEqualTo(out(follows, u));
                        assertThat(targets(Relation.BLOCK, u)).as("whom %d blocks", u).isEqualTo(out(blocks, u));
                        assertThat(targets(Relation.MUTE, u)).as("whom %d mutes", u).isEqualTo(out(mutes, u));
                        assertThat(reverse(Relation.FOLLOW, u)).as("who follows %d", u).isEqualTo(in(follows, u));
                        assertThat(reverse(Relation.BLOCK, u)).as("who blocks %d", u).isEqualTo(in(blocks, u));
                        assertThat(reverse(Relation.MUTE, u)).as("mutes keep no reverse side").isEmpty();
                    }
                });
        for (List<Long> block : blocks) {
            assertThat(follows).doesNotContain(block, List.of(block.get(1), block.get(0)));
        }
        assertReadsMatchTheModel(users, follows, blocks, mutes);
    }

    /**
     * Every read endpoint of the check service against the model, for every user and pair: the block and mute lists,
     * hidden authors (through the in-process filter of hidden pairs, fed by the same events), the relationship, and
     * the followers list. The check service starts after the writes, so its start-up scan and its consumer both play.
     */
    private static void assertReadsMatchTheModel(long[] users, Set<List<Long>> follows, Set<List<Long>> blocks,
                                                 Set<List<Long>> mutes) throws Exception {
        Map<String, String> props = new HashMap<>(pipeline.checkServiceProperties());
        props.put("graph.check.bloom.snapshot-dir", "target/blocks-pipeline-no-snapshots");
        props.put("graph.check.feed.max-lag", "60s"); // a loaded machine may delay the feed's probes
        try (ServiceProcess check = ServiceProcess.start("follow-check-service", props, Duration.ofSeconds(180))) {
            String base = check.baseUrl() + "/internal/v1/users/";
            String all = "{\"ids\":" + Arrays.stream(users).boxed().toList() + "}";
            for (long u : users) {
                assertThat(ids(json(get(base + u + "/blocking?limit=100")), "items")).as("%d's blocks", u)
                        .isEqualTo(out(blocks, u));
                assertThat(ids(json(get(base + u + "/muting?limit=100")), "items")).as("%d's mutes", u)
                        .isEqualTo(out(mutes, u));
                assertThat(ids(json(get(base + u + "/followers?limit=100")), "items")).as("%d's followers", u)
                        .isEqualTo(in(follows, u));
                JsonNode hidden = json(post(base + u + "/hidden", all));
                assertThat(new TreeSet<>(longs(hidden.get("blocking")))).as("%d blocks", u).isEqualTo(out(blocks, u));
                assertThat(new TreeSet<>(longs(hidden.get("blockedBy")))).as("%d blocked by", u)
                        .isEqualTo(in(blocks, u));
                assertThat(new TreeSet<>(longs(hidden.get("muting")))).as("%d mutes", u).isEqualTo(out(mutes, u));
                for (long v : users) {
                    if (u == v) {
                        continue;
                    }
                    JsonNode r = json(get(base + u + "/relationship/" + v));
                    String pair = u + "/" + v;
                    assertThat(r.get("following").asBoolean()).as(pair).isEqualTo(follows.contains(List.of(u, v)));
                    assertThat(r.get("followedBy").asBoolean()).as(pair).isEqualTo(follows.contains(List.of(v, u)));
                    assertThat(r.get("blocking").asBoolean()).as(pair).isEqualTo(blocks.contains(List.of(u, v)));
                    assertThat(r.get("blockedBy").asBoolean()).as(pair).isEqualTo(blocks.contains(List.of(v, u)));
                    assertThat(r.get("muting").asBoolean()).as(pair).isEqualTo(mutes.contains(List.of(u, v)));
                }
            }
        }
    }

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static HttpResponse<String> get(String uri) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(uri)).header("X-Service-Token", pipeline.serviceToken())
                .GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String uri, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(uri)).header("X-Service-Token", pipeline.serviceToken())
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    /** The {@code userId}s of a list page's items. */
    private static TreeSet<Long> ids(JsonNode page, String field) {
        TreeSet<Long> out = new TreeSet<>();
        page.get(field).forEach(item -> out.add(item.get("userId").asLong()));
        return out;
    }

    private static List<Long> longs(JsonNode array) {
        List<Long> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asLong()));
        return out;
    }

    private static TreeSet<Long> out(Set<List<Long>> edges, long source) {
        TreeSet<Long> targets = new TreeSet<>();
        edges.stream().filter(e -> e.get(0) == source).forEach(e -> targets.add(e.get(1)));
        return targets;
    }

    private static TreeSet<Long> in(Set<List<Long>> edges, long target) {
        TreeSet<Long> sources = new TreeSet<>();
        edges.stream().filter(e -> e.get(1) == target).forEach(e -> sources.add(e.get(0)));
        return sources;
    }

    /** The targets in {@code source}'s row of {@code relation}, from its following database. */
    private static TreeSet<Long> targets(Relation relation, long source) throws SQLException {
        try (Connection c = pipeline.dataSources().forUser(ShardGroup.FOLLOWING, source).getConnection()) {
            TreeSet<Long> ids = new TreeSet<>();
            new FollowingRepository(relation).find(c, source)
                    .map(FollowingRow::followingIds).ifPresent(a -> Arrays.stream(a).forEach(ids::add));
            return ids;
        }
    }

    /** The sources on {@code target}'s follower side of {@code relation} (row and pages), checking the count. */
    private static TreeSet<Long> reverse(Relation relation, long target) throws SQLException {
        try (Connection c = pipeline.dataSources().forUser(ShardGroup.FOLLOWER, target).getConnection()) {
            TreeSet<Long> ids = new TreeSet<>();
            FollowerRow row = new FollowerRepository(relation).find(c, target).orElse(null);
            if (row == null) {
                return ids;
            }
            Arrays.stream(row.followerIds()).forEach(ids::add);
            for (CelebrityPage page : new CelebrityPageRepository(relation).all(c, target)) {
                Arrays.stream(page.followerIds()).forEach(ids::add);
            }
            assertThat(row.followerCount()).as("count of %s side of %d", relation, target).isEqualTo(ids.size());
            return ids;
        }
    }
}
