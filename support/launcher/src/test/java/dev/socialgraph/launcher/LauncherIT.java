package dev.socialgraph.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.keys.Topics;
import dev.socialgraph.localruntime.ChildProcesses;
import dev.socialgraph.localruntime.RepositoryRoot;
import dev.socialgraph.tools.edges.EdgeList;
import dev.socialgraph.tools.edges.EdgeListReader;
import dev.socialgraph.tools.generate.RmatGenerator;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The main job end to end: {@code ./graph up} starts the whole fleet (embedded PostgreSQL and Redis, in-process
 * Kafka, the five services from their jars) and imports {@code wiki-vote.txt.gz} (from {@code ../shared/datasets};
 * where that is absent, a generated R-MAT graph of the same size class, so the test never depends on it). Every
 * answer read through the gateway is compared with one computed from the file itself: follow checks of existing and
 * random pairs, counts, complete list walks both ways for the highest-degree users (the celebrity threshold is set
 * to 200 so the largest follower lists live in celebrity pages), common following and relationships. Then follows
 * and unfollows through the gateway: read-your-writes with the follow token, and follower-side convergence. Then
 * the faults the launcher must survive: its PostgreSQL commits durably, and a service killed with SIGKILL is started
 * again by the launcher's supervisor ({@code ./graph status} shows it ready with a new pid and one restart), and so
 * is the Kafka broker, after which events flow to the follower side again. {@code ./graph shards show} prints the
 * shard directory's version 1 and every service but the gateway reading by it. Last,
 * {@code ./graph down} (no service outlives it) and a second {@code up} that serves the same data without importing
 * again.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LauncherIT {

    private static final Path REPO = RepositoryRoot.find();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int THRESHOLD = 200;

    private static Path dataDir;
    private static int offset;
    private static String gateway;
    private static String jwtSecret;
    private static Path dataset;
    private static final Map<Long, Map<Long, Long>> following = new HashMap<>(); // follower -> followee -> followedAt
    private static final Map<Long, Map<Long, Long>> followers = new HashMap<>(); // followee -> follower -> followedAt
    private static final List<long[]> edges = new ArrayList<>();
    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();
    private static final Random random = new Random(7);
    private static long[] users;

    @BeforeAll
    static void startFleet() throws Exception {
        Path target = Path.of("target").toAbsolutePath();
        dataDir = Files.createTempDirectory(target, "launcher-it-");
        dataset = REPO.resolve("../shared/datasets/wiki-vote.txt.gz").normalize();
        if (!Files.isReadable(dataset)) {
            dataset = generate(dataDir.resolve("rmat-8000-100000.tsv.gz"));
        }
        loadExpected(dataset);
        offset = PortPlan.freeTestOffset(new Random());
        gateway = "http://127.0.0.1:" + new PortPlan(offset).port(PortPlan.GATEWAY);

        Result up = graph("up", "--detach", "--dataset", dataset.toString(), "--port-offset", Integer.toString(offset),
                "--celebrity-threshold", Integer.toString(THRESHOLD), "--page-size", "100");
        assertThat(up.code()).as("./graph up output:\n%s", up.output()).isZero();
        assertThat(up.output()).contains("The social graph fleet is ready", gateway, "export TOKEN=");
        jwtSecret = Files.readString(dataDir.resolve("jwt-secret")).strip();
    }

    @AfterAll
    static void stopFleet() throws Exception {
        if (dataDir != null) {
            graph("down");
        }
    }

    @Test
    @Order(1)
    void followChecksMatchTheFile() throws Exception {
        for (int i = 0; i < 300; i++) {
            long[] e = edges.get(random.nextInt(edges.size()));
            assertThat(get("/v1/users/" + e[0] + "/following/" + e[1]).path("following").asBoolean())
                    .as("%d follows %d", e[0], e[1]).isTrue();
        }
        int negatives = 0;
        for (int i = 0; i < 300; i++) {
            long a = users[random.nextInt(users.length)];
            long b = users[random.nextInt(users.length)];
            if (a == b) {
                continue;
            }
            boolean expected = following.getOrDefault(a, Map.of()).containsKey(b);
            negatives += expected ? 0 : 1;
            assertThat(get("/v1/users/" + a + "/following/" + b).path("following").asBoolean())
                    .as("%d follows %d", a, b).isEqualTo(expected);
        }
        assertThat(negatives).as("random pairs are mostly absent edges").isGreaterThan(200);

        long a = topBy(following, 1).get(0);
        List<Long> ids = new ArrayList<>(following.get(a).keySet()).subList(0, 20);
        List<Long> asked = new ArrayList<>(ids);
        asked.addAll(List.of(users[0], users[1], users[2]));
        JsonNode batch = post("/v1/users/" + a + "/following/contains", JSON.writeValueAsString(Map.of("ids", asked)));
        Set<Long> yes = longs(batch.path("following"));
        Set<Long> expectedYes = new TreeSet<>();
        for (long id : asked) {
            if (following.get(a).containsKey(id)) {
                expectedYes.add(id);
            }
        }
        assertThat(yes).isEqualTo(expectedYes);
    }

    @Test
    @Order(2)
    void countsMatchTheFile() throws Exception {
        List<Long> sample = new ArrayList<>(topBy(followers, 3));
        sample.addAll(topBy(following, 3));
        for (int i = 0; i < 40; i++) {
            sample.add(users[random.nextInt(users.length)]);
        }
        for (long u : sample) {
            JsonNode counts = get("/v1/users/" + u + "/counts");
            assertThat(counts.path("followers").asLong()).as("followers of %d", u)
                    .isEqualTo(followers.getOrDefault(u, Map.of()).size());
            assertThat(counts.path("following").asLong()).as("following of %d", u)
                    .isEqualTo(following.getOrDefault(u, Map.of()).size());
        }
    }

    @Test
    @Order(3)
    void completeListWalksBothWays() throws Exception {
        List<Long> celebrities = topBy(followers, 3);
        assertThat(followers.get(celebrities.get(0)).size()).as("the top followee is a celebrity (pages)")
                .isGreaterThanOrEqualTo(THRESHOLD);
        for (long u : celebrities) {
            assertWalk(u, "followers", followers.get(u));
        }
        for (long u : topBy(following, 3)) {
            assertWalk(u, "following", following.get(u));
        }
    }

    private static void assertWalk(long user, String list, Map<Long, Long> expected) throws Exception {
        List<long[]> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            JsonNode page = get("/v1/users/" + user + "/" + list + "?limit=77"
                    + (cursor == null ? "" : "&cursor=" + cursor));
            for (JsonNode item : page.path("items")) {
                seen.add(new long[] {item.path("userId").asLong(), item.path("followedAt").asLong()});
            }
            cursor = page.path("nextCursor").isNull() || page.path("nextCursor").isMissingNode()
                    ? null : page.path("nextCursor").asString();
            pages++;
        } while (cursor != null && pages < 10_000);
        Map<Long, Long> got = new HashMap<>();
        for (long[] s : seen) {
            assertThat(got.put(s[0], s[1])).as("%s of %d lists %d once", list, user, s[0]).isNull();
        }
        assertThat(got).as("%s of %d", list, user).isEqualTo(expected);
        for (int i = 1; i < seen.size(); i++) {
            assertThat(seen.get(i)[1]).as("%s of %d newest first", list, user).isLessThanOrEqualTo(seen.get(i - 1)[1]);
        }
    }

    @Test
    @Order(4)
    void commonFollowingAndRelationships() throws Exception {
        List<Long> heavy = topBy(following, 6);
        for (int i = 0; i + 1 < heavy.size(); i++) {
            long a = heavy.get(i);
            long b = heavy.get(i + 1);
            Set<Long> expected = new TreeSet<>(following.get(a).keySet());
            expected.retainAll(following.get(b).keySet());
            Set<Long> got = new TreeSet<>();
            String cursor = null;
            int pages = 0;
            do {
                JsonNode page = get("/v1/users/" + a + "/common-following/" + b + "?limit=50"
                        + (cursor == null ? "" : "&cursor=" + cursor));
                got.addAll(longs(page.path("items"), "userId"));
                cursor = page.path("nextCursor").isNull() || page.path("nextCursor").isMissingNode()
                        ? null : page.path("nextCursor").asString();
            } while (cursor != null && ++pages < 1000);
            assertThat(got).as("common following of %d and %d", a, b).isEqualTo(expected);
        }
        for (int i = 0; i < 60; i++) {
            long[] e = edges.get(random.nextInt(edges.size()));
            long a = i % 2 == 0 ? e[0] : e[1]; // half the pairs asked the other way round
            long b = i % 2 == 0 ? e[1] : e[0];
            JsonNode r = get("/v1/users/" + a + "/relationship/" + b);
            assertThat(r.path("following").asBoolean()).isEqualTo(following.getOrDefault(a, Map.of()).containsKey(b));
            assertThat(r.path("followedBy").asBoolean()).isEqualTo(following.getOrDefault(b, Map.of()).containsKey(a));
        }
    }

    @Test
    @Order(5)
    void followAndUnfollowThroughTheGateway() throws Exception {
        long actor = topBy(following, 1).get(0);
        long target = users[users.length - 1];
        for (int i = 2; following.get(actor).containsKey(target) || target == actor; i++) {
            target = users[users.length - i];
        }
        String token = DevTokens.mint(jwtSecret, actor, Duration.ofHours(1), Instant.now());
        long before = get("/v1/users/" + target + "/counts").path("followers").asLong();

        HttpResponse<String> put = send(HttpRequest.newBuilder(URI.create(gateway + "/v1/me/following/" + target))
                .header("Authorization", "Bearer " + token).PUT(HttpRequest.BodyPublishers.noBody()));
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
        JsonNode followed = JSON.readTree(put.body());
        assertThat(followed.path("followerId").asLong()).isEqualTo(actor);
        String followToken = followed.path("followToken").asString();
        assertThat(followToken).isNotBlank();

        // Read-your-writes: with the follow token the very next read sees the follow.
        HttpResponse<String> check = send(HttpRequest.newBuilder(URI.create(gateway + "/v1/users/" + actor
                + "/following/" + target)).header("Authorization", "Bearer " + token)
                .header("X-Follow-Token", followToken).GET());
        assertThat(check.statusCode()).as(check.body()).isEqualTo(200);
        assertThat(JSON.readTree(check.body()).path("following").asBoolean())
                .as("%d follows %d right after the follow, with its token %s", actor, target, followToken).isTrue();
        final long t = target;
        // Follower side converges through outbox -> Kafka -> cdc-consumer.
        await().atMost(60, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            assertThat(get("/v1/users/" + t + "/counts").path("followers").asLong()).isEqualTo(before + 1);
            assertThat(longs(get("/v1/users/" + t + "/followers?limit=1000").path("items"), "userId")).contains(actor);
        });

        HttpResponse<String> delete = send(HttpRequest.newBuilder(URI.create(gateway + "/v1/me/following/" + target))
                .header("Authorization", "Bearer " + token).DELETE());
        assertThat(delete.statusCode()).as(delete.body()).isEqualTo(200);
        String unfollowToken = JSON.readTree(delete.body()).path("followToken").asString();
        HttpResponse<String> after = send(HttpRequest.newBuilder(URI.create(gateway + "/v1/users/" + actor
                + "/following/" + target)).header("Authorization", "Bearer " + token)
                .header("X-Follow-Token", unfollowToken).GET());
        assertThat(after.statusCode()).as(after.body()).isEqualTo(200);
        assertThat(JSON.readTree(after.body()).path("following").asBoolean()).isFalse();
        await().atMost(60, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                assertThat(get("/v1/users/" + t + "/counts").path("followers").asLong()).isEqualTo(before));

        // A follow that stays, to be found after the restart below.
        HttpResponse<String> keep = send(HttpRequest.newBuilder(URI.create(gateway + "/v1/me/following/" + target))
                .header("Authorization", "Bearer " + token).PUT(HttpRequest.BodyPublishers.noBody()));
        assertThat(keep.statusCode()).isEqualTo(200);
        following.get(actor).put(target, JSON.readTree(keep.body()).path("followedAt").asLong());
        followers.computeIfAbsent(target, k -> new HashMap<>()).put(actor, following.get(actor).get(target));
        await().atMost(60, TimeUnit.SECONDS).untilAsserted(() ->
                assertThat(get("/v1/users/" + t + "/counts").path("followers").asLong()).isEqualTo(before + 1));
    }

    @Test
    @Order(6)
    void embeddedPostgresCommitsDurably() throws Exception {
        // zonky's defaults (fsync off, synchronous_commit off) would lose acknowledged follows in a crash.
        String url = "jdbc:postgresql://127.0.0.1:" + new PortPlan(offset).port(PortPlan.POSTGRES) + "/postgres";
        Map<String, String> settings = new HashMap<>();
        try (Connection c = DriverManager.getConnection(url, "postgres", "");
             PreparedStatement s = c.prepareStatement("SELECT name, setting FROM pg_settings WHERE name = ANY(?)")) {
            s.setArray(1, c.createArrayOf("text", new String[] {"fsync", "synchronous_commit", "full_page_writes",
                    "commit_delay", "commit_siblings"}));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    settings.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        assertThat(settings).containsExactlyInAnyOrderEntriesOf(Map.of("fsync", "on", "synchronous_commit", "on",
                "full_page_writes", "on", "commit_delay", "50", "commit_siblings", "5"));
    }

    @Test
    @Order(6)
    void followEventsKeepsSevenDays_setOnTheTopic_notLeftToTheBrokersDefault() throws Exception {
        // The change stream promises 7 days (a cursor older than that is cursor-expired); a broker default may differ.
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, Topics.FOLLOW_EVENTS);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                "127.0.0.1:" + new PortPlan(offset).port(PortPlan.KAFKA)))) {
            ConfigEntry retention = admin.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic)
                    .get(TopicConfig.RETENTION_MS_CONFIG);
            assertThat(retention.value()).isEqualTo("604800000");
            assertThat(retention.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        }
    }

    @Test
    @Order(7)
    void aKilledServiceIsStartedAgainAndServes() throws Exception {
        killAndAwaitFirstRestart(PortPlan.CHECK, "137 at ");
        long restarted = Long.parseLong(statusRow(PortPlan.CHECK)[3]);
        assertThat(ProcessHandle.of(restarted)).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
        assertThat(Files.readString(dataDir.resolve("run/" + PortPlan.CHECK + ".pid")).strip())
                .isEqualTo(Long.toString(restarted));
        assertThat(statusRow(PortPlan.GATEWAY)[4]).as("other services untouched").isEqualTo("0");
        long[] e = edges.get(random.nextInt(edges.size()));
        assertThat(get("/v1/users/" + e[0] + "/following/" + e[1]).path("following").asBoolean()).isTrue();
    }

    @Test
    @Order(8)
    void aKilledBrokerIsStartedAgainAndEventsFlowAgain() throws Exception {
        killAndAwaitFirstRestart(LocalBroker.NAME, "UP", "137 at ");
        assertThat(statusRow(PortPlan.CDC)[4]).as("the services ride out the broker's restart").isEqualTo("0");

        // A follow acknowledged now reaches the follower side only through the restarted broker (relay, then consumer).
        long actor = 8_100_001L;
        long target = 8_100_002L; // users the graph does not know: no follower yet
        String token = DevTokens.mint(jwtSecret, actor, Duration.ofHours(1), Instant.now());
        HttpResponse<String> put = send(HttpRequest.newBuilder(URI.create(gateway + "/v1/me/following/" + target))
                .header("Authorization", "Bearer " + token).PUT(HttpRequest.BodyPublishers.noBody()));
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
        await().atMost(2, TimeUnit.MINUTES).untilAsserted(() ->
                assertThat(longs(get("/v1/users/" + target + "/followers").path("items"), "userId"))
                        .containsExactly(actor));
        assertThat(get("/v1/users/" + target + "/counts").path("followers").asLong()).isEqualTo(1);
    }

    @Test
    @Order(9)
    void killedStoresAreStartedAgain_andEveryAcknowledgedWriteIsThere() throws Exception {
        long actor = 8_200_001L;
        long target = 8_200_002L;
        String token = DevTokens.mint(jwtSecret, actor, Duration.ofHours(1), Instant.now());
        HttpResponse<String> put = send(HttpRequest.newBuilder(URI.create(gateway + "/v1/me/following/" + target))
                .header("Authorization", "Bearer " + token).PUT(HttpRequest.BodyPublishers.noBody()));
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);

        killAndAwaitFirstRestart(PortPlan.POSTGRES, "UP", "exited at ");
        killAndAwaitFirstRestart(PortPlan.REDIS, "UP", "exited at ");

        assertThat(statusRow(PortPlan.WRITE)[4]).as("the services ride out the stores' restarts").isEqualTo("0");
        await().atMost(2, TimeUnit.MINUTES).untilAsserted(() -> {
            assertThat(get("/v1/users/" + actor + "/following/" + target).path("following").asBoolean()).isTrue();
            assertThat(longs(get("/v1/users/" + target + "/followers").path("items"), "userId"))
                    .containsExactly(actor);
        });
        await().atMost(1, TimeUnit.MINUTES).untilAsserted(() ->
                assertThat(graph("status").output()).as(() -> "the broker's log ends:\n"
                                + ChildProcesses.tail(dataDir.resolve("logs/" + LocalBroker.NAME + ".log"), 40))
                        .startsWith("launcher pid ").contains(", ready\n"));
    }


    @Test
    @Order(10)
    void shardsShow_printsTheConfiguredMapAsVersionOne_andEveryShardClientReadingIt() throws Exception {
        Result show = graph("shards", "show");

        assertThat(show.code()).as(show.output()).isZero();
        assertThat(show.output()).as(show.output())
                .contains("shard map version 1 (256 logical shards):")
                .containsPattern("following +128\\.\\.255 +graph_following_1 ");
        for (String service : List.of(PortPlan.WRITE, PortPlan.CDC, PortPlan.CHECK, PortPlan.RECONCILER)) {
            assertThat(show.output()).as(show.output()).containsPattern("(?m)^  " + service + "@\\S+ +version 1,");
        }
        assertThat(show.output()).doesNotContain("gateway@");
    }

    @Test
    @Order(11)
    void downThenUpAgainServesTheSameData() throws Exception {
        List<Long> servicePids = new ArrayList<>();
        Result status = graph("status"); // one status for every row: each ./graph call is a JVM start
        for (String name : List.of(PortPlan.GATEWAY, PortPlan.CHECK, PortPlan.WRITE, PortPlan.CDC, PortPlan.RECONCILER,
                LocalBroker.NAME, PortPlan.POSTGRES, PortPlan.REDIS)) {
            servicePids.add(Long.parseLong(statusRow(status, name)[3]));
        }
        Result down = graph("down");
        assertThat(down.code()).as(down.output()).isZero();
        assertThat(Files.exists(dataDir.resolve("run/launcher.pid"))).isFalse();
        assertThat(PortPlan.isFree(new PortPlan(offset).port(PortPlan.GATEWAY))).isTrue();
        for (long pid : servicePids) {
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("service pid %d after down", pid)
                    .isEmpty();
        }

        Result up = graph("up", "--detach", "--port-offset", Integer.toString(offset));
        assertThat(up.code()).as(up.output()).isZero();
        assertThat(up.output()).doesNotContain("Importing");
        long actor = topBy(following, 1).get(0);
        JsonNode counts = get("/v1/users/" + actor + "/counts");
        assertThat(counts.path("following").asLong()).isEqualTo(following.get(actor).size());
        long celebrity = topBy(followers, 1).get(0);
        assertThat(get("/v1/users/" + celebrity + "/counts").path("followers").asLong())
                .isEqualTo(followers.get(celebrity).size());
    }

    // ------------------------------------------------------------------------------------------ helpers

    private record Result(int code, String output) {
    }

    private static Result graph(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", REPO.resolve("graph").toString(), "--no-build"));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("GRAPH_DATA_DIR", dataDir.toString());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        // The C1 compiler only, as ServiceProcess's test services: these fleets live for one test class, and C2's
        // compile threads would take the two cores from five starting JVMs. What is tested does not depend on it.
        pb.environment().put("GRAPH_JAVA_OPTS", "-XX:TieredStopAtLevel=1");
        if (!args[0].equals("up")) {
            // The launcher's own JVM too for its short commands (status is polled each second while a process
            // restarts); up keeps C2 for the import it runs.
            pb.environment().put("GRAPH_LAUNCHER_OPTS", "-XX:TieredStopAtLevel=1");
        }
        // Many reads from one test user: lift the gateway's per-user budgets (RateLimitIT tests them).
        pb.environment().put("GRAPH_GATEWAY_READS_REPLENISHRATE", "100000");
        pb.environment().put("GRAPH_GATEWAY_READS_BURSTCAPACITY", "200000");
        Path log = dataDir.resolve("graph-" + args[0] + "-" + System.nanoTime() + ".out");
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        if (!p.waitFor(15, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("./graph " + String.join(" ", args) + " did not finish:\n"
                    + Files.readString(log));
        }
        return new Result(p.exitValue(), Files.readString(log));
    }

    /**
     * Kills a supervised process that has never been restarted with SIGKILL, then waits until {@code status} shows
     * it ready again with a new pid and one restart, its line holding each of {@code expected} (readiness, last exit).
     */
    private static void killAndAwaitFirstRestart(String name, String... expected) throws Exception {
        String[] before = statusRow(name);
        assertThat(before[2]).as("state").isEqualTo("ready");
        assertThat(before[4]).as("restarts").isEqualTo("0");
        long pid = Long.parseLong(before[3]);

        assertThat(ProcessHandle.of(pid).orElseThrow().destroyForcibly()).isTrue(); // SIGKILL

        await().atMost(5, TimeUnit.MINUTES).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            String[] row = statusRow(name);
            assertThat(row[2]).as("state").isEqualTo("ready");
            assertThat(Long.parseLong(row[3])).as("pid").isNotEqualTo(pid);
            assertThat(row[4]).as("restarts").isEqualTo("1");
            assertThat(String.join(" ", row)).as("readiness and last exit").contains(expected);
        });
    }

    /** The status line of one service, split at blanks: name, port, state, pid, restarts, readiness... */
    private static String[] statusRow(String name) throws Exception {
        return statusRow(graph("status"), name);
    }

    private static String[] statusRow(Result status, String name) {
        assertThat(status.code()).as(status.output()).isZero();
        return status.output().lines().filter(l -> l.startsWith(name + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("no line for " + name + " in:\n" + status.output()))
                .trim().split("\\s+");
    }

    private static String bearer() {
        return "Bearer " + DevTokens.mint(jwtSecret, 1, Duration.ofHours(1), Instant.now());
    }

    private static JsonNode get(String path) throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(gateway + path))
                .header("Authorization", bearer()).GET());
        assertThat(r.statusCode()).as("GET %s: %s", path, r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static JsonNode post(String path, String body) throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(gateway + path))
                .header("Authorization", bearer()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
        assertThat(r.statusCode()).as("POST %s: %s", path, r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Set<Long> longs(JsonNode array) {
        Set<Long> out = new TreeSet<>();
        array.forEach(n -> out.add(n.asLong()));
        return out;
    }

    private static Set<Long> longs(JsonNode array, String field) {
        Set<Long> out = new TreeSet<>();
        array.forEach(n -> out.add(n.path(field).asLong()));
        return out;
    }

    private static List<Long> topBy(Map<Long, Map<Long, Long>> adjacency, int n) {
        return adjacency.entrySet().stream()
                .sorted(Comparator.<Map.Entry<Long, Map<Long, Long>>>comparingInt(e -> e.getValue().size()).reversed()
                        .thenComparing(Map.Entry::getKey))
                .limit(n).map(Map.Entry::getKey).toList();
    }

    /** The expected graph, from the file with the importer's own rules: no self-loops, first occurrence's time. */
    private static void loadExpected(Path file) throws IOException {
        EdgeList list = EdgeListReader.read(file, bytes -> { });
        Set<Long> all = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            long a = list.follower(i);
            long b = list.followee(i);
            if (a == b) {
                continue;
            }
            Long previous = following.computeIfAbsent(a, k -> new HashMap<>()).putIfAbsent(b, list.followedAt(i));
            if (previous == null) {
                followers.computeIfAbsent(b, k -> new HashMap<>()).put(a, list.followedAt(i));
                edges.add(new long[] {a, b});
            }
            all.add(a);
            all.add(b);
        }
        users = all.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    /** An R-MAT graph of wiki-Vote's size class, for machines without ../shared. */
    private static Path generate(Path file) throws IOException {
        EdgeList g = RmatGenerator.generate(8000, 100_000, 10_000, 1, EdgeListReader.BASE_FOLLOWED_AT);
        try (BufferedWriter w = new BufferedWriter(new OutputStreamWriter(
                new GZIPOutputStream(Files.newOutputStream(file)), StandardCharsets.US_ASCII))) {
            for (int i = 0; i < g.size(); i++) {
                w.write(g.follower(i) + "\t" + g.followee(i) + "\n");
            }
        }
        return file;
    }
}
