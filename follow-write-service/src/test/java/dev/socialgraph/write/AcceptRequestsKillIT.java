package dev.socialgraph.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.Transactions;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A protected celebrity with 50,000 pending follow requests is made public, and the job that accepts them is killed
 * with SIGKILL mid-way, while requesters follow other users and some withdraw their request. The write service runs
 * as a real process (its exec jar); the next process resumes the job at its recorded position. In the end every
 * request still pending when it was reached is accepted exactly once (one {@code unrequest} and one {@code follow}
 * event, the follow in the requester's row), a withdrawn one is not followed, no request is left pending, and the
 * live follows all stand.
 */
class AcceptRequestsKillIT {

    private static final TestShards SHARDS = TestShards.create("write_accept_kill");
    private static final RedisServer REDIS = TestServers.redis();
    private static final String REDIS_URI = REDIS.uri(REDIS.freshDatabase());
    private static final int REQUESTS = 50_000;
    private static final int PAGE = 1_000;
    /** Every requester whose index is a multiple of this follows {@link #OTHER} while the job runs. */
    private static final int LIVE_EVERY = 500;
    /** Every requester whose index is 1 more than a multiple of this withdraws while the job runs. */
    private static final int WITHDRAW_EVERY = 1_000;
    private static final long OTHER = 256L * 99_000 + 5;

    private static ShardDataSources dataSources;

    @BeforeAll
    static void pools() {
        dataSources = new ShardDataSources(SHARDS.shardMap(), new ShardDataSources.PoolSettings(SHARDS.username(),
                SHARDS.password(), 4, Duration.ofSeconds(5), "accept-kill-it"));
    }

    @AfterAll
    static void close() {
        dataSources.close();
        SHARDS.close();
    }

    private static ServiceProcess start() {
        Map<String, String> properties = new HashMap<>(SHARDS.springProperties());
        properties.put("graph.write.redis.uri", REDIS_URI);
        properties.put("graph.write.relay.enabled", "false");
        properties.put("graph.write.accounts.edges-per-second", "100000"); // batches of 500
        properties.put("graph.write.accounts.lease", "2s");
        properties.put("graph.write.accounts.poll-interval", "100ms");
        properties.put("graph.write.accounts.start-delay", "1s");
        return ServiceProcess.start("follow-write-service", properties, Duration.ofSeconds(180));
    }

    @Test
    void makingAProtectedCelebrityPublic_killedMidway_acceptsEveryPendingRequestOnce() throws Exception {
        long owner = 256L * 40_000 + 11;
        long[] requesters = LongStream.range(0, REQUESTS)
                .map(i -> 256L * (41_000 + i) + (i % 2 == 0 ? 3 : 190)).sorted().toArray();
        JsonNode done;
        ServiceProcess first = start();
        List<Long> withdrawn = new ArrayList<>();
        try {
            WriteHttp http = new WriteHttp(first.port());
            assertThat(http.send("PUT", "/internal/v1/users/" + owner + "/protection").status()).isEqualTo(200);
            seed(owner, requesters);
            String jobId = http.send("DELETE", "/internal/v1/users/" + owner + "/protection").body().get("jobId")
                    .asString();
            AtomicBoolean live = new AtomicBoolean(true);
            AtomicInteger liveFailures = new AtomicInteger();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                    .until(() -> job(owner, jobId)[1] >= 1_000);
            Thread writer = Thread.ofPlatform().name("live-follows").start(() -> {
                // While the job runs: follows of another user by requesters, and withdrawals, each on a row the job
                // may be writing at that moment.
                for (int i = 0; i < REQUESTS && live.get(); i += LIVE_EVERY) {
                    if (new WriteHttp(first.port()).follow(requesters[i], OTHER).status() != 200) {
                        liveFailures.incrementAndGet();
                    }
                    int w = i + 1;
                    if (w % WITHDRAW_EVERY == 1 && new WriteHttp(first.port()).unfollow(requesters[w], owner)
                            .status() == 200) {
                        synchronized (withdrawn) {
                            withdrawn.add(requesters[w]);
                        }
                    }
                }
            });
            await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(20))
                    .until(() -> job(owner, jobId)[1] >= 10_000);
            writer.join(Duration.ofSeconds(60));
            live.set(false);
            assertThat(liveFailures).as("the live writes").hasValue(0);

            first.kill();

            long[] killed = job(owner, jobId);
            assertThat(killed[0]).as("running").isEqualTo(1);
            assertThat(killed[1]).isBetween(10_000L, REQUESTS - 1L);
            try (ServiceProcess second = start()) {
                WriteHttp again = new WriteHttp(second.port());
                await().atMost(Duration.ofSeconds(300)).pollInterval(Duration.ofMillis(200)).until(() -> "done"
                        .equals(again.send("GET", "/internal/v1/admin/jobs/" + jobId).body().get("status").asString()));
                done = again.send("GET", "/internal/v1/admin/jobs/" + jobId).body();
            }
        } finally {
            first.close();
        }

        assertThat(done.get("kind").asString()).isEqualTo("accept-requests");
        assertThat(done.get("done").asLong()).isEqualTo(REQUESTS);
        assertThat(done.get("total").asLong()).isEqualTo(REQUESTS);
        assertThat(withdrawn).as("requests withdrawn under the job").hasSize(REQUESTS / WITHDRAW_EVERY);
        long withdrawnFollows = 0;
        for (long requester : withdrawn) {
            withdrawnFollows += count(requester, "SELECT count(*) FROM following_adjacency WHERE follower_id = ? "
                    + "AND relation = 0 AND following_ids @> ARRAY[" + owner + "]::bigint[]");
        }
        assertThat(withdrawnFollows).as("a withdrawn request is not followed").isZero();
        assertThat(sum("SELECT count(*) FROM following_adjacency WHERE relation = 0 AND following_ids @> ARRAY["
                + owner + "]::bigint[]")).as("every other requester follows the account")
                .isEqualTo(REQUESTS - withdrawn.size());
        assertThat(sum("SELECT count(*) FROM following_adjacency WHERE relation = 3 AND following_count > 0"))
                .as("no request left pending").isZero();
        assertThat(sum("SELECT count(*) FROM following_adjacency WHERE relation = 0 AND following_ids @> ARRAY["
                + OTHER + "]::bigint[]")).as("the live follows").isEqualTo(REQUESTS / LIVE_EVERY);
        assertThat(sum("SELECT count(*) FROM (SELECT follower_id FROM follow_outbox WHERE followee_id = " + owner
                + " AND type = 'follow' GROUP BY follower_id HAVING count(*) > 1) twice"))
                .as("no request accepted twice").isZero();
        assertThat(sum("SELECT count(*) FROM follow_outbox WHERE followee_id = " + owner + " AND type = 'unrequest'"))
                .as("each request ended once: accepted or withdrawn").isEqualTo(REQUESTS);
        assertThat(sum("SELECT count(DISTINCT follower_id) FROM follow_outbox WHERE followee_id = " + owner
                + " AND type = 'follow'")).isGreaterThanOrEqualTo(REQUESTS - withdrawn.size());
    }

    /**
     * The 50,000 pending requests as the write service and the event consumer leave them: each requester's row of
     * requests naming the owner, and the owner's follower side of requests as celebrity pages of 1,000.
     */
    private static void seed(long owner, long[] requesters) throws SQLException {
        Map<DataSource, List<Long>> byDatabase = new LinkedHashMap<>();
        for (long requester : requesters) {
            byDatabase.computeIfAbsent(dataSources.forUser(ShardGroup.FOLLOWING, requester), d -> new ArrayList<>())
                    .add(requester);
        }
        for (Map.Entry<DataSource, List<Long>> database : byDatabase.entrySet()) {
            Transactions.inTransaction(database.getKey(), c -> {
                try (PreparedStatement ps = c.prepareStatement("""
                        INSERT INTO following_adjacency (follower_id, relation, following_ids, followed_at,
                                                         following_count, version)
                        SELECT id, 3, ARRAY[?]::bigint[], ARRAY[1]::bigint[], 1, 1 FROM unnest(?::bigint[]) AS id
                        """)) {
                    ps.setLong(1, owner);
                    ps.setArray(2, c.createArrayOf("bigint", database.getValue().toArray()));
                    return ps.executeUpdate();
                }
            });
        }
        FollowerRepository rows = new FollowerRepository(Relation.REQUEST);
        CelebrityPageRepository pages = new CelebrityPageRepository(Relation.REQUEST);
        Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWER, owner), c -> {
            rows.writeNextVersion(c, rows.lockOrCreate(c, owner), new long[0], new long[0], requesters.length, true);
            for (int from = 0, page = 0; from < requesters.length; from += PAGE, page++) {
                long[] ids = Arrays.copyOfRange(requesters, from, Math.min(requesters.length, from + PAGE));
                long[] times = new long[ids.length];
                Arrays.fill(times, 1);
                pages.upsert(c, new CelebrityPage(owner, page, ids, times));
            }
            return null;
        });
    }

    /** The job's status (1 running, 0 otherwise) and edges done, read from its row. */
    private static long[] job(long owner, String jobId) throws SQLException {
        return Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWING, owner), c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT status, done FROM account_jobs WHERE job_id = ?")) {
                ps.setString(1, jobId);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return new long[] {"running".equals(rs.getString(1)) ? 1 : 0, rs.getLong(2)};
                }
            }
        });
    }

    private static long count(long user, String sql) throws SQLException {
        return Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWING, user), c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, user);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    /** {@code sql}'s count summed over the following databases. */
    private static long sum(String sql) throws SQLException {
        Map<String, DataSource> databases = new LinkedHashMap<>();
        for (ShardRange range : dataSources.shardMap().ranges(ShardGroup.FOLLOWING)) {
            databases.computeIfAbsent(range.jdbcUrl(), url -> dataSources.forRange(range));
        }
        long total = 0;
        for (DataSource database : databases.values()) {
            try (Connection c = database.getConnection(); PreparedStatement ps = c.prepareStatement(sql);
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                total += rs.getLong(1);
            }
        }
        return total;
    }
}
