package dev.socialgraph.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.localruntime.ServiceProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Account lifecycle through the real processes (docs/account-lifecycle.md): the write service (state changes, their
 * jobs, the refusal of inactive users' writes), the outbox relay, Kafka, the cdc-consumer (follower side, celebrity
 * pages, erased users' events skipped) and a check service (the view of inactive users, counts less their
 * exclusions). A celebrity with pages is deactivated and reactivated while other users follow and unfollow, and a
 * model of random follows, unfollows, blocks, mutes, deactivations, reactivations and erasures is checked against
 * every read after each round.
 */
class AccountLifecycleIT {

    static final Duration CONVERGENCE = Duration.ofSeconds(60);
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    static Pipeline pipeline;
    static WriteClient writes;
    static ServiceProcess check;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.start(Pipeline.Settings.defaults("e2e_accounts").withRelayPollInterval(Duration.ofMillis(50))
                .withCelebrityPages(40, 16)
                .withServiceProperties(Map.of("graph.write.accounts.start-delay", "2s")));
        writes = new WriteClient(pipeline.writePort(), pipeline.serviceToken());
        Map<String, String> props = new HashMap<>(pipeline.checkServiceProperties());
        props.put("graph.check.bloom.snapshot-dir", "target/account-lifecycle-no-snapshots");
        check = ServiceProcess.start("follow-check-service", props, Pipeline.STARTUP);
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

    /** A user id on logical shard {@code shard}; both databases of each group are used. */
    static long user(long n, int shard) {
        return 256L * n + shard;
    }

    // ------------------------------------------------------------------------------------------------ the celebrity

    @Test
    void celebrityWithPages_deactivatedAndReactivated_underLiveFollows_comesBackExactly() throws Exception {
        long celebrity = user(100, 7);
        List<Long> fans = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            fans.add(user(200 + i, (i * 37) % 256));
        }
        for (long fan : fans) {
            assertThat(writes.follow(fan, celebrity).status()).isEqualTo(200);
        }
        List<Long> followed = List.of(fans.get(0), fans.get(1), fans.get(2));
        for (long f : followed) {
            assertThat(writes.follow(celebrity, f).status()).isEqualTo(200);
        }
        await().atMost(CONVERGENCE).until(() -> walk(celebrity, "followers").size() == 120);
        List<List<Long>> before = walk(celebrity, "followers");
        assertThat(pipeline.followerSide(celebrity).pages()).as("the followers live in pages").isNotEmpty();
        long fanFollowingBefore = counts(fans.get(5)).get("following").longValue();
        long followedFollowersBefore = counts(followed.get(0)).get("followers").longValue();

        // Other users follow and unfollow each other all along.
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger live = new AtomicInteger();
        ExecutorService threads = Executors.newSingleThreadExecutor();
        Future<?> background = threads.submit(() -> {
            Random random = new Random(5);
            while (!stop.get()) {
                long a = user(500 + random.nextInt(20), 11);
                long b = user(500 + random.nextInt(20), 140);
                int status = random.nextBoolean() ? writes.follow(a, b).status() : writes.unfollow(a, b).status();
                assertThat(status).isEqualTo(200);
                live.incrementAndGet();
            }
        });

        WriteClient.AccountReply off = writes.deactivate(celebrity);
        assertThat(off.status()).isEqualTo(200);
        assertThat(off.body().get("state").asString()).isEqualTo("deactivated");
        await().atMost(Duration.ofSeconds(5)).until(() -> walk(celebrity, "followers").isEmpty());
        for (long fan : fans.subList(0, 20)) {
            assertThat(follows(fan, celebrity)).as("%d follows the celebrity", fan).isFalse();
        }
        assertThat(walk(followed.get(0), "followers")).extracting(p -> p.get(0)).doesNotContain(celebrity);
        assertThat(writes.follow(fans.get(0), celebrity).status()).as("a follow of an inactive user").isEqualTo(404);
        awaitJob(off.jobId());
        assertThat(counts(fans.get(5)).get("following").longValue()).isEqualTo(fanFollowingBefore - 1);
        // A follower count in memory lives 2 s at most: the job's offsets announce themselves by no event.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                counts(followed.get(0)).get("followers").longValue()).isEqualTo(followedFollowersBefore - 1));
        assertThat(counts(celebrity).get("followers").longValue()).isZero();

