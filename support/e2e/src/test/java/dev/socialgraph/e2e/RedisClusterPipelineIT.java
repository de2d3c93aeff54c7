package dev.socialgraph.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.keys.RedisKeys;
import dev.socialgraph.common.shard.ShardAffinity;
import dev.socialgraph.localruntime.RedisCluster;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.store.following.FollowingRow;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The pipeline and a check service on a Redis Cluster of real processes (3 masters, 1 replica each, local-runtime's
 * {@link RedisCluster}), every service in cluster mode ({@code graph.*.redis-mode=cluster}), through the failover of
 * a master that holds cached {@code following:{id}} sets:
 *
 * <ul>
 *   <li>random follows and unfollows among {@value #USERS} users through the write service, against a model; every
 *       write is acknowledged (the write-through to Redis may fail, the write may not), and the check service answers
 *       it at once when asked with the reply's follow token (read-your-writes, single and batch check);</li>
 *   <li>halfway, the master serving a written and cached user's set is killed ({@code SIGKILL}); half of the
 *       writes after it go to followers whose sets live on that master, and checks without a token keep being
 *       answered (from the shards when Redis cannot);</li>
 *   <li>the check instance owns half of the logical shards ({@code graph.check.affinity}), so checks about the
 *       other half's followers skip its in-process layers and are answered by the cluster (or the shard, with a
 *       fill), which makes the cached sets' correctness visible in the answers;</li>
 *   <li>after the replica took over and the pipeline converged, every pair the check service is asked about without
 *       a token (single and batch) matches the model, and every cached set in the cluster whose version key equals
 *       its row's version holds exactly the model's followees.</li>
 * </ul>
 *
 * <p>Skipped when {@code redis-cli} (which forms the cluster) is not installed.
 */
class RedisClusterPipelineIT {

    static final int USERS = 30;
    static final int OPERATIONS = 300;
    static final Duration CONVERGENCE = Duration.ofSeconds(120);
    static final List<String> CHECK_INSTANCES = List.of("check-0", "check-1");
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    static final JsonMapper JSON = JsonMapper.builder().build();

    static RedisCluster cluster;
    static Pipeline pipeline;
    static ServiceProcess check;
    static WriteClient client;
    static RedisClusterClient redisClient;
    static StatefulRedisClusterConnection<String, String> redisConnection;

