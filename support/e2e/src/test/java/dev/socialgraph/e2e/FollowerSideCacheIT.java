package dev.socialgraph.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.wire.Headers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The check service's lists and counts from memory (the follower-side cache of each followee's newest followers and
 * follower count, the following side from the in-process following rows) against the truth, through the real write
 * service, outbox relay, Kafka and cdc-consumer. The check instance keeps windows and counts for an hour, so the only
 * thing that can make a cached entry converge after a change is its invalidation once the cdc-consumer's group has
 * committed past the followee's event: a missed invalidation shows as a list or count that never converges.
 *
 * <p>Three hot followees have more followers than a window holds (so their windows are incomplete and their lists
 * continue on the shard past the window) and live in celebrity pages; the other users' windows are complete.
 */
class FollowerSideCacheIT {

    static final Duration CONVERGENCE = Duration.ofSeconds(30);
    /** Followers per window (the service's default): the largest first page answered from memory. */
    static final int WINDOW = 100;
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    static Pipeline pipeline;
    static WriteClient writes;
    static ServiceProcess check;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.start(Pipeline.Settings.defaults("e2e_follower_side")
                .withRelayPollInterval(Duration.ofMillis(50)).withCelebrityPages(40, 16)
                .withServiceProperties(Map.of("graph.write.accounts.start-delay", "500ms")));
        writes = new WriteClient(pipeline.writePort(), pipeline.serviceToken());
        check = ServiceProcess.start("follow-check-service", checkProperties(true), Pipeline.STARTUP);
    }

    /** A check instance whose follower-side entries outlive the test: expiry cannot hide a missed invalidation. */
    private static Map<String, String> checkProperties(boolean followerSide) {
        Map<String, String> props = new HashMap<>(pipeline.checkServiceProperties());
        props.put("graph.check.bloom.snapshot-dir", "target/follower-side-no-snapshots");
        props.put("graph.check.follower-side.enabled", Boolean.toString(followerSide));
        props.put("graph.check.follower-side.window-max-age", "1h");
        props.put("graph.check.follower-side.count-max-age", "1h");
        return props;
    }

    @AfterAll
    static void stop() {
        if (check != null) {
            check.close();
        }
        if (pipeline != null) {
            pipeline.close();
        }
    }

    /** A user id on logical shard {@code shard}. */
    static long user(long n, int shard) {
        return 256L * n + shard;
    }

    // ---------------------------------------------------------------------------------------------------- the model

    /** The graph as it should read: follows with their times, and blocks. */
    static final class Model {
        /** follower -> (followee -> followedAt). */
        final Map<Long, Map<Long, Long>> follows = new HashMap<>();
        final Set<List<Long>> blocks = new HashSet<>();

        /** Who follows {@code b} as {@code [id, followedAt]}, newest first ({@code (followedAt, id)} descending). */
        List<List<Long>> followers(long b) {
            List<List<Long>> out = new ArrayList<>();
            follows.forEach((a, m) -> {
                Long at = m.get(b);
                if (at != null) {
                    out.add(List.of(a, at));
                }
            });
            out.sort(NEWEST_FIRST);
            return out;
        }

        /** Whom {@code a} follows as {@code [id, followedAt]}, newest first. */
        List<List<Long>> following(long a) {
            List<List<Long>> out = new ArrayList<>();
            follows.getOrDefault(a, Map.of()).forEach((b, at) -> out.add(List.of(b, at)));
            out.sort(NEWEST_FIRST);
            return out;
        }

        /** Ids both follow, ascending. */
        List<Long> common(long a, long b) {
            TreeSet<Long> both = new TreeSet<>(follows.getOrDefault(a, Map.of()).keySet());
            both.retainAll(follows.getOrDefault(b, Map.of()).keySet());
            return new ArrayList<>(both);
        }

        void unfollow(long a, long b) {
            follows.getOrDefault(a, new TreeMap<>()).remove(b);
        }
    }

    static final Comparator<List<Long>> NEWEST_FIRST = Comparator.<List<Long>>comparingLong(p -> p.get(1))
            .thenComparingLong(p -> p.get(0)).reversed();

    @Test
    void randomFollowsUnfollowsAndBlocks_cachedListsAndCountsMatchTheModelAfterEachRound() throws Exception {
        List<Long> users = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            users.add(user(1000 + i, (i * 53 + 3) % 256));
        }
        List<Long> hot = users.subList(0, 3);
        Model model = new Model();
        // More followers than a window holds: the hot followees' windows are full and incomplete, and their rows
        // move into celebrity pages.
        for (int i = 0; i < WINDOW + 10; i++) {
            long fan = user(2000 + i, (i * 37 + 5) % 256);
            for (long h : hot) {
                follow(model, fan, h);
            }
        }
        List<List<Long>> pairs = List.of(List.of(users.get(3), users.get(4)), List.of(users.get(5), users.get(17)),
                List.of(users.get(0), users.get(29)), List.of(users.get(8), user(2000, 5)),
                List.of(users.get(11), users.get(23)));
        Random random = new Random(41);
        for (int round = 0; round < 15; round++) {
            for (int step = 0; step < 40; step++) {
                long a = users.get(random.nextInt(users.size()));
                long b = random.nextInt(100) < 45 ? hot.get(random.nextInt(hot.size()))
                        : users.get(random.nextInt(users.size()));
                if (a != b) {
                    write(model, a, b, random.nextInt(100));
                }
            }
            int r = round;
            await().atMost(CONVERGENCE).untilAsserted(() -> assertReadsMatch(check, model, users, pairs, r));
        }
        for (long h : hot) {
            assertThat(model.followers(h)).as("a hot followee's window is incomplete").hasSizeGreaterThan(WINDOW);
            assertThat(pipeline.followerSide(h).pages()).as("a hot followee's followers live in pages").isNotEmpty();
        }
        assertThat(users.stream().filter(u -> !hot.contains(u)).mapToInt(u -> model.followers(u).size()).max()
                .orElseThrow()).as("other windows are complete").isBetween(1, WINDOW);

        // Without these the test would pass with the cache off.
        assertThat(metric("graph_check_follower_windows")).as("windows cached").isPositive();
        assertThat(metric("graph_check_follower_counts")).as("counts cached").isPositive();
        assertThat(metric("graph_check_follower_invalidated_total")).as("entries invalidated by the watermark")
                .isPositive();
        assertThat(metric("graph_check_follower_deepened_total")).as("hot followees' windows deepened by the walks")
                .isPositive();

        // An instance without the follower-side cache reads the same graph from the shards.
        try (ServiceProcess plain = ServiceProcess.start("follow-check-service", checkProperties(false),
                Pipeline.STARTUP)) {
            await().atMost(CONVERGENCE).untilAsserted(() -> assertReadsMatch(plain, model, users, pairs, -1));
            assertThat(metric(plain, "graph_check_follower_windows")).as("no window cached with the cache off")
                    .isZero();
        }
    }

    /** A follow, unfollow, block or unblock of {@code b} by {@code a}, checked and recorded in the model. */
    private static void write(Model model, long a, long b, int op) {
        if (op < 55) {
            if (model.blocks.contains(List.of(b, a))) {
                assertThat(writes.follow(a, b).status()).as("follow of a blocker").isEqualTo(403);
            } else if (model.blocks.contains(List.of(a, b))) {
                assertThat(writes.follow(a, b).status()).as("follow of a blocked user").isEqualTo(409);
            } else {
                follow(model, a, b);
            }
        } else if (op < 77) {
            assertThat(writes.unfollow(a, b).status()).isEqualTo(200);
            model.unfollow(a, b);
        } else if (op < 88) {
            assertThat(writes.relation("blocking", true, a, b)).as("block %d -> %d", a, b).isEqualTo(200);
            model.blocks.add(List.of(a, b));
            model.unfollow(a, b);
            model.unfollow(b, a);
        } else {
            assertThat(writes.relation("blocking", false, a, b)).as("unblock %d -> %d", a, b).isEqualTo(200);
            model.blocks.remove(List.of(a, b));
        }
    }

    private static WriteClient.Reply follow(Model model, long a, long b) {
        WriteClient.Reply reply = writes.follow(a, b);
        assertThat(reply.status()).as("follow %d -> %d", a, b).isEqualTo(200);
        model.follows.computeIfAbsent(a, k -> new HashMap<>()).putIfAbsent(b, reply.followedAt());
        return reply;
    }

    /**
     * Every list and count of every user as the model has it, each read twice: the first read may fill memory, the
     * second is then answered from it.
     */
    private static void assertReadsMatch(ServiceProcess instance, Model model, List<Long> users,
                                         List<List<Long>> pairs, int round) throws Exception {
        for (long u : users) {
            List<List<Long>> followers = model.followers(u);
            List<List<Long>> following = model.following(u);
            for (int read = 0; read < 2; read++) {
                assertThat(walk(instance, u, "followers", 20)).as("round %d: followers of %d by 20", round, u)
                        .isEqualTo(followers);
                assertThat(walk(instance, u, "followers", 7)).as("round %d: followers of %d by 7", round, u)
                        .isEqualTo(followers);
                JsonNode first = page(instance, u, "followers", WINDOW, null, null);
                assertThat(items(first)).as("round %d: first %d followers of %d", round, WINDOW, u)
                        .isEqualTo(followers.subList(0, Math.min(WINDOW, followers.size())));
                assertThat(first.get("nextCursor").isNull()).as("round %d: last page of %d's followers", round, u)
                        .isEqualTo(followers.size() <= WINDOW);
                assertThat(walk(instance, u, "following", 7)).as("round %d: following of %d", round, u)
                        .isEqualTo(following);
                JsonNode counts = counts(instance, u, null);
                assertThat(counts.get("followers").longValue()).as("round %d: followers count of %d", round, u)
                        .isEqualTo(followers.size());
                assertThat(counts.get("following").longValue()).as("round %d: following count of %d", round, u)
                        .isEqualTo(following.size());
            }
        }
        for (List<Long> pair : pairs) {
            long a = pair.get(0);
            long b = pair.get(1);
            for (int read = 0; read < 2; read++) {
                List<Long> answered = new ArrayList<>();
                json(get(instance, "/internal/v1/users/" + a + "/common-following/" + b, null)).get("items")
                        .forEach(n -> answered.add(n.get("userId").longValue()));
                assertThat(answered).as("round %d: common following of %d and %d", round, a, b)
                        .isEqualTo(model.common(a, b));
            }
        }
    }

    // ------------------------------------------------------------------------------------------ read-your-writes

    @Test
    void followAndUnfollowOfACachedFollowee_withTheWritersToken_showAtOnceOnItsFirstPageAndCount() throws Exception {
        long b = user(3000, 17);
        long a = user(3001, 200);
        Model model = new Model();
        for (int i = 0; i < WINDOW + 5; i++) {
            follow(model, user(3100 + i, (i * 29 + 11) % 256), b);
        }
        List<List<Long>> before = model.followers(b);
        List<List<Long>> firstBefore = before.subList(0, WINDOW);
        await().atMost(CONVERGENCE).untilAsserted(() -> {
            assertThat(items(page(check, b, "followers", WINDOW, null, null))).isEqualTo(firstBefore);
            assertThat(counts(check, b, null).get("followers").longValue()).isEqualTo(before.size());
        });
        // Nothing pending: the reads below fill the window and the count, and then answer from them.
        await().atMost(CONVERGENCE).until(() -> metric("graph_check_follower_pending") == 0);
        for (int read = 0; read < 2; read++) {
            assertThat(items(page(check, b, "followers", WINDOW, null, null))).isEqualTo(firstBefore);
            assertThat(counts(check, b, null).get("followers").longValue()).isEqualTo(before.size());
        }

        WriteClient.Reply followed = follow(model, a, b);
        assertThat(followed.followToken()).isNotNull();
        List<List<Long>> withA = model.followers(b);
        assertThat(withA.get(0)).as("the model has the new follow first").isEqualTo(List.of(a, followed.followedAt()));
        assertThat(items(page(check, b, "followers", WINDOW, null, followed.followToken())))
                .as("the first page with the follower's token").isEqualTo(withA.subList(0, WINDOW));
        assertThat(items(page(check, b, "followers", 20, null, followed.followToken())))
                .as("a smaller first page with the follower's token").isEqualTo(withA.subList(0, 20));
        assertThat(counts(check, b, followed.followToken()).get("followers").longValue())
                .as("the count with the follower's token").isEqualTo(before.size() + 1);

        WriteClient.Reply unfollowed = writes.unfollow(a, b);
        assertThat(unfollowed.status()).isEqualTo(200);
        assertThat(unfollowed.followToken()).isNotNull();
        model.unfollow(a, b);
        List<List<Long>> afterUnfollow = items(page(check, b, "followers", WINDOW, null, unfollowed.followToken()));
        assertThat(afterUnfollow).as("the first page with the unfollower's token").doesNotContain(withA.get(0));
        // Taken off a page that may already hold the follow: that page then has one item fewer.
        assertThat(afterUnfollow).hasSizeGreaterThanOrEqualTo(WINDOW - 1)
                .isEqualTo(firstBefore.subList(0, afterUnfollow.size()));
        assertThat(counts(check, b, unfollowed.followToken()).get("followers").longValue())
                .as("the count with the unfollower's token").isEqualTo(before.size());

        // Without a token the same reads come to the same answers once the cdc-consumer applied both events.
        await().atMost(CONVERGENCE).untilAsserted(() -> {
            assertThat(items(page(check, b, "followers", WINDOW, null, null))).isEqualTo(firstBefore);
            assertThat(walk(check, b, "followers", 20)).isEqualTo(before);
            assertThat(counts(check, b, null).get("followers").longValue()).isEqualTo(before.size());
        });
    }

    // ------------------------------------------------------------------------------------------------ account jobs

    /**
     * The count of a followee with more followers than a window holds is cached apart from its window (for an hour
     * here); account jobs move it with no follow event: a follower deactivated, reactivated, erased. Each move shows
     * once the job has announced it (a {@code recount} on {@code follow-events}); were the announcement missed, the
     * count would stay as cached for the hour.
     */
    @Test
    void accountJobsOfAHotFolloweesFollowers_moveItsCachedCount() throws Exception {
        long hot = user(5000, 77);
        List<Long> fans = new ArrayList<>();
        for (int i = 0; i < WINDOW + 5; i++) {
            long fan = user(5100 + i, (i * 29 + 11) % 256);
            assertThat(writes.follow(fan, hot).status()).as("follow %d -> %d", fan, hot).isEqualTo(200);
            fans.add(fan);
        }
        int all = fans.size();
        await().atMost(CONVERGENCE).until(() -> metric("graph_check_follower_pending") == 0);
        await().atMost(CONVERGENCE).untilAsserted(() ->
                assertThat(counts(check, hot, null).get("followers").longValue()).isEqualTo(all));
        assertThat(counts(check, hot, null).get("followers").longValue()).as("the count, cached").isEqualTo(all);
        double recountedBefore = metric("graph_check_follower_recounted_total");

        long deactivated = fans.get(3);
        assertAccountJobDone(writes.deactivate(deactivated));
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(counts(check, hot, null).get("followers")
                .longValue()).as("the count without the deactivated follower").isEqualTo(all - 1));
        assertThat(metric("graph_check_follower_recounted_total")).as("the cached count dropped by the recount")
                .isGreaterThan(recountedBefore);

        assertAccountJobDone(writes.reactivate(deactivated));
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(counts(check, hot, null).get("followers")
                .longValue()).as("the count with the reactivated follower").isEqualTo(all));

        assertAccountJobDone(writes.erase(fans.get(7)));
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(counts(check, hot, null).get("followers")
                .longValue()).as("the count without the erased follower").isEqualTo(all - 1));
        assertThat(walk(check, hot, "followers", 50)).as("the erased follower in no page").hasSize(all - 1)
                .extracting(p -> p.get(0)).doesNotContain(fans.get(7));
    }

    /** A state change accepted, and its job finished. */
    private static void assertAccountJobDone(WriteClient.AccountReply change) {
        assertThat(change.status()).as("the state change").isEqualTo(200);
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(writes.job(change.jobId()).body().get("status")
                .asString()).isEqualTo("done"));
    }

    // ----------------------------------------------------------------------------------------------------- helpers

    private static JsonNode counts(ServiceProcess instance, long user, String followToken) throws Exception {
        return json(get(instance, "/internal/v1/users/" + user + "/counts", followToken));
    }

    private static JsonNode page(ServiceProcess instance, long user, String list, int limit, String cursor,
                                 String followToken) throws Exception {
        return json(get(instance, "/internal/v1/users/" + user + "/" + list + "?limit=" + limit
                + (cursor == null ? "" : "&cursor=" + cursor), followToken));
    }

    /** A page's items as {@code [userId, followedAt]}, in the order answered. */
    private static List<List<Long>> items(JsonNode page) {
        List<List<Long>> out = new ArrayList<>();
        page.get("items").forEach(n -> out.add(List.of(n.get("userId").longValue(), n.get("followedAt").longValue())));
        return out;
    }

    /** A whole list, {@code limit} items a page, as {@code [userId, followedAt]} in the order answered. */
    private static List<List<Long>> walk(ServiceProcess instance, long user, String list, int limit) throws Exception {
        List<List<Long>> out = new ArrayList<>();
        String cursor = null;
        do {
            JsonNode page = page(instance, user, list, limit, cursor, null);
            out.addAll(items(page));
            cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").asString();
        } while (cursor != null);
        return out;
    }

    private static double metric(String name) throws Exception {
        return metric(check, name);
    }

    /** A meter's value as the instance's Prometheus endpoint exports it. */
    private static double metric(ServiceProcess instance, String name) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
                URI.create(instance.managementUrl() + "/actuator/prometheus")).timeout(Duration.ofSeconds(10))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        for (String line : response.body().split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError(name + " not exported");
    }

    private static HttpResponse<String> get(ServiceProcess instance, String path, String followToken)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(instance.baseUrl() + path))
                .timeout(Duration.ofSeconds(10)).header(Headers.SERVICE_TOKEN, pipeline.serviceToken()).GET();
        if (followToken != null) {
            request.header(Headers.FOLLOW_TOKEN, followToken);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }
}