package dev.socialgraph.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.outbox.OutboxEntry;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.Transactions;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * An erase job whose worker is killed with SIGKILL mid-way resumes in the next process at its recorded position and
 * finishes with exactly the result of an uninterrupted run: every removal done once, one event per removal, nothing
 * left and nothing brought back. The service runs as a real process (its exec jar) at a low edge rate, so the kill
 * lands between batches or inside one.
 */
class AccountJobKillIT {

    private static final TestShards SHARDS = TestShards.create("write_account_kill");
    private static final RedisServer REDIS = TestServers.redis();
    private static final String REDIS_URI = REDIS.uri(REDIS.freshDatabase());
    private static final int FOLLOWERS = 60;
    private static final int FOLLOWEES = 60;

    private static ShardDataSources dataSources;

    @BeforeAll
    static void pools() {
        dataSources = new ShardDataSources(SHARDS.shardMap(), new ShardDataSources.PoolSettings(SHARDS.username(),
                SHARDS.password(), 4, Duration.ofSeconds(5), "kill-it"));
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
        properties.put("graph.write.accounts.edges-per-second", "20"); // batches of 5 edges, ~6 s for the job
        properties.put("graph.write.accounts.lease", "2s");
        properties.put("graph.write.accounts.poll-interval", "100ms");
        return ServiceProcess.start("follow-write-service", properties, Duration.ofSeconds(180));
    }

    private static <T> T tx(ShardGroup group, long userId, Transactions.Work<T> work) {
        try {
            return dataSources.inUserTransaction(group, userId, work);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void anEraseKilledMidway_resumesInTheNextProcess_andEndsWithExactlyTheRightRows() {
        long user = 256L * 30_000 + 7;
        long[] followers = new long[FOLLOWERS];
        long[] followees = new long[FOLLOWEES];
        for (int i = 0; i < FOLLOWERS; i++) {
            followers[i] = 256L * (31_000 + i) + (i % 2 == 0 ? 3 : 190); // both databases of each group
        }
        for (int i = 0; i < FOLLOWEES; i++) {
            followees[i] = 256L * (32_000 + i) + (i % 2 == 0 ? 9 : 250);
        }
        JsonNode done;
        ServiceProcess first = start();
        try {
            seed(user, followers, followees);
            WriteHttp http = new WriteHttp(first.port());
            String jobId = http.send("DELETE", "/internal/v1/admin/users/" + user).body().get("jobId").asString();
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20))
                    .until(() -> http.send("GET", "/internal/v1/admin/jobs/" + jobId).body().get("done").asLong() >= 30);

            first.kill();

            JsonNode killed = job(user, jobId);
            assertThat(killed.get("status").asString()).isEqualTo("running");
            assertThat(killed.get("done").asLong()).isBetween(30L, (long) FOLLOWERS + FOLLOWEES - 1);
            try (ServiceProcess second = start()) {
                WriteHttp again = new WriteHttp(second.port());
                await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(100)).until(() -> "done".equals(
                        again.send("GET", "/internal/v1/admin/jobs/" + jobId).body().get("status").asString()));
                done = again.send("GET", "/internal/v1/admin/jobs/" + jobId).body();
            }
        } finally {
            first.close();
        }

        assertThat(done.get("done").asLong()).isEqualTo(FOLLOWERS + FOLLOWEES);
        assertThat(done.get("total").asLong()).isEqualTo(FOLLOWERS + FOLLOWEES);
        // The counters of a batch the kill cut short are lost with it, and its redo changes nothing: at most one batch.
        assertThat(done.get("report").get("rowsChanged").asLong()).isBetween(FOLLOWERS + FOLLOWEES - 5L,
                (long) FOLLOWERS + FOLLOWEES);
        ShardRows rows = new ShardRows(dataSources);
        FollowingRepository following = new FollowingRepository();
        FollowerRepository followerSide = new FollowerRepository();
        for (long follower : followers) {
            assertThat(tx(ShardGroup.FOLLOWING, follower, c -> following.find(c, follower)).orElseThrow()
                    .followingIds()).as("follower %d", follower).containsExactly(1L);
            List<OutboxEntry> events = rows.outboxOf(follower);
            assertThat(events).as("one event per removal").hasSize(1);
            assertThat(events.getFirst().type()).isEqualTo(FollowEvent.Type.UNFOLLOW);
            assertThat(events.getFirst().followeeId()).isEqualTo(user);
            assertThat(events.getFirst().version()).isEqualTo(2);
        }
        for (long followee : followees) {
            assertThat(tx(ShardGroup.FOLLOWER, followee, c -> followerSide.find(c, followee)).orElseThrow()
                    .followerIds()).as("followee %d", followee).containsExactly(2L);
        }
        var ownFollowing = tx(ShardGroup.FOLLOWING, user, c -> following.find(c, user));
        var ownFollowers = tx(ShardGroup.FOLLOWER, user, c -> followerSide.find(c, user));
        assertThat(ownFollowing).isEmpty();
        assertThat(ownFollowers).isEmpty();
    }

    /** X follows every followee and is followed by every follower; each row also holds a bystander (1 or 2). */
    private static void seed(long user, long[] followers, long[] followees) {
        FollowingRepository following = new FollowingRepository();
        FollowerRepository followerSide = new FollowerRepository();
        long[] times = new long[followees.length];
        java.util.Arrays.fill(times, 1);
        long[] sortedFollowees = followees.clone();
        java.util.Arrays.sort(sortedFollowees);
        tx(ShardGroup.FOLLOWING, user, c -> following.writeNextVersion(c, following.lockOrCreate(c, user),
                sortedFollowees, times));
        long[] followerTimes = new long[followers.length];
        java.util.Arrays.fill(followerTimes, 1);
        tx(ShardGroup.FOLLOWER, user, c -> followerSide.writeNextVersion(c, followerSide.lockOrCreate(c, user),
                followers, followerTimes, followers.length, false));
        for (long follower : followers) {
            long[] ids = {1, user};
            tx(ShardGroup.FOLLOWING, follower, c -> following.writeNextVersion(c, following.lockOrCreate(c, follower),
                    ids, new long[] {1, 1}));
        }
        for (long followee : followees) {
            tx(ShardGroup.FOLLOWER, followee, c -> followerSide.writeNextVersion(c,
                    followerSide.lockOrCreate(c, followee), new long[] {2, user}, new long[] {1, 1}, 2, false));
        }
    }

    private static JsonNode job(long user, String jobId) {
        return tx(ShardGroup.FOLLOWING, user, c -> {
            try (var ps = c.prepareStatement("SELECT status, done FROM account_jobs WHERE job_id = ?")) {
                ps.setString(1, jobId);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return tools.jackson.databind.json.JsonMapper.builder().build().createObjectNode()
                            .put("status", rs.getString(1)).put("done", rs.getLong(2));
                }
            }
        });
    }
}
