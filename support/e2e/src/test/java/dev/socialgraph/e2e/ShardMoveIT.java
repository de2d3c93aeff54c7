package dev.socialgraph.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDirectory;
import dev.socialgraph.testsupport.PostgresServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.tools.shards.MoveSummary;
import dev.socialgraph.tools.shards.ShardMover;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Online shard moves through the real processes (docs/shard-moves.md): the write service, the cdc-consumer and a check
 * service route by a shard directory; while clients follow and unfollow random pairs and read them back through the
 * check service, following shards 128..191 move to a third database and back, and follower shards 0..63 move to a new
 * database. Afterwards every acknowledged write is in the following rows of the newest map, the follower side
 * converged to the same edges, every read during the moves matched the model, and a reconciler scan finds nothing.
 */
class ShardMoveIT {

    private static final int USERS_PER_GROUP = 8;

    private static Pipeline pipeline;
    private static ServiceProcess check;
    private static PostgresServer postgres;
    private static final List<String> databases = new ArrayList<>();

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() {
        postgres = TestServers.postgres();
        pipeline = Pipeline.start(Pipeline.Settings.defaults("shardmove").withRelayPollInterval(Duration.ofMillis(50))
                .withDirectory());
        Map<String, String> props = new HashMap<>(pipeline.checkServiceProperties());
        props.put("graph.check.bloom.snapshot-dir", "target/shard-move-no-snapshots");
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
        databases.forEach(postgres::dropDatabase);
    }

    /** A user of logical shard {@code shard}. */
    private static long user(int shard, int k) {
        return shard + 256L * k;
    }

    /** What the model knows of a pair: whether it is followed, and when it was last acknowledged (nanoTime). */
    private record Edge(boolean following, long ackedAt) {
    }

    private final Map<List<Long>, Edge> model = new ConcurrentHashMap<>();
    private final Set<List<Long>> busy = ConcurrentHashMap.newKeySet();
    private final Map<Long, String> tokens = new ConcurrentHashMap<>();
    private final Map<Long, Long> tokenAt = new ConcurrentHashMap<>();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();
    private final List<String> wrongReads = java.util.Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean stop = new AtomicBoolean();

    @Test
    void moves_underWritesAndReads_loseNoWriteAndAnswerEveryReadRight() throws Exception {
        ShardDirectory directory = pipeline.directory().orElseThrow();
        // Followers in f0, in the moved following range 128..191 and after it; followees in the moved follower range
        // 0..63 and outside it.
        List<Long> users = new ArrayList<>();
        for (int k = 1; k <= USERS_PER_GROUP; k++) {
            users.add(user(100 + k, k));
            users.add(user(130 + 7 * k, k));
            users.add(user(200 + k, k));
            users.add(user(5 * k, k + 10));
        }
        WriteClient writer = new WriteClient(pipeline.writePort(), pipeline.serviceToken());
        ExecutorService threads = Executors.newCachedThreadPool();
        List<Future<?>> clients = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            clients.add(threads.submit(() -> write(writer, users)));
        }
        for (int t = 0; t < 2; t++) {
            clients.add(threads.submit(() -> read(users)));
        }
        try {
            String third = postgres.createDatabase("shardmove_following_2");
            databases.add(third);
            String follower2 = "shardmove_follower_2_" + Long.toString(System.nanoTime() % 1_000_000_000L, 36);
            databases.add(follower2);
            ShardRange f1 = pipeline.shards().shardMap().ranges(ShardGroup.FOLLOWING).get(1);
            ShardMover mover = new ShardMover(directory, pipeline.shards().username(), pipeline.shards().password(),
                    ShardMover.Settings.defaults().withReaderWait(Duration.ofSeconds(20)));

            awaitWrites(150);
            MoveSummary away = mover.move(new ShardMover.Request(ShardGroup.FOLLOWING, 128, 191, third,
                    postgres.jdbcUrl(third), false));
            awaitWrites(150);
            MoveSummary back = mover.move(new ShardMover.Request(ShardGroup.FOLLOWING, 128, 191, f1.database(),
                    f1.jdbcUrl(), false));
            awaitWrites(150);
            MoveSummary followers = mover.move(new ShardMover.Request(ShardGroup.FOLLOWER, 0, 63, follower2,
                    postgres.jdbcUrl(follower2), true));
            awaitWrites(150);
            stop.set(true);
            for (Future<?> client : clients) {
                client.get();
            }
            for (MoveSummary s : List.of(away, back, followers)) {
                System.out.print(s.report());
            }
            System.out.printf("writes %d (retried %d), reads %d%n", writes.get(), retries.get(), reads.get());

            assertThat(List.of(away.newVersion(), back.newVersion(), followers.newVersion())).containsExactly(2L, 3L,
                    4L);
            for (MoveSummary s : List.of(away, back, followers)) {
                assertThat(s.stragglers()).as("readers behind after %s", s.report()).isEmpty();
                assertThat(s.rowsCleaned()).isNotNegative();
            }
        } finally {
            stop.set(true);
            threads.shutdownNow();
        }

