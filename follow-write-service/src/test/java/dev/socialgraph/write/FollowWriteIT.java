package dev.socialgraph.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.cache.FollowingCacheScripts;
import dev.socialgraph.common.keys.RedisKeys;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.outbox.OutboxEntry;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.testsupport.ActuatorProbe;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Follow and unfollow over HTTP against real shard databases and Redis: the row in the database the shard map
 * names, the outbox, the version-guarded cache, every validation error, the following cap and concurrency.
 * The cap is set to {@value #CAP} so that reaching it takes a moment.
 */
// Closed after the class: its databases are dropped then, and its relays and pools must not outlive them.
@DirtiesContext
@SpringBootTest(classes = FollowWriteServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class FollowWriteIT {

    static final int CAP = 100;

    private static final TestShards SHARDS = TestShards.create("write_follow");
    private static final RedisServer REDIS = TestServers.redis();
    private static final String REDIS_URI = REDIS.uri(REDIS.freshDatabase());

    /** Logical shard 200: the second following database. */
    private static final long IN_SECOND_DB = 256L * 1_000 + 200;
    /** Logical shard 5: the first following database. */
    private static final long IN_FIRST_DB = 256L * 2_000 + 5;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.write.redis.uri", () -> REDIS_URI);
        registry.add("graph.write.following-cap", () -> CAP);
        registry.add("graph.write.relay.enabled", () -> false);
    }

    private static final RedisClient redisClient = RedisClient.create(REDIS_URI);
    private static final RedisCommands<String, String> redis = redisClient.connect().sync();

    @AfterAll
    static void close() {
        redisClient.shutdown();
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Autowired
    ShardDataSources dataSources;

    @Autowired
    ShardMap shardMap;

    @Autowired
    MeterRegistry meters;

    WriteHttp http;
    ShardRows rows;

    @BeforeEach
    void setUp() {
        http = new WriteHttp(port);
        rows = new ShardRows(dataSources);
    }

    @Test
    void follow_uncached_writesRowAndOutboxInMappedDatabase_andRecordsVersionFloor() {
        long follower = IN_SECOND_DB;
        long followee = 77;
        assertThat(shardMap.route(ShardGroup.FOLLOWING, follower).database())
                .isEqualTo(shardMap.ranges(ShardGroup.FOLLOWING).get(1).database());

        WriteHttp.Reply reply = http.follow(follower, followee);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.contentType()).startsWith("application/json");
        assertThat(reply.body().get("followerId").asLong()).isEqualTo(follower);
        assertThat(reply.body().get("followeeId").asLong()).isEqualTo(followee);
        assertThat(reply.body().get("following").asBoolean()).isTrue();
        assertThat(reply.body().get("version").asLong()).isEqualTo(1);
        assertThat(reply.body().get("followToken").asString()).hasSize(64);
        long followedAt = reply.body().get("followedAt").asLong();

        FollowingRow row = rows.followingRow(follower).orElseThrow();
        assertThat(row.followingIds()).containsExactly(followee);
        assertThat(row.followedAt()).containsExactly(followedAt);
        assertThat(row.version()).isEqualTo(1);
        assertThat(rows.followingRowElsewhere(follower)).isFalse();
        assertThat(rows.outboxOf(follower)).singleElement().satisfies(e -> {
            assertThat(e.followeeId()).isEqualTo(followee);
            assertThat(e.follow()).isTrue();
            assertThat(e.followedAt()).isEqualTo(followedAt);
            assertThat(e.version()).isEqualTo(1);
            assertThat(e.publishedAt()).isNull();
        });
        // Not cached: no set is created, but the version floor blocks an older fill.
        assertThat(redis.exists(RedisKeys.following(follower))).isZero();
        assertThat(redis.get(RedisKeys.followingVersion(follower))).isEqualTo("1");
        assertThat(fill(follower, 0)).isEqualTo(FollowingCacheScripts.FILL_SKIPPED_NEWER);
    }

    @Test
    void followRepeatUnfollowRepeat_keepsRowOutboxAndCachedSetExact() {
        long follower = IN_FIRST_DB;
        long first = 11;
        long second = 12;
        assertThat(http.follow(follower, first).status()).isEqualTo(200);
        assertThat(fill(follower, 1, first)).isEqualTo(FollowingCacheScripts.FILLED);
        double appliedBefore = cacheApplied("applied");

        WriteHttp.Reply followed = http.follow(follower, second);
        assertThat(followed.status()).isEqualTo(200);
        assertThat(followed.body().get("version").asLong()).isEqualTo(2);
        long followedAt = followed.body().get("followedAt").asLong();
        assertThat(redis.sismember(RedisKeys.following(follower), Long.toString(second))).isTrue();
        assertThat(redis.get(RedisKeys.followingVersion(follower))).isEqualTo("2");
        assertThat(cacheApplied("applied")).isEqualTo(appliedBefore + 1);

        WriteHttp.Reply repeat = http.follow(follower, second);
        assertThat(repeat.status()).isEqualTo(200);
        assertThat(repeat.body().get("following").asBoolean()).isTrue();
        assertThat(repeat.body().get("version").asLong()).isEqualTo(2);
        assertThat(repeat.body().get("followedAt").asLong()).isEqualTo(followedAt);
        assertThat(rows.outboxOf(follower)).hasSize(2);

        WriteHttp.Reply unfollowed = http.unfollow(follower, second);
        assertThat(unfollowed.status()).isEqualTo(200);
        assertThat(unfollowed.body().get("following").asBoolean()).isFalse();
        assertThat(unfollowed.body().get("followedAt").isNull()).isTrue();
        assertThat(unfollowed.body().get("version").asLong()).isEqualTo(3);
        assertThat(rows.followingRow(follower).orElseThrow().followingIds()).containsExactly(first);
        List<OutboxEntry> outbox = rows.outboxOf(follower);
        assertThat(outbox).hasSize(3);
        OutboxEntry unfollow = outbox.get(2);
        assertThat(unfollow.follow()).isFalse();
        assertThat(unfollow.followeeId()).isEqualTo(second);
        assertThat(unfollow.followedAt()).as("the removed follow's time").isEqualTo(followedAt);
        assertThat(unfollow.version()).isEqualTo(3);
        assertThat(redis.sismember(RedisKeys.following(follower), Long.toString(second))).isFalse();
        assertThat(redis.sismember(RedisKeys.following(follower), Long.toString(first))).isTrue();

        WriteHttp.Reply repeatUnfollow = http.unfollow(follower, second);
        assertThat(repeatUnfollow.status()).isEqualTo(200);
        assertThat(repeatUnfollow.body().get("following").asBoolean()).isFalse();
        assertThat(repeatUnfollow.body().get("version").asLong()).isEqualTo(3);
        assertThat(rows.outboxOf(follower)).hasSize(3);
        assertThat(rows.followingRow(follower).orElseThrow().version()).isEqualTo(3);
    }

    @Test
    void unfollow_ofUserWithoutRow_repliesUnchangedAndCreatesNothing() {
        long before = rows.totalRows();

        WriteHttp.Reply reply = http.unfollow(IN_SECOND_DB + 256 * 7, 5);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().get("following").asBoolean()).isFalse();
        assertThat(reply.body().get("version").asLong()).isZero();
        assertThat(rows.totalRows()).isEqualTo(before);
    }

    @ParameterizedTest(name = "{0} {1} -> field {2}")
    @CsvSource({
            "PUT, /internal/v1/users/0/following/5, followerId",
            "PUT, /internal/v1/users/-3/following/5, followerId",
            "PUT, /internal/v1/users/abc/following/5, followerId",
            "PUT, /internal/v1/users/007/following/5, followerId",
            "PUT, /internal/v1/users/9223372036854775808/following/5, followerId",
            "PUT, /internal/v1/users/%201/following/5, followerId",
            "PUT, /internal/v1/users/5/following/0, followeeId",
            "PUT, /internal/v1/users/5/following/1.5, followeeId",
            "PUT, /internal/v1/users/5/following/99999999999999999999999, followeeId",
            "PUT, /internal/v1/users/5/following/5, followeeId",
            "DELETE, /internal/v1/users/x/following/5, followerId",
            "DELETE, /internal/v1/users/5/following/-1, followeeId",
            "DELETE, /internal/v1/users/9/following/9, followeeId",
    })
    void invalidInput_isProblem400NamingTheField_andWritesNothing(String method, String path, String field) {
        long before = rows.totalRows();
        double rejectedBefore = meters.get("graph.write.results").tag("outcome", "rejected").counter().count();

        WriteHttp.Reply reply = http.send(method, path);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(meters.get("graph.write.results").tag("outcome", "rejected").counter().count())
                .isEqualTo(rejectedBefore + 1);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.body().get("status").asInt()).isEqualTo(400);
        assertThat(reply.body().get("parameter").asString()).isEqualTo(field);
        assertThat(reply.body().get("detail").asString()).contains(field);
        assertThat(rows.totalRows()).isEqualTo(before);
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({
            "GET, /internal/v1/users/5/following/6, 405",
            "POST, /internal/v1/users/5/following/6, 405",
            "PUT, /internal/v1/users/5/following, 404",
            "PUT, /internal/v1/nothing/here, 404",
            "GET, /, 404",
            "TRACE, /internal/v1/users/5/following/6, 405",
            "PUT, /internal/v1/users/%00/following/6, 400",
            "PUT, /internal/v1/users/1%2F2/following/6, 400",
            "PUT, /internal/v1/users/..%2F..%2Factuator/following/6, 400",
    })
    void unknownRouteMethodOrMalformedUrl_isProblemJson(String method, String path, int status) {
        WriteHttp.Reply reply = http.send(method, path);

        assertThat(reply.status()).isEqualTo(status);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.body().get("status").asInt()).isEqualTo(status);
    }

    @Test
    void unacceptableAcceptHeader_is406Problem_andWritesNothing() {
        long before = rows.totalRows();

        WriteHttp.Reply reply = http.send("PUT", WriteHttp.path(IN_FIRST_DB + 256 * 9, 5), "Accept", "application/xml");

        assertThat(reply.status()).isEqualTo(406);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(rows.totalRows()).isEqualTo(before);
    }

    @Test
    void concurrentFollowsByOneFollower_pastTheCap_keepEveryEdgeOnceAndRejectTheRestWith409() throws Exception {
        long follower = IN_SECOND_DB + 256;
        int attempts = CAP + 20;
        List<WriteHttp.Reply> replies = concurrently(attempts, i -> http.follow(follower, 1_000 + i));

        assertThat(replies).filteredOn(r -> r.status() == 200).hasSize(CAP);
        List<WriteHttp.Reply> rejected = replies.stream().filter(r -> r.status() != 200).toList();
        assertThat(rejected).hasSize(attempts - CAP).allSatisfy(r -> {
            assertThat(r.status()).isEqualTo(409);
            assertThat(r.contentType()).startsWith("application/problem+json");
            assertThat(r.body().get("limit").asInt()).isEqualTo(CAP);
            assertThat(r.body().get("followingCount").asInt()).isEqualTo(CAP);
            assertThat(r.body().get("parameter").asString()).isEqualTo("followerId");
        });
        FollowingRow row = rows.followingRow(follower).orElseThrow();
        assertThat(row.followingCount()).isEqualTo(CAP);
        assertThat(row.version()).isEqualTo(CAP);
        long[] accepted = replies.stream().filter(r -> r.status() == 200)
                .mapToLong(r -> r.body().get("followeeId").asLong()).sorted().toArray();
        assertThat(row.followingIds()).containsExactly(accepted);
        List<OutboxEntry> outbox = rows.outboxOf(follower);
        assertThat(outbox).extracting(OutboxEntry::version)
                .containsExactlyElementsOf(LongStream.rangeClosed(1, CAP).boxed().toList());
        assertThat(outbox).extracting(OutboxEntry::followeeId).containsExactlyInAnyOrder(
                LongStream.of(accepted).boxed().toArray(Long[]::new));

        long before = rows.totalRows();
        WriteHttp.Reply more = http.follow(follower, 999_999);
        assertThat(more.status()).isEqualTo(409);
        assertThat(rows.totalRows()).isEqualTo(before);
        assertThat(http.follow(follower, accepted[0]).status()).as("a repeat is not past the cap").isEqualTo(200);
        assertThat(http.unfollow(follower, accepted[0]).status()).isEqualTo(200);
        assertThat(http.follow(follower, 999_999).status()).as("room again after an unfollow").isEqualTo(200);
    }

    @Test
    void thousandConcurrentFollowsOfOneFollowee_eachEdgeExactlyOnce() throws Exception {
        long followee = 5_000_000_000L;
        int followers = 1_000;
        List<WriteHttp.Reply> replies = concurrently(followers, i -> http.follow(3_000_000 + i, followee));

        assertThat(replies).allSatisfy(r -> {
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body().get("version").asLong()).isEqualTo(1);
        });
        long rowsFound = 0;
        long outboxRows = 0;
        for (DataSource ds : dataSources.all().values()) {
            rowsFound += rows.count(ds, "SELECT count(*) FROM following_adjacency WHERE follower_id BETWEEN 3000000"
                    + " AND 3000999 AND following_ids = ARRAY[" + followee + "]::bigint[] AND version = 1");
            outboxRows += rows.count(ds, "SELECT count(DISTINCT follower_id) FROM follow_outbox WHERE followee_id = "
                    + followee + " HAVING count(*) = count(DISTINCT follower_id)");
        }
        assertThat(rowsFound).isEqualTo(followers);
        assertThat(outboxRows).isEqualTo(followers);
        for (int i = 0; i < followers; i += 97) {
            assertThat(rows.followingRowElsewhere(3_000_000 + i)).isFalse();
        }
    }

    @Test
    void prometheus_exposesWriteResultsAndCacheResults_withoutUserIdTags() {
        assertThat(http.follow(IN_FIRST_DB + 256 * 11, 3).status()).isEqualTo(200);

        String scrape = ActuatorProbe.get(managementPort, "/actuator/prometheus").body();

        assertThat(scrape).contains("graph_write_results_total{application=\"follow-write-service\",outcome=\"followed\"}");
        assertThat(scrape).contains("graph_write_cache_apply_total{application=\"follow-write-service\",result=\"not_cached\"}");
        assertThat(scrape.lines().filter(l -> l.startsWith("graph_write")))
                .noneMatch(l -> l.contains(Long.toString(IN_FIRST_DB + 256 * 11)));
    }

    private double cacheApplied(String result) {
        return meters.get("graph.write.cache.apply").tag("result", result).counter().count();
    }

    private static long fill(long follower, long version, long... ids) {
        List<String> args = new ArrayList<>(List.of(Long.toString(version), "3600"));
        for (long id : ids) {
            args.add(Long.toString(id));
        }
        return redis.eval(FollowingCacheScripts.FILL, ScriptOutputType.INTEGER,
                new String[] {RedisKeys.following(follower), RedisKeys.followingVersion(follower)},
                args.toArray(String[]::new));
    }

    interface Call {
        WriteHttp.Reply run(int i);
    }

    private static List<WriteHttp.Reply> concurrently(int n, Call call) throws Exception {
        try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
            List<Future<WriteHttp.Reply>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int index = i;
                futures.add(pool.submit(() -> call.run(index)));
            }
            List<WriteHttp.Reply> replies = new ArrayList<>();
            for (Future<WriteHttp.Reply> f : futures) {
                replies.add(f.get());
            }
            return replies;
        }
    }
}
