package dev.socialgraph.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.localruntime.KafkaBrokerProcess;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import dev.socialgraph.write.outbox.OutboxRelay;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The feed-lag guard through the real processes (DESIGN.md 5 step 3 and 7): follow-write-service and
 * follow-check-service each in its own JVM, a Kafka broker in a JVM of its own so that it can be hung, PostgreSQL
 * and Redis from test-support. While the event stream is stalled, a follow acknowledged by the write service must
 * never be answered {@code following:false} to a third party (no follow token) once the bound ({@value #BOUND_MS}
 * ms) has passed since its acknowledgement, although the check instance's bloom filter and in-process cache have
 * not seen it: they would say "no" for as long as the stall lasts.
 *
 * <p>Two stalls, in order: the relay not publishing (this test holds the relay's advisory lock in every following
 * database, as a hung relay instance would), then the broker hung ({@code SIGSTOP}). After each, the stream
 * resumes, the instance catches up and trusts its in-process layers again.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FeedLagIT {

    static final long BOUND_MS = 2_000;
    static final String TOKEN_SECRET = "feed-lag-it-follow-token-secret-0123456789";
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();

    static TestShards shards;
    static KafkaBrokerProcess broker;
    static ServiceProcess write;
    static ServiceProcess check;
    static final List<Connection> relayLocks = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        shards = TestShards.create("feedlag");
        broker = KafkaBrokerProcess.start(Duration.ofSeconds(120));
        String topic = "follow-events-feedlag";
        Properties admin = new Properties();
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        try (Admin client = Admin.create(admin)) {
            client.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
        }
        String redis = TestServers.redis().uri(TestServers.redis().freshDatabase());
        Map<String, String> common = new HashMap<>(shards.springProperties());
        common.put("logging.level.org.apache.kafka", "warn");

        Map<String, String> writeProps = new HashMap<>(common);
        writeProps.put("graph.shards.migrate-on-startup", "true");
        writeProps.put("graph.write.token-secret", TOKEN_SECRET);
        writeProps.put("graph.write.redis.uri", redis);
        writeProps.put("graph.write.topic", topic);
        writeProps.put("graph.write.relay.bootstrap-servers", broker.bootstrapServers());
        writeProps.put("graph.write.relay.send-timeout", "3s");
        write = ServiceProcess.start("follow-write-service", writeProps, Duration.ofSeconds(180));
        holdRelayLocks(); // before the relay's first round can take them: the first stall is "relay stopped"

        Map<String, String> checkProps = new HashMap<>(common);
        checkProps.put("graph.check.token-secret", TOKEN_SECRET);
        checkProps.put("graph.check.redis-uri", redis);
        checkProps.put("graph.check.bloom.kafka-bootstrap", broker.bootstrapServers());
        checkProps.put("graph.check.bloom.topic", topic);
        checkProps.put("graph.check.bloom.minimum-expected-edges", "1000");
        checkProps.put("graph.check.bloom.snapshot-dir", "target/feed-lag-it-no-snapshots");
        checkProps.put("graph.check.feed.max-lag", BOUND_MS + "ms");
        check = ServiceProcess.start("follow-check-service", checkProps, Duration.ofSeconds(180));
    }

    @AfterAll
    static void stop() throws Exception {
        releaseRelayLocks();
        for (AutoCloseable c : new AutoCloseable[] {check, write, broker, shards}) {
            if (c != null) {
                c.close();
            }
        }
    }

    /**
     * Takes the outbox relay's advisory lock in every following database, retrying while the write service's relay
     * holds it: its session is terminated, which makes it stand by (DESIGN.md 3 step 5: one active relay per
     * database).
     */
    static void holdRelayLocks() throws Exception {
        for (ShardRange range : shards.shardMap().ranges(ShardGroup.FOLLOWING)) {
            Connection c = DriverManager.getConnection(range.jdbcUrl(), shards.username(), shards.password());
            relayLocks.add(c);
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
                    ps.setLong(1, OutboxRelay.LOCK_KEY);
                    var rs = ps.executeQuery();
                    rs.next();
                    if (rs.getBoolean(1)) {
                        return true;
                    }
                }
                try (PreparedStatement ps = c.prepareStatement("""
                        SELECT pg_terminate_backend(l.pid) FROM pg_locks l
                         WHERE l.locktype = 'advisory' AND l.pid <> pg_backend_pid() AND l.granted
                           AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                        """)) {
                    ps.executeQuery().close();
                }
                return false;
            });
        }
    }

    static void releaseRelayLocks() throws Exception {
        for (Connection c : relayLocks) {
            c.close();
        }
        relayLocks.clear();
    }

    @Test
    @Order(1)
    void relayStopped_acknowledgedFollowsAreNeverAnsweredFalsePastTheBound() throws Exception {
        awaitFresh();
        List<long[]> follows = followAll(1_000, 2_000, 5);
        double lagged = metric("graph_check_feed_lagged_total");
        assertNoFalseAnswerPastTheBound(follows);
        assertThat(metric("graph_check_feed_lagged_total")).as("the guard engaged").isGreaterThan(lagged);
        assertThat(metric("graph_check_feed_fresh")).isZero();

        releaseRelayLocks(); // the relay takes over and publishes the backlog
        awaitFresh();
        for (long[] f : follows) {
            assertThat(isFollowing(f[0], f[1])).isTrue();
        }
    }

    @Test
    @Order(2)
    void brokerHung_acknowledgedFollowsAreNeverAnsweredFalsePastTheBound() throws Exception {
        awaitFresh();
        broker.pause();
        try {
            List<long[]> follows = followAll(3_000, 4_000, 5);
            double lagged = metric("graph_check_feed_lagged_total");
            assertNoFalseAnswerPastTheBound(follows);
            assertThat(metric("graph_check_feed_lagged_total")).as("the guard engaged").isGreaterThan(lagged);
            assertThat(metric("graph_check_feed_fresh")).isZero();
        } finally {
            broker.resume();
        }
        awaitFresh();
        assertThat(isFollowing(3_000, 4_000)).isTrue();
    }

    /** Follows {@code firstFollower + i -> firstFollowee + i}; each row: follower, followee, acknowledged at (ms). */
    static List<long[]> followAll(long firstFollower, long firstFollowee, int n) throws Exception {
        List<long[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long follower = firstFollower + i;
            long followee = firstFollowee + i;
            HttpResponse<String> r = send("PUT", write.baseUrl() + "/internal/v1/users/" + follower + "/following/"
                    + followee);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            out.add(new long[] {follower, followee, System.currentTimeMillis()});
        }
        return out;
    }

    /**
     * Asks about every follow, again and again, until {@code BOUND_MS + 1.5 s} after the last acknowledgement; every
     * answer to a request sent more than the bound after the follow's acknowledgement must be {@code true}.
     */
    static void assertNoFalseAnswerPastTheBound(List<long[]> follows) throws Exception {
        long until = follows.get(follows.size() - 1)[2] + BOUND_MS + 1_500;
        int[] pastBound = new int[follows.size()];
        List<String> violations = new ArrayList<>();
        for (int round = 0; round < 10_000 && System.currentTimeMillis() < until; round++) {
            for (int i = 0; i < follows.size(); i++) {
                long[] f = follows.get(i);
                long sentAt = System.currentTimeMillis();
                boolean answer = isFollowing(f[0], f[1]);
                if (sentAt > f[2] + BOUND_MS) {
                    pastBound[i]++;
                    if (!answer) {
                        violations.add(f[0] + "->" + f[1] + " false " + (sentAt - f[2]) + " ms after its ack");
                    }
                }
            }
        }
        assertThat(violations).isEmpty();
        assertThat(java.util.Arrays.stream(pastBound).min().orElseThrow()).as("asks per follow past the bound").isPositive();
    }

    static void awaitFresh() {
        await().atMost(Duration.ofSeconds(60)).until(() -> metric("graph_check_feed_fresh") == 1.0);
    }

    static boolean isFollowing(long follower, long followee) throws Exception {
        HttpResponse<String> r = send("GET", check.baseUrl() + "/internal/v1/users/" + follower + "/following/"
                + followee);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.body().equals("{\"following\":true}");
    }

    static double metric(String name) throws Exception {
        String body = send("GET", check.managementUrl() + "/actuator/prometheus").body();
        for (String line : body.split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError(name + " not exported");
    }

    static HttpResponse<String> send(String method, String url) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(15))
                .header("X-Service-Token", ServiceProcess.SERVICE_TOKEN)
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
