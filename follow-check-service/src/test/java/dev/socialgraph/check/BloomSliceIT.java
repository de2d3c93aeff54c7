package dev.socialgraph.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.check.affinity.ShardOwnership;
import dev.socialgraph.check.bloom.EdgeBloom;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.shard.ShardAffinity;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardMigrations;
import dev.socialgraph.testsupport.EventPublisher;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * An instance that owns a slice of the logical shards ({@code graph.check.affinity.*}): its start-up scan
 * and its {@code follow-events} feed put only its own followers' edges into the bloom filter, checks about other
 * followers skip the filter and stay correct, and {@code GET /internal/v1/bloom} reports it.
 */
@SpringBootTest(classes = FollowCheckServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the start-up count first, before an event adds an edge
class BloomSliceIT {

    static final List<String> INSTANCES = List.of("check-0", "check-1", "check-2");
    static final String SELF = "check-1";
    static final BitSet OWNED = ShardAffinity.ownedShards(SELF, INSTANCES, TestShards.LOGICAL_SHARDS);
    static final TestShards SHARDS = TestShards.create("check_slice");
    static final KafkaServer KAFKA = TestServers.kafka();
    static final String TOPIC = KAFKA.createTopic("follow-events", 2);
    static final long T0 = 1_700_000_000_000L;
    static final HttpClient HTTP = HttpClient.newHttpClient();
    /** Followers 1..300 (every logical shard at least once), each following three users. */
    static final int FOLLOWERS = 300;

    static {
        try (ShardDataSources dataSources = new ShardDataSources(SHARDS.shardMap(),
                new ShardDataSources.PoolSettings(SHARDS.username(), SHARDS.password(), 2, Duration.ofSeconds(2),
                        "bloom-slice-it"))) {
            ShardMigrations.migrateAll(dataSources);
            GraphWriter writer = new GraphWriter(dataSources);
            for (long follower = 1; follower <= FOLLOWERS; follower++) {
                for (int k = 1; k <= 3; k++) {
                    writer.follow(follower, 10_000 + follower * 10 + k, T0 + k);
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.check.redis-uri", () -> TestServers.redis().uri(TestServers.redis().freshDatabase()));
        registry.add("graph.check.bloom.kafka-bootstrap", KAFKA::bootstrapServers);
        registry.add("graph.check.bloom.topic", () -> TOPIC);
        registry.add("graph.check.bloom.minimum-expected-edges", () -> "1000");
        registry.add("graph.check.bloom.snapshot-dir", () -> "target/no-bloom-snapshots");
        registry.add("graph.check.affinity.instance-id", () -> SELF);
        registry.add("graph.check.affinity.instances", () -> String.join(",", INSTANCES));
    }

    @AfterAll
    static void close() {
        SHARDS.close();
    }

    @Autowired
    EdgeBloom bloom;

    @Autowired
    ShardOwnership ownership;

    @LocalServerPort
    int port;

    static boolean owned(long follower) {
        return OWNED.get((int) (follower % TestShards.LOGICAL_SHARDS));
    }

    HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .header("X-Service-Token", ServiceProcess.SERVICE_TOKEN).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    @Order(1)
    void startUpScan_putsOnlyTheOwnedFollowersEdgesIntoTheFilter() throws Exception {
        long ownedEdges = 0;
        for (long follower = 1; follower <= FOLLOWERS; follower++) {
            ownedEdges += owned(follower) ? 3 : 0;
        }
        assertThat(ownedEdges).isBetween(200L, 400L); // about a third of 900
        assertThat(ownership.ownedShards()).containsExactly(OWNED.stream().toArray());
        HttpResponse<String> state = get("/internal/v1/bloom");
        assertThat(state.statusCode()).isEqualTo(200);
        assertThat(state.body()).startsWith("{\"state\":\"ready\",\"edges\":" + ownedEdges + ",\"ownedShards\":["
                + OWNED.stream().mapToObj(Integer::toString).reduce((a, b) -> a + "," + b).orElseThrow() + "]")
                .contains("\"instanceId\":\"" + SELF + "\"").contains("\"snapshotCreatedAt\":null");

        for (long follower = 1; follower <= FOLLOWERS; follower++) {
            for (int k = 1; k <= 3; k++) {
                long followee = 10_000 + follower * 10 + k;
                assertThat(bloom.mightFollow(follower, followee)).isTrue();
                HttpResponse<String> check = get("/internal/v1/users/" + follower + "/following/" + followee);
                assertThat(check.body()).isEqualTo("{\"following\":true}");
                assertThat(check.headers().firstValue("X-Served-By")).hasValue(SELF);
            }
            // Other followers' non-edges are never ruled out by this filter; the answer is still "no".
            if (!owned(follower)) {
                assertThat(bloom.mightFollow(follower, 99_999)).isTrue();
            }
            assertThat(get("/internal/v1/users/" + follower + "/following/99999").body())
                    .isEqualTo("{\"following\":false}");
        }
    }

    @Test
    void followEvents_ofOtherFollowersAreNotPut() throws Exception {
        long mine = 1;
        while (!owned(mine)) {
            mine++;
        }
        long theirs = 1;
        while (owned(theirs)) {
            theirs++;
        }
        long before = bloom.edges();
        publish(FollowEvent.follow(theirs, 77_777, T0 + 5, 9, T0 + 5));
        publish(FollowEvent.follow(mine, 77_777, T0 + 5, 9, T0 + 5));
        long follower = mine;
        // One partition (same key), so "theirs" was consumed before "mine": once mine is in, both were applied.
        Awaitility.await().atMost(Duration.ofSeconds(20))
                .until(() -> bloom.edges() > before && bloom.mightFollow(follower, 77_777));
        assertThat(bloom.edges()).isEqualTo(before + 1);
        assertThat(bloom.mightFollow(follower, 77_777)).isTrue();
        assertThat(get("/internal/v1/bloom").body()).contains("\"edges\":" + (before + 1) + ",");
    }

    @Test
    void swap_isRefusedForASlice() throws Exception {
        HttpResponse<String> swap = HTTP.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/internal/v1/bloom/swap"))
                .header("X-Service-Token", ServiceProcess.SERVICE_TOKEN)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(swap.statusCode()).isEqualTo(409);
        assertThat(swap.body()).contains("owns only some logical shards");
    }

    static void publish(FollowEvent event) {
        try (EventPublisher events = new EventPublisher(KAFKA.bootstrapServers(), TOPIC)) {
            events.publishRaw("slice", FollowEventJson.toJson(event));
        }
    }
}
