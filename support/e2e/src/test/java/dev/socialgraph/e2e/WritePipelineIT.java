package dev.socialgraph.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.following.FollowingRow;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The write pipeline end to end: HTTP follow/unfollow on the write service, its shard transaction and outbox,
 * the relay to Kafka, and cdc-consumer applying the events to the follower side, each service in its own JVM, all on
 * real servers. The
 * following side must be exact when the write service acknowledges; the follower side must converge to the same
 * edge set, each edge once, with exact counts.
 *
 * <p>The consumer moves a followee into celebrity pages at {@value #THRESHOLD} followers, {@value #PAGE_SIZE}
 * per page, so that real traffic crosses the threshold in a test-sized run (the concurrent test's followee
 * crosses it too, while its followers arrive).
 */
class WritePipelineIT {

    static final int THRESHOLD = 100;
    static final int PAGE_SIZE = 40;
    static final Duration CONVERGENCE = Duration.ofSeconds(60);

    static Pipeline pipeline;
    static WriteClient client;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.start(Pipeline.Settings.defaults("e2e_pipeline")
                .withRelayPollInterval(Duration.ofMillis(50))
                .withCelebrityPages(THRESHOLD, PAGE_SIZE));
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
     * Each process keeps to its role, seen from outside as an operator would: after a follow has reached the follower
     * side, the write service has published outbox rows and applies no events, the consumer has applied the event
     * and runs no relay, each tags its metrics with its own application name and reports itself UP.
     */
    @Test
    void eachServiceKeepsToItsRole_writeServicePublishes_consumerApplies() throws Exception {
        long follower = user(900, 9);
        long followee = user(901, 150);
        long followedAt = followedAt(client.follow(follower, followee));
        awaitFollowerSide(followee, Map.of(follower, followedAt));

        String write = actuator(pipeline.writeManagementPort(), "prometheus");
        String cdc = actuator(pipeline.cdcManagementPort(), "prometheus");
        assertThat(sum(write, "graph_outbox_published_total")).as("rows the relay published").isPositive();
        assertThat(sum(cdc, "graph_cdc_events_applied_total")).as("events the consumer applied").isPositive();
        assertThat(write).doesNotContain("graph_cdc_").contains("application=\"follow-write-service\"");
        assertThat(cdc).doesNotContain("graph_outbox_").contains("application=\"cdc-consumer\"");
        assertThat(JSON.readTree(actuator(pipeline.writeManagementPort(), "health")).get("status").asString()).isEqualTo("UP");
        assertThat(JSON.readTree(actuator(pipeline.cdcManagementPort(), "health")).get("status").asString()).isEqualTo("UP");
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The body of {@code GET /actuator/<endpoint>} on the management port {@code port}, which must answer 200. */
    private static String actuator(int port, String endpoint) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/actuator/" + endpoint)).timeout(Duration.ofSeconds(30))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    /** The sum of a Prometheus metric's samples over all its tag sets; 0 when it is not exported. */
    private static double sum(String exposition, String metric) {
        double total = 0;
        for (String line : exposition.split("\n")) {
            if (line.startsWith(metric + "{") || line.startsWith(metric + " ")) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }

    @Test
    void followUnfollowRefollow_followingSideExactAtAck_followerSideConvergesToSameEdges() {
        long[] followers = {user(1_000, 3), user(1_001, 130), user(1_002, 60), user(1_003, 250)};
        long[] followees = {user(2_000, 7), user(2_001, 200), user(2_002, 100), user(2_003, 140)};
        assertThat(pipeline.dataSources().forUser(ShardGroup.FOLLOWING, followers[0]))
                .isNotSameAs(pipeline.dataSources().forUser(ShardGroup.FOLLOWING, followers[1]));
        assertThat(pipeline.dataSources().forUser(ShardGroup.FOLLOWER, followees[0]))
                .isNotSameAs(pipeline.dataSources().forUser(ShardGroup.FOLLOWER, followees[1]));
        Map<Long, TreeMap<Long, Long>> model = new HashMap<>();
        for (long follower : followers) {
            model.put(follower, new TreeMap<>());
        }

        for (long follower : followers) {
            for (long followee : followees) {
                follow(model, follower, followee);
            }
        }
        unfollow(model, followers[0], followees[0]);
        unfollow(model, followers[1], followees[1]);
        unfollow(model, followers[2], followees[0]);
        unfollow(model, followers[3], followees[3]);
        unfollow(model, followers[3], followees[3]); // repeat: unchanged
        follow(model, followers[0], followees[0]); // re-follow after unfollow: a new followedAt
        follow(model, followers[1], followees[1]);
        follow(model, followers[2], followees[2]); // repeat: unchanged, same followedAt
        unfollow(model, followers[1], followees[2]);

        for (long followee : followees) {
            Map<Long, Long> expected = new HashMap<>();
            model.forEach((follower, following) -> {
                if (following.containsKey(followee)) {
                    expected.put(follower, following.get(followee));
                }
            });
            awaitFollowerSide(followee, expected);
        }
    }

    @Test
    void concurrentFollowsOfOneFollowee_everyEdgeOnceOnBothSides_countExact() throws Exception {
        int n = 1_200;
        long followee = user(3_000, 201);
        Map<Long, Long> expected = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> sends = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long follower = 5_000_000L + i; // every logical shard, so both following databases
                sends.add(pool.submit(() -> {
                    WriteClient.Reply reply = client.follow(follower, followee);
                    assertThat(reply.status()).isEqualTo(200);
                    assertThat(reply.following()).isTrue();
                    expected.put(follower, reply.followedAt());
                }));
            }
            for (Future<?> send : sends) {
                send.get();
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(expected).hasSize(n);
        expected.forEach((follower, followedAt) -> {
            FollowingRow row = pipeline.followingRow(follower).orElseThrow();
            assertThat(row.followingIds()).containsExactly(followee);
            assertThat(row.followedAt()).containsExactly(followedAt);
            assertThat(row.version()).isEqualTo(1);
        });
        awaitFollowerSide(followee, expected);
    }

    @Test
    void followsCrossingCelebrityThreshold_moveIntoPages_everyFollowerOnceAcrossPages() {
        long followee = user(4_000, 77);
        Map<Long, Long> expected = new HashMap<>();
        for (int i = 0; i < THRESHOLD - 1; i++) {
            long follower = 7_000_000L + i;
            expected.put(follower, followedAt(client.follow(follower, followee)));
        }
        Pipeline.FollowerSide below = awaitFollowerSide(followee, expected);
        assertThat(below.row().celebrity()).isFalse();
        assertThat(below.pages()).isEmpty();

        for (int i = THRESHOLD - 1; i < THRESHOLD + 2 * PAGE_SIZE; i++) {
            long follower = 7_000_000L + i;
            expected.put(follower, followedAt(client.follow(follower, followee)));
        }
        for (int i = 0; i < 10; i++) { // unfollows from the first page, then half of them come back
            long follower = 7_000_000L + 3 * i;
            assertThat(client.unfollow(follower, followee).following()).isFalse();
            expected.remove(follower);
            if (i % 2 == 0) {
                expected.put(follower, followedAt(client.follow(follower, followee)));
            }
        }

        Pipeline.FollowerSide above = awaitFollowerSide(followee, expected);
        assertThat(above.row().celebrity()).isTrue();
        assertThat(above.row().followerIds()).isEmpty();
        assertThat(above.pages()).hasSizeGreaterThanOrEqualTo(expected.size() / PAGE_SIZE);
        long previous = Long.MIN_VALUE;
        for (CelebrityPage page : above.pages()) {
            for (long at : page.followedAt()) {
                assertThat(at).as("pages in arrival order").isGreaterThanOrEqualTo(previous);
                previous = at;
            }
        }
    }

    private static long followedAt(WriteClient.Reply reply) {
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.following()).isTrue();
        return reply.followedAt();
    }

    /** Follows through HTTP and checks the following row right after the 200. */
    private static void follow(Map<Long, TreeMap<Long, Long>> model, long follower, long followee) {
        WriteClient.Reply reply = client.follow(follower, followee);
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.following()).isTrue();
        Long before = model.get(follower).putIfAbsent(followee, reply.followedAt());
        if (before != null) {
            assertThat(reply.followedAt()).as("a repeated follow keeps its time").isEqualTo(before);
        }
        assertFollowingRow(follower, model.get(follower));
    }

    /** Unfollows through HTTP and checks the following row right after the 200. */
    private static void unfollow(Map<Long, TreeMap<Long, Long>> model, long follower, long followee) {
        WriteClient.Reply reply = client.unfollow(follower, followee);
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.following()).isFalse();
        assertThat(reply.followedAt()).isEqualTo(-1);
        model.get(follower).remove(followee);
        assertFollowingRow(follower, model.get(follower));
    }

    private static void assertFollowingRow(long follower, TreeMap<Long, Long> following) {
        FollowingRow row = pipeline.followingRow(follower).orElseThrow();
        assertThat(row.followingIds()).containsExactly(following.keySet().stream().mapToLong(Long::longValue).toArray());
        assertThat(row.followedAt()).containsExactly(following.values().stream().mapToLong(Long::longValue).toArray());
        assertThat(row.followingCount()).isEqualTo(following.size());
    }

    /**
     * Waits until the follower side of {@code followee} (row and pages) holds exactly {@code expected}
     * ({@code followerId -> followedAt}), each follower once, with {@code follower_count} equal to its size.
     */
    private static Pipeline.FollowerSide awaitFollowerSide(long followee, Map<Long, Long> expected) {
        return await("follower side of " + followee).atMost(CONVERGENCE).pollInterval(Duration.ofMillis(100))
                .until(() -> pipeline.followerSide(followee), side -> {
                    List<long[]> entries = side.entries();
                    Map<Long, Long> actual = new HashMap<>();
                    for (long[] entry : entries) {
                        actual.put(entry[0], entry[1]);
                    }
                    return entries.size() == expected.size() && actual.equals(expected)
                            && side.row().followerCount() == expected.size();
                });
    }
}
