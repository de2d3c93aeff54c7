package dev.socialgraph.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.check.bloom.EdgeBloom;
import dev.socialgraph.check.cache.LocalFollowingCache;
import dev.socialgraph.check.relations.HiddenPairs;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardMigrations;
import dev.socialgraph.store.sql.Transactions;
import dev.socialgraph.testsupport.ActuatorProbe;
import dev.socialgraph.testsupport.EventPublisher;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The L0 bloom filter with real Kafka: built from rows written before start-up, fed by {@code follow-events}
 * afterwards, skipped by a follow token; follow events also patch the follower's in-process cache entry. The filter
 * of hidden pairs is built and fed the same way from blocks and mutes.
 */
@SpringBootTest(classes = FollowCheckServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class BloomIT {

    static final TestShards SHARDS = TestShards.create("check_bloom");
    static final KafkaServer KAFKA = TestServers.kafka();
    static final String TOPIC = KAFKA.createTopic("follow-events", 3);
    static final long T0 = 1_700_000_000_000L;
    static final String REDIS_URI = TestServers.redis().uri(TestServers.redis().freshDatabase());
    /** A block stored before start-up: only the scan can put it into the filter of hidden pairs. */
    static final long[] BLOCKED_BEFORE_START = {300, 301};

    /** Edges written before the service starts: only the start-up scan can know them. */
    static {
        try (ShardDataSources dataSources = new ShardDataSources(SHARDS.shardMap(),
                new ShardDataSources.PoolSettings(SHARDS.username(), SHARDS.password(), 2, Duration.ofSeconds(2),
                        "bloom-it"))) {
            ShardMigrations.migrateAll(dataSources);
            GraphWriter writer = new GraphWriter(dataSources);
            for (long follower = 100; follower < 140; follower++) {
                writer.follow(follower, follower + 1, T0);
                writer.follow(follower, follower + 2, T0 + 1);
            }
            blockRow(dataSources, Relation.BLOCK, BLOCKED_BEFORE_START[0], BLOCKED_BEFORE_START[1]);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.check.redis-uri", () -> REDIS_URI);
        registry.add("graph.check.bloom.kafka-bootstrap", KAFKA::bootstrapServers);
        registry.add("graph.check.bloom.topic", () -> TOPIC);
        registry.add("graph.check.bloom.minimum-expected-edges", () -> "1000");
        // The filter and the in-process cache answer only while the feed is fresh; a loaded machine can delay the
        // feed's probes past the production bound of 2 s, which would only make this test's answers come from
        // Redis or the shard. The guard itself is tested in FeedLagTest and the e2e FeedLagIT.
        registry.add("graph.check.feed.max-lag", () -> "60s");
        registry.add("graph.check.bloom.snapshot-dir", () -> "target/no-bloom-snapshots"); // start-up scans
    }

    @AfterAll
    static void close() {
        SHARDS.close();
    }

    @Autowired
    ShardDataSources dataSources;

    @Autowired
    EdgeBloom bloom;

    @Autowired
    LocalFollowingCache localCache;

    @Autowired
    HiddenPairs hiddenPairs;

    @Autowired
    MeterRegistry registry;

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    HttpResponse<String> get(String path, String... headers) throws Exception {
        return new CheckHttp(port).get(path, headers);
    }

    boolean check(long a, long b, String... headers) throws Exception {
        HttpResponse<String> response = get("/internal/v1/users/" + a + "/following/" + b, headers);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body().contains("\"following\":true");
    }

    double bloomAnswers() {
        return registry.get("graph.check.latency").tag("layer", "bloom").timer().count();
    }

    static void publish(FollowEvent event) {
        try (EventPublisher events = new EventPublisher(KAFKA.bootstrapServers(), TOPIC)) {
            events.publish(event);
        }
    }

    @Test
    void startUp_buildsTheFilterFromTheShards_beforeReadiness() throws Exception {
        assertThat(bloom.isReady()).isTrue();
        assertThat(ActuatorProbe.get(managementPort, "/actuator/health/readiness").body()).contains("\"UP\"");
        for (long follower = 100; follower < 140; follower++) {
            assertThat(check(follower, follower + 1)).isTrue();
            assertThat(check(follower, follower + 2)).isTrue();
        }
        double before = bloomAnswers();
        int no = 0;
        for (long follower = 100; follower < 140; follower++) {
            no += check(follower, follower + 3) ? 1 : 0;
            no += check(follower, follower + 50) ? 1 : 0;
        }
        assertThat(no).isZero();
        assertThat(bloomAnswers() - before).isGreaterThan(70); // ~80 negatives; 0.1 % may pass to the next layer
    }

    @Test
    void batchCheck_ruledOutByTheFilter_needsNoOtherLayer() throws Exception {
        double before = bloomAnswers();
        HttpResponse<String> none = post("/internal/v1/users/100/following/contains", "{\"ids\":[150,160,170]}");
        assertThat(none.body()).isEqualTo("{\"following\":[],\"notFollowing\":[150,160,170]}");
        assertThat(bloomAnswers() - before).isEqualTo(1);
        HttpResponse<String> some = post("/internal/v1/users/100/following/contains", "{\"ids\":[150,101,102]}");
        assertThat(some.body()).isEqualTo("{\"following\":[101,102],\"notFollowing\":[150]}");
    }

    HttpResponse<String> post(String path, String body) throws Exception {
        HttpResponse<String> response = new CheckHttp(port).post(path, body);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response;
    }

    @Test
    void followEvent_reachesTheFilter_andATokenReadsTheWriteBeforeIt() throws Exception {
        GraphWriter writer = new GraphWriter(dataSources);
        long follower = 500;
        long followee = 501;
        long version = writer.follow(follower, followee, T0 + 10); // committed; its event is not published yet
        String token = new FollowTokens("dev-only-follow-token-secret-change-me-0123456789"
                .getBytes(StandardCharsets.UTF_8), Clock.systemUTC()).issue(follower);
        assertThat(check(follower, followee, "X-Follow-Token", token)).isTrue(); // read-your-writes

        publish(FollowEvent.follow(follower, followee, T0 + 10, version, T0 + 10));
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> bloom.mightFollow(follower, followee));
        assertThat(check(follower, followee)).isTrue();
    }

    @Test
    void unfollowEvent_patchesTheLocalCacheEntry() throws Exception {
        GraphWriter writer = new GraphWriter(dataSources);
        long follower = 600;
        long followee = 601;
        long followed = writer.follow(follower, followee, T0 + 20);
        publish(FollowEvent.follow(follower, followee, T0 + 20, followed, T0 + 20));
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> bloom.mightFollow(follower, followee));
        // Now cached in process (filled by the shard read of this check), kept exact by events from here on.
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> check(follower, followee)
                && localCache.following(follower) != null);

        long unfollowed = writer.unfollow(follower, followee);
        try (var client = io.lettuce.core.RedisClient.create(REDIS_URI); var redis = client.connect()) {
            redis.sync().del(dev.socialgraph.common.keys.RedisKeys.following(follower)); // as if evicted
        }
        publish(FollowEvent.unfollow(follower, followee, T0 + 20, unfollowed, T0 + 21));
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> !check(follower, followee));
        assertThat(localCache.row(follower).version()).isEqualTo(unfollowed); // patched, not dropped
        assertThat(localCache.following(follower)).isEmpty();
        // An unfollow cannot leave the filter: it still says "maybe", and the answer "no" counts as a false positive.
        assertThat(bloom.mightFollow(follower, followee)).isTrue();
        assertThat(registry.get("graph.check.bloom.false.positives").counter().count()).isPositive();
    }

    static void blockRow(ShardDataSources dataSources, Relation relation, long source, long target)
            throws SQLException {
        FollowingRepository rows = new FollowingRepository(relation);
        Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWING, source), c -> rows.writeNextVersion(c,
                rows.lockOrCreate(c, source), new long[] {target}, new long[] {T0}));
    }

    String hidden(long viewer, long author) throws Exception {
        return post("/internal/v1/users/" + viewer + "/hidden", "{\"ids\":[" + author + "]}").body();
    }

    @Test
    void hiddenPairs_areFilledByTheStartUpScan_andFedByBlockAndMuteEvents() throws Exception {
        assertThat(hiddenPairs.trusted()).isTrue();
        long blocker = BLOCKED_BEFORE_START[0];
        long blocked = BLOCKED_BEFORE_START[1];
        assertThat(hidden(blocker, blocked)).isEqualTo("{\"blocking\":[301],\"blockedBy\":[],\"muting\":[]}");
        assertThat(hiddenPairs.mayHide(blocked, blocker)).as("a block hides both ways").isTrue();

        // A mute stored without its event is unknown to the filter: the filter, trusted, rules the pair out.
        blockRow(dataSources, Relation.MUTE, 310, 311);
        assertThat(hidden(310, 311)).isEqualTo("{\"blocking\":[],\"blockedBy\":[],\"muting\":[]}");
        publish(FollowEvent.of(FollowEvent.Type.MUTE, 310, 311, T0, 1, T0));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> hiddenPairs.mayHide(310, 311));
        assertThat(hidden(310, 311)).isEqualTo("{\"blocking\":[],\"blockedBy\":[],\"muting\":[311]}");
        assertThat(hiddenPairs.mayHide(311, 310)).as("a mute hides one way").isFalse();
        // Follow layers never see a mute: 310 does not follow 311.
        assertThat(check(310, 311)).isFalse();
    }
}
