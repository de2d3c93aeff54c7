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
 * model of random follows, unfollows, blocks, mutes, deactivations, reactivations and erasures, protected accounts
 * and their follow requests (made, accepted, declined, withdrawn, accepted by the job that makes an account public),
 * and removed followers is checked against every read after each round, for every kind of viewer: the user itself,
 * an accepted follower, another user, a user it blocks, and a backend naming no viewer.
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
        // The job announces the followees whose counts it moved (a recount), and their cached counts are dropped.
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
        final Set<Long> protectedUsers = new HashSet<>();
        /** Pending follow requests, {@code [requester, protected account]}. */
        final Set<List<Long>> requests = new HashSet<>();

        /** Whether {@code viewer} ({@link #SERVICE}: a backend) may see whom {@code owner} follows and who follows it. */
        boolean maySee(long viewer, long owner) {
            return viewer == SERVICE || viewer == owner || !protectedUsers.contains(owner) || follows(viewer, owner);
        }

        /** {@code a}'s stored follow of {@code b}, visible or not. */
        boolean stored(long a, long b) {
            return follows.getOrDefault(a, new TreeMap<>()).containsKey(b);
        }

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

    /** The viewer of a backend's reads: no {@code X-Viewer-Id}. */
    static final long SERVICE = 0;

    @Test
    void randomFollowsBlocksMutesAndLifecycle_everyReadMatchesTheModelAfterEachRound() throws Exception {
        List<Long> users = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            users.add(user(900 + i, (i * 71) % 256));
        }
        Model model = new Model();
        Random random = new Random(29);
        List<String> jobs = new ArrayList<>();
        for (int round = 0; round < 10; round++) {
            for (int step = 0; step < 16; step++) {
                long a = users.get(random.nextInt(users.size()));
                long b = users.get(random.nextInt(users.size()));
                int op = random.nextInt(100);
                if (op < 4) {
                    apply(model, jobs, a, op % 3); // erasure 1 %: the model keeps most of its users
                } else if (op < 16 && op % 4 < 2 && !model.requests.isEmpty()) {
                    // An answer to a pending request (the other answers go to random pairs, mostly nothing pending).
                    List<List<Long>> pending = model.requests.stream()
                            .sorted(java.util.Comparator.comparing((List<Long> p) -> p.get(0)).thenComparing(p -> p.get(1)))
                            .toList();
                    List<Long> request = pending.get(random.nextInt(pending.size()));
                    answer(model, request.get(0), request.get(1), op);
                } else if (a != b && op < 16) {
                    answer(model, a, b, op);
                } else if (op < 22) {
                    protection(model, jobs, a, true);
                } else if (a != b) {
                    write(model, a, b, op);
                }
            }
            // An account made public last, so that the job accepting its requests runs with no write beside it.
            // Mostly an account with requests pending, so that the job has some to accept.
            long u = model.requests.stream().map(p -> p.get(1)).sorted().findFirst()
                    .orElse(users.get(random.nextInt(users.size())));
            boolean madePublic = random.nextBoolean() && protection(model, jobs, u, false);
            for (String job : jobs) {
                awaitJob(job);
            }
            jobs.clear();
            if (madePublic) {
                acceptAll(model, u);
            }
            int r = round;
            await().atMost(CONVERGENCE).untilAsserted(() -> assertReadsMatch(model, users, r));
        }
        assertThat(model.deactivated.size() + model.erased.size()).as("the model exercised the lifecycle")
                .isPositive();
        // The seed is fixed, so these are too: a run that made no request, or accepted none, tested nothing of them.
        assertThat(new int[] {requestsMade, acceptedByUser, acceptedByJob})
                .as("requests made, accepted by the account, accepted by the job").doesNotContain(0);
    }

    private static int requestsMade;
    private static int acceptedByUser;
    private static int acceptedByJob;

    /**
     * {@code u} made protected ({@code on}) or public; inactive users are refused (404).
     *
     * @return whether {@code u} was made public: its job then accepts the pending requests
     */
    private static boolean protection(Model model, List<String> jobs, long u, boolean on) {
        WriteClient.AccountReply reply = writes.protection(on, u);
        if (model.inactive(u)) {
            assertThat(reply.status()).as("protection of inactive %d", u).isEqualTo(404);
            return false;
        }
        assertThat(reply.status()).as("protection %s of %d", on, u).isEqualTo(200);
        assertThat(reply.body().get("protected").booleanValue()).isEqualTo(on);
        if (on) {
            model.protectedUsers.add(u);
            return false;
        }
        if (!model.protectedUsers.remove(u)) {
            return false; // public already: no change, no job
        }
        jobs.add(reply.jobId());
        return true;
    }

    /**
     * What the job of {@code u} made public did: every pending request to it ended, as a follow unless its requester
     * is inactive (nothing happens while {@code u} itself is inactive: its requests stay, as its edges do).
     */
    private static void acceptAll(Model model, long u) {
        if (model.inactive(u)) {
            return;
        }
        for (List<Long> request : List.copyOf(model.requests)) {
            long r = request.get(0);
            if (request.get(1) == u) {
                model.requests.remove(request);
                if (!model.inactive(r) && !model.blocks.contains(List.of(u, r))) {
                    model.follows.computeIfAbsent(r, k -> new TreeMap<>()).putIfAbsent(u, -1L);
                    acceptedByJob++;
                }
            }
        }
    }

    /**
     * {@code b} answers {@code a}: accepts or declines {@code a}'s follow request, or removes {@code a} from its
     * followers (which is {@code a}'s unfollow of {@code b}).
     */
    private static void answer(Model model, long a, long b, int op) {
        List<Long> request = List.of(a, b);
        if (op >= 14) {
            int status = writes.unfollow(a, b).status();
            boolean inactive = model.inactive(a) || model.inactive(b);
            assertThat(status).as("%d removes follower %d", b, a).isEqualTo(inactive ? 404 : 200);
            if (!inactive) {
                model.follows.getOrDefault(a, new TreeMap<>()).remove(b);
                model.requests.remove(request);
            }
            return;
        }
        boolean accept = op % 2 == 0;
        WriteClient.Reply reply = writes.answerRequest(accept, b, a);
        if (!accept) {
            boolean inactive = model.inactive(a) || model.inactive(b);
            assertThat(reply.status()).as("%d declines %d", b, a).isEqualTo(inactive ? 404 : 200);
            if (!inactive) {
                model.requests.remove(request);
            }
            return;
        }
        int expected;
        if (model.inactive(b)) {
            expected = 404;
        } else if (model.blocks.contains(List.of(b, a))) {
            expected = 409;
            model.requests.remove(request);
        } else if (model.inactive(a)) {
            expected = 404;
        } else if (model.stored(a, b)) {
            expected = 200;
            model.requests.remove(request);
        } else if (model.requests.remove(request)) {
            expected = 200;
            model.follows.computeIfAbsent(a, k -> new TreeMap<>()).put(b, reply.followedAt());
            acceptedByUser++;
        } else {
            expected = 404;
        }
        assertThat(reply.status()).as("%d accepts %d", b, a).isEqualTo(expected);
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
                model.requests.removeIf(p -> p.contains(u));
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
            } else if (model.protectedUsers.contains(b) && !model.stored(a, b)) {
                assertThat(reply.status()).as("follow %d -> protected %d", a, b).isEqualTo(202);
                if (model.requests.add(ab)) {
                    requestsMade++;
                }
            } else {
                assertThat(reply.status()).isEqualTo(200);
                model.follows.computeIfAbsent(a, k -> new TreeMap<>()).putIfAbsent(b, reply.followedAt());
            }
        } else if (op < 70) {
            int status = writes.unfollow(a, b).status();
            assertThat(status).isEqualTo(inactive ? 404 : 200);
            if (!inactive) {
                model.follows.getOrDefault(a, new TreeMap<>()).remove(b);
                model.requests.remove(ab); // a pending request is withdrawn by the unfollow
            }
        } else if (op < 85) {
            boolean on = op < 80;
            int status = writes.relation("blocking", on, a, b);
            assertThat(status).as("block %s %d -> %d", on, a, b).isEqualTo(inactive ? 404 : 200);
            if (!inactive && on) {
                model.blocks.add(ab);
                model.follows.getOrDefault(a, new TreeMap<>()).remove(b);
                model.follows.getOrDefault(b, new TreeMap<>()).remove(a);
                model.requests.remove(ab);
                model.requests.remove(ba);
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
            assertRequestsMatch(model, users, a, round);
            for (long viewer : viewers(model, users, a)) {
                assertSeenBy(model, users, a, viewer, round);
            }
        }
    }

    /** {@code a}'s pending follow requests both ways, as the model has them. */
    private static void assertRequestsMatch(Model model, List<Long> users, long a, int round) throws Exception {
        TreeSet<Long> outgoing = new TreeSet<>();
        TreeSet<Long> incoming = new TreeSet<>();
        if (!model.inactive(a)) {
            for (List<Long> request : model.requests) {
                if (request.get(0) == a && !model.inactive(request.get(1))) {
                    outgoing.add(request.get(1));
                }
                if (request.get(1) == a && !model.inactive(request.get(0))) {
                    incoming.add(request.get(0));
                }
            }
        }
        assertThat(requestIds(a, "outgoing")).as("round %d: %d's own requests", round, a).isEqualTo(outgoing);
        assertThat(requestIds(a, "incoming")).as("round %d: requests to %d", round, a).isEqualTo(incoming);
    }

    /** The viewers of {@code a}'s reads: itself, an accepted follower, another user, a user it blocks, a backend. */
    private static List<Long> viewers(Model model, List<Long> users, long a) {
        List<Long> out = new ArrayList<>(List.of(a, SERVICE));
        model.followers(a).stream().findFirst().ifPresent(out::add);
        users.stream().filter(v -> v != a && !model.follows(v, a) && !model.blocks.contains(List.of(a, v)))
                .findFirst().ifPresent(out::add);
        users.stream().filter(v -> model.blocks.contains(List.of(a, v))).findFirst().ifPresent(out::add);
        return out;
    }

    /**
     * What {@code viewer} sees of {@code a}: its lists and checks, or 403 {@code protected-account} where it may not
     * see them; its relationships, leaving out a protected user's follow it may not see, with the requests between
     * the two shown to them only.
     */
    private static void assertSeenBy(Model model, List<Long> users, long a, long viewer, int round) throws Exception {
        boolean sees = model.maySee(viewer, a);
        String as = "round " + round + ", viewer " + viewer + ", of " + a;
        for (String list : List.of("following", "followers")) {
            HttpResponse<String> page = get("/internal/v1/users/" + a + "/" + list + "?limit=50", viewer);
            assertThat(page.statusCode()).as(as + ": " + list).isEqualTo(sees ? 200 : 403);
            if (sees) {
                TreeSet<Long> ids = new TreeSet<>();
                JSON.readTree(page.body()).get("items").forEach(n -> ids.add(n.get("userId").longValue()));
                assertThat(ids).as(as + ": " + list).isEqualTo(list.equals("following") ? model.following(a)
                        : model.followers(a));
            } else {
                assertThat(page.body()).contains("https://socialgraph.dev/problems/protected-account");
            }
        }
        for (long b : users) {
            if (b == a) {
                continue;
            }
            HttpResponse<String> check = get("/internal/v1/users/" + a + "/following/" + b, viewer);
            assertThat(check.statusCode()).as(as + ": check of %d", b).isEqualTo(sees ? 200 : 403);
            if (sees) {
                assertThat(JSON.readTree(check.body()).get("following").booleanValue()).as(as + ": check of %d", b)
                        .isEqualTo(model.follows(a, b));
            }
            JsonNode rel = json(get("/internal/v1/users/" + a + "/relationship/" + b, viewer));
            String about = as + ": relationship with " + b;
            assertThat(rel.has("following")).as(about).isEqualTo(sees);
            assertThat(rel.has("followedBy")).as(about).isEqualTo(model.maySee(viewer, b));
            if (sees) {
                assertThat(rel.get("following").booleanValue()).as(about).isEqualTo(model.follows(a, b));
            }
            assertThat(rel.get("protected").booleanValue()).as(about).isEqualTo(model.protectedUsers.contains(b));
            boolean showRequests = viewer == SERVICE || viewer == a || viewer == b;
            assertThat(rel.has("requested")).as(about).isEqualTo(showRequests);
            if (showRequests) {
                assertThat(rel.get("requested").booleanValue()).as(about).isEqualTo(
                        model.protectedUsers.contains(b) && model.requests.contains(List.of(a, b)));
                assertThat(rel.get("requestedBy").booleanValue()).as(about).isEqualTo(
                        model.protectedUsers.contains(a) && model.requests.contains(List.of(b, a)));
            }
        }
    }

    private static TreeSet<Long> requestIds(long user, String direction) throws Exception {
        TreeSet<Long> out = new TreeSet<>();
        json(get("/internal/v1/users/" + user + "/follow-requests?limit=50&direction=" + direction)).get("items")
                .forEach(n -> out.add(n.get("userId").longValue()));
        return out;
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

    /** A GET as {@code viewer} would see it through the gateway ({@code X-Viewer-Id}); none for {@link #SERVICE}. */
    private static HttpResponse<String> get(String path, long viewer) throws IOException, InterruptedException {
        if (viewer == SERVICE) {
            return get(path);
        }
        return HTTP.send(HttpRequest.newBuilder(URI.create(check.baseUrl() + path)).timeout(Duration.ofSeconds(10))
                .header("X-Service-Token", pipeline.serviceToken()).header("X-Viewer-Id", Long.toString(viewer))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
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