        // Every acknowledged write in the following rows of the newest map; the follower side converges to them.
        await().atMost(Duration.ofSeconds(20)).until(() -> pipeline.dataSources().version() == 4);
        Map<Long, List<Long>> expectedFollowing = new HashMap<>();
        Map<Long, List<Long>> expectedFollowers = new HashMap<>();
        for (Map.Entry<List<Long>, Edge> e : model.entrySet()) {
            if (e.getValue().following()) {
                expectedFollowing.computeIfAbsent(e.getKey().get(0), k -> new ArrayList<>()).add(e.getKey().get(1));
                expectedFollowers.computeIfAbsent(e.getKey().get(1), k -> new ArrayList<>()).add(e.getKey().get(0));
            }
        }
        for (long u : users) {
            long[] expected = expectedFollowing.getOrDefault(u, List.of()).stream().mapToLong(Long::longValue)
                    .sorted().toArray();
            long[] stored = pipeline.followingRow(u).map(FollowingRow::followingIds).orElse(new long[0]);
            assertThat(stored).as("followings of %d", u).containsExactly(expected);
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            for (long u : users) {
                long[] expected = expectedFollowers.getOrDefault(u, List.of()).stream().mapToLong(Long::longValue)
                        .sorted().toArray();
                long[] stored = pipeline.followerSide(u).entries().stream().mapToLong(entry -> entry[0]).sorted()
                        .toArray();
                assertThat(stored).as("followers of %d", u).containsExactly(expected);
            }
        });
        assertThat(wrongReads).as("reads that contradicted the model").isEmpty();
        assertThat(reads.get()).isPositive();
        String scan = reconcilerScan();
        assertThat(scan).contains("\"state\":\"completed\"", "\"repairs\":0",
                "\"missing_follower\":0", "\"wrong_count\":0");
        Matcher scanned = Pattern.compile("\"rowsScanned\":(\\d+)").matcher(scan);
        assertThat(scanned.find()).as(scan).isTrue();
        assertThat(Long.parseLong(scanned.group(1))).as("rows the scan read, " + scan).isPositive();
    }

    private void awaitWrites(long more) {
        long target = writes.get() + more;
        await().atMost(Duration.ofSeconds(60)).until(() -> writes.get() >= target);
    }

    /** Follows or unfollows random free pairs until stopped; retries an unacknowledged one (both are idempotent). */
    private void write(WriteClient client, List<Long> users) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop.get()) {
            List<Long> pair = List.of(users.get(random.nextInt(users.size())), users.get(random.nextInt(users.size())));
            if (pair.get(0).equals(pair.get(1)) || !busy.add(pair)) {
                continue;
            }
            try {
                boolean follow = random.nextInt(3) > 0;
                WriteClient.Reply reply;
                for (int attempt = 1; ; attempt++) {
                    reply = follow ? client.follow(pair.get(0), pair.get(1))
                            : client.unfollow(pair.get(0), pair.get(1));
                    if (reply.status() == 200) {
                        break;
                    }
                    retries.incrementAndGet();
                    if (attempt == 50) {
                        throw new IllegalStateException("write " + pair + " refused 50 times, last " + reply);
                    }
                }
                model.put(pair, new Edge(follow, System.nanoTime()));
                tokens.put(pair.get(0), reply.followToken());
                tokenAt.put(pair.get(0), System.nanoTime());
                writes.incrementAndGet();
            } finally {
                busy.remove(pair);
            }
        }
    }

    /**
     * Checks random free pairs through the check service: with the follower's follow token while it is younger than
     * 4 s (read-your-writes), else only pairs never written or last written more than 10 s ago, which every layer
     * must answer right.
     */
    private void read(List<Long> users) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop.get()) {
            List<Long> pair = List.of(users.get(random.nextInt(users.size())), users.get(random.nextInt(users.size())));
            if (pair.get(0).equals(pair.get(1)) || !busy.add(pair)) {
                continue;
            }
            try {
                Edge edge = model.getOrDefault(pair, new Edge(false, 0));
                long now = System.nanoTime();
                Long issued = tokenAt.get(pair.get(0));
                String token = issued != null && now - issued < 4_000_000_000L ? tokens.get(pair.get(0)) : null;
                if (token == null && edge.ackedAt() != 0 && now - edge.ackedAt() < 10_000_000_000L) {
                    continue;
                }
                HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(check.baseUrl()
                        + "/internal/v1/users/" + pair.get(0) + "/following/" + pair.get(1)))
                        .timeout(Duration.ofSeconds(10)).header("X-Service-Token", pipeline.serviceToken());
                if (token != null) {
                    request.header("X-Follow-Token", token);
                }
                HttpResponse<String> response = HTTP.send(request.GET().build(), HttpResponse.BodyHandlers.ofString());
                reads.incrementAndGet();
                boolean answer = response.body().contains("\"following\":true");
                if (response.statusCode() != 200 || answer != edge.following()) {
                    wrongReads.add(java.time.LocalTime.now() + " " + pair + " expected " + edge.following() + (token != null ? " (token)" : "")
                            + ", got " + response.statusCode() + " " + response.body());
                }
            } catch (Exception e) {
                if (!stop.get()) {
                    wrongReads.add(pair + ": " + e);
                }
            } finally {
                busy.remove(pair);
            }
        }
    }

    /** Runs a reconciler process on the same shards and directory, scans every shard, returns the scan's status. */
    private static String reconcilerScan() throws Exception {
        Map<String, String> props = new HashMap<>();
        pipeline.checkServiceProperties().forEach((k, v) -> {
            if (k.startsWith("graph.shards.")) {
                props.put(k, v);
            }
        });
        props.put("spring.main.banner-mode", "off");
        props.put("graph.shards.migrate-on-startup", "true");
        props.put("graph.reconciler.repair-threshold", "1s");
        props.put("graph.reconciler.sampling.enabled", "false");
        props.put("graph.reconciler.scan.scheduled", "false");
        props.put("graph.reconciler.bloom.scheduled", "false");
        props.put("graph.reconciler.bloom.snapshot-dir", "target/shard-move-no-snapshots");
        try (ServiceProcess reconciler = ServiceProcess.start("reconciler", props, Pipeline.STARTUP)) {
            HttpResponse<String> started = HTTP.send(HttpRequest.newBuilder(URI.create(reconciler.baseUrl()
                            + "/admin/scans")).header("X-Service-Token", pipeline.serviceToken())
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"firstShard\":0,\"lastShard\":255}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
            Matcher id = Pattern.compile("\"id\":(\\d+)").matcher(started.body());
            assertThat(id.find()).isTrue();
            HttpRequest status = HttpRequest.newBuilder(URI.create(reconciler.baseUrl() + "/admin/scans/"
                    + id.group(1))).header("X-Service-Token", pipeline.serviceToken()).GET().build();
            await().atMost(Duration.ofSeconds(60)).until(() -> HTTP.send(status, HttpResponse.BodyHandlers
                    .ofString()).body().matches("(?s).*\"state\":\"(completed|failed|cancelled)\".*"));
            return HTTP.send(status, HttpResponse.BodyHandlers.ofString()).body();
        }
    }
}