        WriteClient.AccountReply on = writes.reactivate(celebrity);
        assertThat(on.status()).isEqualTo(200);
        assertThat(on.body().get("state").asString()).isEqualTo("active");
        await().atMost(Duration.ofSeconds(5)).until(() -> walk(celebrity, "followers").size() == 120);
        assertThat(walk(celebrity, "followers")).as("every follower, time and order").isEqualTo(before);
        awaitJob(on.jobId());
        assertThat(counts(fans.get(5)).get("following").longValue()).isEqualTo(fanFollowingBefore);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                counts(followed.get(0)).get("followers").longValue()).isEqualTo(followedFollowersBefore));
        assertThat(follows(fans.get(7), celebrity)).isTrue();

        stop.set(true);
        background.get();
        threads.shutdown();
        assertThat(live.get()).as("live writes during the lifecycle").isPositive();
    }

    // ---------------------------------------------------------------------------------------------------- the model

    /** The graph as it should read: follows with times, blocks, mutes, and who is inactive. */
    static final class Model {
        final Map<Long, TreeMap<Long, Long>> follows = new HashMap<>();
        final Set<List<Long>> blocks = new HashSet<>();
        final Set<List<Long>> mutes = new HashSet<>();
        final Set<Long> deactivated = new HashSet<>();
        final Set<Long> erased = new HashSet<>();

        boolean inactive(long u) {
            return deactivated.contains(u) || erased.contains(u);
        }

        boolean visible(long a, long b) {
            return !inactive(a) && !inactive(b);
        }

        boolean follows(long a, long b) {
            return visible(a, b) && follows.getOrDefault(a, new TreeMap<>()).containsKey(b);
        }

        TreeSet<Long> following(long a) {
            TreeSet<Long> out = new TreeSet<>();
            if (!inactive(a)) {
                follows.getOrDefault(a, new TreeMap<>()).keySet().stream().filter(b -> !inactive(b)).forEach(out::add);
            }
            return out;
        }

        TreeSet<Long> followers(long b) {
            TreeSet<Long> out = new TreeSet<>();
            if (!inactive(b)) {
                follows.forEach((a, m) -> {
                    if (m.containsKey(b) && !inactive(a)) {
                        out.add(a);
                    }
                });
            }
            return out;
        }
    }

    @Test
    void randomFollowsBlocksMutesAndLifecycle_everyReadMatchesTheModelAfterEachRound() throws Exception {
        List<Long> users = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            users.add(user(900 + i, (i * 71) % 256));
        }
        Model model = new Model();
        Random random = new Random(29);
        List<String> jobs = new ArrayList<>();
        for (int round = 0; round < 8; round++) {
            for (int step = 0; step < 12; step++) {
                long a = users.get(random.nextInt(users.size()));
                long b = users.get(random.nextInt(users.size()));
                int op = random.nextInt(100);
                if (op < 6) {
                    apply(model, jobs, a, op % 3);
                } else if (a != b) {
                    write(model, a, b, op);
                }
            }
            for (String job : jobs) {
                awaitJob(job);
            }
            jobs.clear();
            int r = round;
            await().atMost(CONVERGENCE).untilAsserted(() -> assertReadsMatch(model, users, r));
        }
        assertThat(model.deactivated.size() + model.erased.size()).as("the model exercised the lifecycle")
                .isPositive();
    }

    /** A state change: 0 deactivate, 1 reactivate, 2 erase. */
    private static void apply(Model model, List<String> jobs, long u, int kind) {
        WriteClient.AccountReply reply = switch (kind) {
            case 0 -> writes.deactivate(u);
            case 1 -> writes.reactivate(u);
            default -> writes.erase(u);
        };
        if (model.erased.contains(u) && kind != 2) {
            assertThat(reply.status()).as("a change of an erased user").isEqualTo(409);
            return;
        }
        assertThat(reply.status()).isEqualTo(200);
        if (reply.jobId() != null) {
            jobs.add(reply.jobId());
        }
        switch (kind) {
            case 0 -> model.deactivated.add(u);
            case 1 -> model.deactivated.remove(u);
            default -> {
                model.deactivated.remove(u);
                model.erased.add(u);
                model.follows.remove(u);
                model.follows.values().forEach(m -> m.remove(u));
                model.blocks.removeIf(p -> p.contains(u));
                model.mutes.removeIf(p -> p.contains(u));
            }
        }
    }

    /** A follow, unfollow, block, unblock, mute or unmute of {@code a} on {@code b}, checked against the model. */
    private static void write(Model model, long a, long b, int op) {
        boolean inactive = model.inactive(a) || model.inactive(b);
        List<Long> ab = List.of(a, b);
        List<Long> ba = List.of(b, a);
        if (op < 50) {
            WriteClient.Reply reply = writes.follow(a, b);
            if (inactive) {
                assertThat(reply.status()).as("follow %d -> %d, inactive", a, b).isEqualTo(404);
            } else if (model.blocks.contains(ba)) {
                assertThat(reply.status()).isEqualTo(403);
            } else if (model.blocks.contains(ab)) {
                assertThat(reply.status()).isEqualTo(409);
            } else {
                assertThat(reply.status()).isEqualTo(200);
                model.follows.computeIfAbsent(a, k -> new TreeMap<>()).putIfAbsent(b, reply.followedAt());
            }
        } else if (op < 70) {
            int status = writes.unfollow(a, b).status();
            assertThat(status).isEqualTo(inactive ? 404 : 200);
            if (!inactive) {
                model.follows.getOrDefault(a, new TreeMap<>()).remove(b);
            }
        } else if (op < 85) {
            boolean on = op < 80;
            int status = writes.relation("blocking", on, a, b);
            assertThat(status).as("block %s %d -> %d", on, a, b).isEqualTo(inactive ? 404 : 200);
            if (!inactive && on) {
                model.blocks.add(ab);
                model.follows.getOrDefault(a, new TreeMap<>()).remove(b);
                model.follows.getOrDefault(b, new TreeMap<>()).remove(a);
            } else if (!inactive) {
                model.blocks.remove(ab);
            }
        } else {
            boolean on = op < 95;
            int status = writes.relation("muting", on, a, b);
            assertThat(status).as("mute %s %d -> %d", on, a, b).isEqualTo(inactive ? 404 : 200);
            if (!inactive && on) {
                model.mutes.add(ab);
            } else if (!inactive) {
                model.mutes.remove(ab);
            }
        }
    }

    private static void assertReadsMatch(Model model, List<Long> users, int round) throws Exception {
        for (long a : users) {
            assertThat(ids(walk(a, "following"))).as("round %d: following of %d", round, a)
                    .isEqualTo(model.following(a));
            assertThat(ids(walk(a, "followers"))).as("round %d: followers of %d", round, a)
                    .isEqualTo(model.followers(a));
            JsonNode counts = counts(a);
            assertThat(counts.get("following").longValue()).as("round %d: following count of %d", round, a)
                    .isEqualTo(model.following(a).size());
            assertThat(counts.get("followers").longValue()).as("round %d: followers count of %d", round, a)
                    .isEqualTo(model.followers(a).size());
            long[] others = users.stream().mapToLong(Long::longValue).filter(u -> u != a).toArray();
            JsonNode hidden = json(post("/internal/v1/users/" + a + "/hidden", ids(others)));
            TreeSet<Long> blocking = new TreeSet<>();
            TreeSet<Long> muting = new TreeSet<>();
            for (long b : others) {
                if (model.visible(a, b) && model.blocks.contains(List.of(a, b))) {
                    blocking.add(b);
                }
                if (model.visible(a, b) && model.mutes.contains(List.of(a, b))) {
                    muting.add(b);
                }
            }
            assertThat(longs(hidden.get("blocking"))).as("round %d: %d blocks", round, a).isEqualTo(blocking);
            assertThat(longs(hidden.get("muting"))).as("round %d: %d mutes", round, a).isEqualTo(muting);
            for (long b : others) {
                assertThat(follows(a, b)).as("round %d: %d follows %d", round, a, b).isEqualTo(model.follows(a, b));
                JsonNode rel = json(get("/internal/v1/users/" + a + "/relationship/" + b));
                assertThat(rel.get("following").booleanValue()).isEqualTo(model.follows(a, b));
                assertThat(rel.get("blocking").booleanValue()).as("round %d: relationship %d %d", round, a, b)
                        .isEqualTo(model.visible(a, b) && model.blocks.contains(List.of(a, b)));
                TreeSet<Long> common = new TreeSet<>(model.following(a));
                common.retainAll(model.following(b));
                List<Long> answered = new ArrayList<>();
                json(get("/internal/v1/users/" + a + "/common-following/" + b)).get("items")
                        .forEach(n -> answered.add(n.get("userId").longValue()));
                assertThat(answered).as("round %d: common of %d and %d", round, a, b)
                        .isEqualTo(new ArrayList<>(common));
            }
            List<Long> suggested = new ArrayList<>();
            json(get("/internal/v1/users/" + a + "/suggestions")).get("items")
                    .forEach(n -> suggested.add(n.get("userId").longValue()));
            for (long s : suggested) {
                assertThat(model.inactive(s)).as("round %d: %d suggested to %d", round, s, a).isFalse();
            }
        }
    }

    // ----------------------------------------------------------------------------------------------------- helpers

    private static void awaitJob(String jobId) {
        await().atMost(CONVERGENCE).until(() -> "done".equals(writes.job(jobId).body().get("status").asString()));
    }

    private static boolean follows(long a, long b) throws Exception {
        return json(get("/internal/v1/users/" + a + "/following/" + b)).get("following").booleanValue();
    }

    private static JsonNode counts(long user) throws Exception {
        return json(get("/internal/v1/users/" + user + "/counts"));
    }

    /** A whole list, two items a page: {@code [userId, followedAt]} in the order answered. */
    private static List<List<Long>> walk(long user, String list) throws Exception {
        List<List<Long>> out = new ArrayList<>();
        String cursor = null;
        do {
            JsonNode page = json(get("/internal/v1/users/" + user + "/" + list + "?limit=7"
                    + (cursor == null ? "" : "&cursor=" + cursor)));
            page.get("items").forEach(n -> out.add(List.of(n.get("userId").longValue(),
                    n.get("followedAt").longValue())));
            cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").asString();
        } while (cursor != null);
        return out;
    }

    private static TreeSet<Long> ids(List<List<Long>> items) {
        TreeSet<Long> out = new TreeSet<>();
        items.forEach(p -> out.add(p.get(0)));
        return out;
    }

    private static String ids(long[] ids) {
        StringBuilder s = new StringBuilder("{\"ids\":[");
        for (int i = 0; i < ids.length; i++) {
            s.append(i == 0 ? "" : ",").append(ids[i]);
        }
        return s.append("]}").toString();
    }

    private static TreeSet<Long> longs(JsonNode array) {
        TreeSet<Long> out = new TreeSet<>();
        array.forEach(n -> out.add(n.longValue()));
        return out;
    }

    private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(check.baseUrl() + path)).timeout(Duration.ofSeconds(10))
                .header("X-Service-Token", pipeline.serviceToken()).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(check.baseUrl() + path)).timeout(Duration.ofSeconds(10))
                .header("X-Service-Token", pipeline.serviceToken()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }
}
