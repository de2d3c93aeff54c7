package dev.socialgraph.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.cache.FollowingCache.Change;
import dev.socialgraph.cache.FollowingCache.Outcome;
import dev.socialgraph.common.keys.RedisKeys;
import dev.socialgraph.localruntime.RedisCluster;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The protocol on a local Redis Cluster of six real {@code redis-server} processes (three masters, one replica each),
 * then a master killed in the middle of reads and writes: while its replica takes over, answers about its slots are
 * misses or failures, never wrong, and afterwards the same connection serves them again.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FollowingCacheClusterIT extends FollowingCacheContract {

    private static Path directory;
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        directory = Files.createTempDirectory("graph-cache-cluster");
        cluster = RedisCluster.start(directory, RedisCluster.freePorts(6), 3, 1);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected RedisConnector connect() {
        return new RedisConnector(RedisEndpoint.parse(cluster.uris(), RedisMode.CLUSTER, Duration.ofSeconds(2),
                Duration.ofSeconds(2)));
    }

    @Override
    protected void scriptFlush() {
        for (int port : cluster.pids().keySet()) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                connection.sync().scriptFlush();
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    @Order(1)
    void usersSpreadOverEveryMaster() {
        Set<Integer> masters = new HashSet<>();
        for (int i = 0; i < 64; i++) {
            masters.add(cluster.masterOf(RedisKeys.following(user())));
        }
        assertThat(masters).as("the contract's users reach every master").hasSize(3);
    }

    /** Waits until a key is on its master and its replica (replication is asynchronous). */
    private static void awaitOnTwoNodes(String key) {
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            int holders = 0;
            for (int port : cluster.pids().keySet()) {
                RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
                try (StatefulRedisConnection<String, String> connection = client.connect()) {
                    connection.sync().readOnly(); // lets a replica answer for its master's slots
                    holders += connection.sync().exists(key) > 0 ? 1 : 0;
                } catch (RuntimeException e) {
                    // MOVED from a node of another slot
                } finally {
                    client.shutdown();
                }
            }
            return holders == 2;
        });
    }

    /** Last: it leaves the cluster with a promoted replica and a dead node. */
    @Test
    @Order(Integer.MAX_VALUE)
    void aMasterKilledMidway_answersMissOrFailedForItsSlots_neverWrong_andServesThemAgainAfterFailover() {
        try (RedisConnector redis = connect()) {
            FollowingCache cache = cache(redis);
            long victim = user();
            List<Long> others = new ArrayList<>();
            int victimMaster = cluster.masterOf(RedisKeys.following(victim));
            while (others.size() < 2) {
                long u = user();
                if (cluster.masterOf(RedisKeys.following(u)) != victimMaster) {
                    others.add(u);
                }
            }
            assertThat(cache.fill(victim, new long[] {1, 2}, 1)).isTrue();
            for (long u : others) {
                assertThat(cache.fill(u, new long[] {1}, 1)).isTrue();
            }
            awaitOnTwoNodes(RedisKeys.following(victim));

            cluster.killMasterOf(RedisKeys.following(victim));

            // Other masters' users are answered all along.
            for (long u : others) {
                assertThat(cache.isFollowing(u, 1)).isEqualTo(FollowingCache.FOLLOWING);
            }
            // The victim's slot: a miss or the truth, until the promoted replica answers from the replicated set.
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
                int following = cache.isFollowing(victim, 1);
                int notFollowing = cache.isFollowing(victim, 3);
                assertThat(following).isIn(FollowingCache.MISS, FollowingCache.FOLLOWING);
                assertThat(notFollowing).isIn(FollowingCache.MISS, FollowingCache.NOT_FOLLOWING);
                return following == FollowingCache.FOLLOWING;
            });
            assertThat(failures).as("the dead master's commands failed rather than hung or answered").isNotEmpty();

            // Writes to the slot reach the new master, single and pipelined.
            Outcome applied = cache.apply(new Change(victim, 2, true, 3));
            assertThat(applied).isIn(Outcome.APPLIED, Outcome.NOT_CACHED);
            List<Change> batch = List.of(new Change(victim, 3, false, 1), new Change(others.get(0), 2, true, 5));
            assertThat(cache.applyAll(batch).outcomes()).doesNotContain(Outcome.FAILED, Outcome.INVALIDATED);
            if (applied == Outcome.APPLIED) {
                assertThat(cache.areFollowing(victim, new long[] {1, 2, 3})).containsExactly(false, true, true);
            }
            assertThat(cache.isFollowing(others.get(0), 5)).isEqualTo(FollowingCache.FOLLOWING);
        }
    }
}