    @BeforeAll
    static void start() {
        Assumptions.assumeTrue(onPath("redis-cli"), "redis-cli is not installed (Debian: redis-tools)");
        cluster = RedisCluster.start(Path.of("target", "redis-cluster-pipeline-it"), RedisCluster.freePorts(6), 3, 1);
        pipeline = Pipeline.start(Pipeline.Settings.defaults("e2e_cluster")
                .withRelayPollInterval(Duration.ofMillis(50))
                .withRedis(Pipeline.Redis.cluster(cluster.uris())));
        client = new WriteClient(pipeline.writePort(), pipeline.serviceToken());

        Map<String, String> props = new HashMap<>(pipeline.checkServiceProperties());
        props.put("graph.check.bloom.snapshot-dir", "target/redis-cluster-pipeline-no-snapshots");
        // A token older than this no longer skips the cache layers: on a busy machine a read may come seconds after
        // its write, and it must still be a read-your-writes read.
        props.put("graph.check.token-max-age", "120s");
        // This instance owns about half of the logical shards: the followers of the other half never enter its bloom
        // filter or its in-process cache, so every check about them without a token is answered by the cluster's
        // cached sets (or the shard, which then fills them), before, during and after the failover.
        props.put("graph.check.affinity.instance-id", CHECK_INSTANCES.getFirst());
        props.put("graph.check.affinity.instances", String.join(",", CHECK_INSTANCES));
        check = ServiceProcess.start("follow-check-service", props, Duration.ofSeconds(180));

        // The test's own view of the cluster; it follows the failover as the services' clients must.
        redisClient = RedisClusterClient.create(cluster.seeds().stream()
                .map(seed -> RedisURI.create("redis://" + seed)).toList());
        redisClient.setOptions(ClusterClientOptions.builder()
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(Duration.ofSeconds(1))
                        .enableAllAdaptiveRefreshTriggers()
                        .build())
                .build());
        redisConnection = redisClient.connect();
        redisConnection.setTimeout(Duration.ofSeconds(5));
    }

    @AfterAll
    static void stop() {
        try {
            if (redisConnection != null) {
                redisConnection.close();
            }
            if (redisClient != null) {
                redisClient.shutdown();
            }
        } finally {
            try {
                if (check != null) {
                    check.close();
                }
            } finally {
                try {
                    if (pipeline != null) {
                        pipeline.close();
                    }
                } finally {
                    if (cluster != null) {
                        cluster.close();
                    }
                }
            }
        }
    }

    @Test
    void randomFollowsThroughAMasterFailover_readYourWritesThroughout_checksAndCachedSetsMatchTheModel()
            throws Exception {
        long[] users = new long[USERS];
        Map<Long, TreeSet<Long>> model = new HashMap<>();
        for (int i = 0; i < USERS; i++) {
            users[i] = 256L * (3_000 + i) + (i * 37 % 256); // logical shards all over 0..255: both databases
            model.put(users[i], new TreeSet<>());
        }
        long answeredByRedis = Arrays.stream(users).filter(u -> !ShardAffinity.owner(
                (int) Math.floorMod(u, 256L), CHECK_INSTANCES).equals(CHECK_INSTANCES.getFirst())).count();
        assertThat(answeredByRedis).as("users the check instance does not own").isBetween(1L, USERS - 1L);
        Random random = new Random(20);
        List<Long> onKilledMaster = List.of();
        long victim = 0;
        int killedPort = 0;
        int writesOnKilledMaster = 0;
        for (int op = 0; op < OPERATIONS; op++) {
            if (op == OPERATIONS / 2) {
                victim = cachedWrittenUser(users, model);
                onKilledMaster = usersOnTheMasterOf(victim, users);
                killedPort = cluster.killMasterOf(RedisKeys.following(victim));
            }
            boolean afterKill = op >= OPERATIONS / 2;
            long a = afterKill && random.nextBoolean()
                    ? onKilledMaster.get(random.nextInt(onKilledMaster.size()))
                    : users[random.nextInt(USERS)];
            TreeSet<Long> following = model.get(a);
            boolean follow = following.isEmpty() || random.nextInt(5) < 3;
            long b;
            if (follow || random.nextInt(10) == 0) { // now and then an unfollow of someone not followed: a no-op
                do {
                    b = users[random.nextInt(USERS)];
                } while (b == a);
            } else {
                b = new ArrayList<>(following).get(random.nextInt(following.size()));
            }
            String what = op + ": " + a + (follow ? " follows " : " unfollows ") + b;

            WriteClient.Reply reply = follow ? client.follow(a, b) : client.unfollow(a, b);
            assertThat(reply.status()).as(what).isEqualTo(200);
            assertThat(reply.following()).as(what).isEqualTo(follow);
            assertThat(reply.followToken()).as(what).isNotBlank();
            if (follow) {
                following.add(b);
            } else {
                following.remove(b);
            }
            if (afterKill && onKilledMaster.contains(a)) {
                writesOnKilledMaster++;
            }

            assertThat(isFollowing(a, b, reply.followToken())).as(what + ", read with its token")
                    .isEqualTo(follow);
            assertThat(following(a, others(users, a), reply.followToken())).as(what + ", batch read with its token")
                    .isEqualTo(following);
            if (afterKill) {
                // Without a token the answer may lag the write; it must come, from Redis or from the shard.
                assertThat(checkStatus(a, b)).as(what + ", read without a token").isEqualTo(200);
            }
        }
        assertThat(writesOnKilledMaster).as("writes of followers on the killed master after the kill").isPositive();

        cluster.awaitFailover();
        assertThat(cluster.masterOf(RedisKeys.following(victim))).as("the replica took over").isNotEqualTo(killedPort);
        await("the follower side as the model has it").atMost(CONVERGENCE).pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> {
                    for (long u : users) {
                        assertThat(followingRowIds(u)).as("whom %d follows", u).isEqualTo(model.get(u));
                        assertThat(followerSideIds(u)).as("who follows %d", u).isEqualTo(followers(model, u));
                    }
                });
        await("every check without a token as the model has it").atMost(CONVERGENCE)
                .pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                    for (long u : users) {
                        assertThat(following(u, others(users, u), null)).as("batch check of %d", u)
                                .isEqualTo(model.get(u));
                        for (long v : users) {
                            if (u != v) {
                                assertThat(isFollowing(u, v, null)).as("%d follows %d", u, v)
                                        .isEqualTo(model.get(u).contains(v));
                            }
                        }
                    }
                });
        assertCachedSetsMatchTheModel(users, model);
    }

    /**
     * A user with followees whose set is cached now: the check service fills {@code following:{id}} from the shard
     * on a read the bloom filter cannot answer, so every user is read once first.
     */
    private static long cachedWrittenUser(long[] users, Map<Long, TreeSet<Long>> model) throws Exception {
        for (long u : users) {
            following(u, others(users, u), null);
        }
        RedisAdvancedClusterCommands<String, String> redis = redisConnection.sync();
        long best = 0;
        for (long u : users) {
            if (!model.get(u).isEmpty() && redis.sismember(RedisKeys.following(u), RedisKeys.SENTINEL_MEMBER)
                    && (best == 0 || model.get(u).size() > model.get(best).size())) {
                best = u;
            }
        }
        assertThat(best).as("a user with followees whose set the check service cached").isPositive();
        return best;
    }

    /** The users whose {@code following:{id}} is served by the same master as {@code victim}'s, victim included. */
    private static List<Long> usersOnTheMasterOf(long victim, long[] users) {
        int master = cluster.masterOf(RedisKeys.following(victim));
        List<Long> same = new ArrayList<>();
        for (long u : users) {
            if (cluster.masterOf(RedisKeys.following(u)) == master) {
                same.add(u);
            }
        }
        return same;
    }

    /**
     * Every cached set ({@code following:{id}} holding the sentinel) whose version key equals the stored row's version
     * (0 for a user without a row) holds exactly the model's followees; a set at another version is allowed to differ,
     * since it no longer answers for that row (the version guard replaces or drops it on the next change or fill).
     */
    private static void assertCachedSetsMatchTheModel(long[] users, Map<Long, TreeSet<Long>> model) {
        RedisAdvancedClusterCommands<String, String> redis = redisConnection.sync();
        int atRowVersion = 0;
        Set<Integer> masters = new TreeSet<>();
        for (long u : users) {
            Set<String> members = redis.smembers(RedisKeys.following(u));
            if (!members.contains(RedisKeys.SENTINEL_MEMBER)) {
                continue;
            }
            String version = redis.get(RedisKeys.followingVersion(u));
            long rowVersion = pipeline.followingRow(u).map(FollowingRow::version).orElse(0L);
            if (version == null || Long.parseLong(version) != rowVersion) {
                continue;
            }
            TreeSet<Long> cached = new TreeSet<>();
            members.stream().filter(m -> !m.equals(RedisKeys.SENTINEL_MEMBER))
                    .forEach(m -> cached.add(Long.parseLong(m)));
            assertThat(cached).as("cached set of %d at row version %d", u, rowVersion).isEqualTo(model.get(u));
            atRowVersion++;
            masters.add(cluster.masterOf(RedisKeys.following(u)));
        }
        assertThat(atRowVersion).as("cached sets at their row's version").isPositive();
        // Sets on every master: the services spread their keys over the slots as a cluster client does.
        assertThat(masters).as("masters holding those sets").hasSize(cluster.masters());
    }

    private static TreeSet<Long> followingRowIds(long follower) {
        TreeSet<Long> ids = new TreeSet<>();
        pipeline.followingRow(follower).ifPresent(row -> Arrays.stream(row.followingIds()).forEach(ids::add));
        return ids;
    }

    private static TreeSet<Long> followerSideIds(long followee) {
        TreeSet<Long> ids = new TreeSet<>();
        pipeline.followerSide(followee).entries().forEach(entry -> ids.add(entry[0]));
        return ids;
    }

    private static TreeSet<Long> followers(Map<Long, TreeSet<Long>> model, long followee) {
        TreeSet<Long> ids = new TreeSet<>();
        model.forEach((follower, following) -> {
            if (following.contains(followee)) {
                ids.add(follower);
            }
        });
        return ids;
    }

    private static long[] others(long[] users, long u) {
        return Arrays.stream(users).filter(v -> v != u).toArray();
    }

    /** {@code GET …/following/{b}}, with {@code X-Follow-Token} unless {@code token} is null; must answer 200. */
    private static boolean isFollowing(long a, long b, String token) throws Exception {
        HttpResponse<String> r = send(request("/internal/v1/users/" + a + "/following/" + b, token).GET());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body()).get("following").asBoolean();
    }

    private static int checkStatus(long a, long b) throws Exception {
        return send(request("/internal/v1/users/" + a + "/following/" + b, null).GET()).statusCode();
    }

    /** {@code POST …/following/contains} over {@code ids}: the ones {@code a} follows; must answer 200. */
    private static TreeSet<Long> following(long a, long[] ids, String token) throws Exception {
        String body = "{\"ids\":" + Arrays.toString(ids).replace(" ", "") + "}";
        HttpResponse<String> r = send(request("/internal/v1/users/" + a + "/following/contains", token)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(r.body());
        TreeSet<Long> yes = new TreeSet<>();
        answer.get("following").forEach(n -> yes.add(n.asLong()));
        TreeSet<Long> no = new TreeSet<>();
        answer.get("notFollowing").forEach(n -> no.add(n.asLong()));
        assertThat(yes.size() + no.size()).as("every id answered once: %s", r.body()).isEqualTo(ids.length);
        return yes;
    }

    private static HttpRequest.Builder request(String path, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(check.baseUrl() + path))
                .timeout(Duration.ofSeconds(30)).header("X-Service-Token", pipeline.serviceToken());
        return token == null ? b : b.header("X-Follow-Token", token);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static boolean onPath(String program) {
        return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(dir -> !dir.isEmpty() && Files.isExecutable(Path.of(dir, program)));
    }
}
