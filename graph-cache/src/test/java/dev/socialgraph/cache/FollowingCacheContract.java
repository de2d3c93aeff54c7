package dev.socialgraph.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.cache.FollowingCache.Change;
import dev.socialgraph.cache.FollowingCache.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The protocol of {@code following:{id}} against a real Redis, the same for a standalone server and a cluster:
 * subclasses say where Redis is. Users get ids from a counter shared by the JVM's tests, so a class never sees
 * another's keys.
 */
abstract class FollowingCacheContract {

    private static final AtomicLong nextUser = new AtomicLong(1_000_000 + new Random().nextInt(1_000_000) * 1000L);

    /** Failures the protocol reported to its listener, e.g. while a master is down. */
    protected final List<String> failures = new CopyOnWriteArrayList<>();

    /** @return a connector to the Redis under test, closed by the caller */
    protected abstract RedisConnector connect();

    /** Runs a Redis command on every server holding keys (to flush the script caches). */
    protected abstract void scriptFlush();

    protected FollowingCache cache(RedisConnector redis) {
        return new FollowingCache(redis, Duration.ofSeconds(3600), (command, error) -> failures.add(command));
    }

    protected static long user() {
        return nextUser.incrementAndGet();
    }

    @Test
    void fill_thenMembership_answersFromTheSet_andAnEmptyRowIsCachedAsEmpty() {
        try (RedisConnector redis = connect()) {
            FollowingCache cache = cache(redis);
            long a = user();
            long empty = user();
            assertThat(cache.isFollowing(a, 7)).isEqualTo(FollowingCache.MISS);
            assertThat(cache.fill(a, new long[] {3, 7, 11}, 4)).isTrue();
            assertThat(cache.fill(empty, new long[0], 1)).isTrue();

            assertThat(cache.isFollowing(a, 7)).isEqualTo(FollowingCache.FOLLOWING);
            assertThat(cache.isFollowing(a, 8)).isEqualTo(FollowingCache.NOT_FOLLOWING);
            assertThat(cache.areFollowing(a, new long[] {11, 12, 3})).containsExactly(true, false, true);
            assertThat(cache.isFollowing(empty, 7)).isEqualTo(FollowingCache.NOT_FOLLOWING);
            assertThat(cache.areFollowing(user(), new long[] {1})).isNull();
            assertThat(failures).isEmpty();
        }
    }

    @Test
    void apply_followsTheRowVersions_andAGapDropsTheSet() {
        try (RedisConnector redis = connect()) {
            FollowingCache cache = cache(redis);
            long a = user();
            cache.fill(a, new long[] {5}, 1);

            assertThat(cache.apply(new Change(a, 2, true, 9))).isEqualTo(Outcome.APPLIED);
            assertThat(cache.apply(new Change(a, 2, true, 9))).isEqualTo(Outcome.ALREADY_APPLIED);
            assertThat(cache.apply(new Change(a, 3, false, 5))).isEqualTo(Outcome.APPLIED);
            assertThat(cache.areFollowing(a, new long[] {5, 9})).containsExactly(false, true);

            assertThat(cache.apply(new Change(a, 5, true, 1))).isEqualTo(Outcome.INVALIDATED);
            assertThat(cache.isFollowing(a, 9)).isEqualTo(FollowingCache.MISS);
            assertThat(cache.fill(a, new long[] {9}, 4)).as("a fill older than the floor").isFalse();
            assertThat(cache.fill(a, new long[] {1, 9}, 5)).isTrue();
            assertThat(cache.isFollowing(a, 1)).isEqualTo(FollowingCache.FOLLOWING);
        }
    }

    @Test
    void forget_deletesTheSetAndItsFloor_andLeavesOtherUsers() {
        try (RedisConnector redis = connect()) {
            FollowingCache cache = cache(redis);
            long a = user();
            long b = user();
            cache.fill(a, new long[] {5}, 9);
            cache.fill(b, new long[] {5}, 1);

            assertThat(cache.forget(a)).isTrue();
            assertThat(cache.forget(a)).as("nothing left to delete").isTrue();

            assertThat(cache.isFollowing(a, 5)).isEqualTo(FollowingCache.MISS);
            assertThat(cache.fill(a, new long[] {6}, 1)).as("the version floor is gone too").isTrue();
            assertThat(cache.isFollowing(b, 5)).isEqualTo(FollowingCache.FOLLOWING);
            assertThat(failures).isEmpty();
        }
    }

    @Test
    void apply_toAnUncachedUser_recordsAFloor_thatRefusesAnOlderFill() {
        try (RedisConnector redis = connect()) {
            FollowingCache cache = cache(redis);
            long a = user();
            assertThat(cache.apply(new Change(a, 8, true, 2))).isEqualTo(Outcome.NOT_CACHED);
            assertThat(cache.fill(a, new long[] {}, 7)).isFalse();
            assertThat(cache.isFollowing(a, 2)).isEqualTo(FollowingCache.MISS);
        }
    }

    @Test
    void applyAll_pipelinesManyUsers_inOrderPerUser_matchingAModel() {
        try (RedisConnector redis = connect()) {
            FollowingCache cache = cache(redis);
            Random random = new Random(42);
            List<Long> users = new ArrayList<>();
            Map<Long, TreeSet<Long>> model = new TreeMap<>();
            Map<Long, Long> versions = new TreeMap<>();
            for (int i = 0; i < 40; i++) {
                long u = user();
                users.add(u);
                model.put(u, new TreeSet<>());
                versions.put(u, 1L);
                assertThat(cache.fill(u, new long[0], 1)).isTrue();
            }
            List<Change> changes = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                long u = users.get(random.nextInt(users.size()));
                long followee = 1 + random.nextInt(30);
                boolean follow = !model.get(u).contains(followee);
                model.get(u).add(followee);
                if (!follow) {
                    model.get(u).remove(followee);
                }
                long version = versions.merge(u, 1L, Long::sum);
                changes.add(new Change(u, version, follow, followee));
            }
            FollowingCache.Batch batch = cache.applyAll(changes);

            assertThat(batch.outcomes()).containsOnly(Outcome.APPLIED);
            long[] all = new long[30];
            for (int i = 0; i < all.length; i++) {
                all[i] = i + 1;
            }
            for (long u : users) {
                boolean[] answer = cache.areFollowing(u, all);
                for (int i = 0; i < all.length; i++) {
                    assertThat(answer[i]).as("user %d follows %d", u, all[i]).isEqualTo(model.get(u).contains(all[i]));
                }
            }
        }
    }

    @Test
    void invalidateAll_dropsTheSets_andRaisesTheirFloors() {
        try (RedisConnector redis = connect()) {
            FollowingCache cache = cache(redis);
            long a = user();
            long b = user();
            cache.fill(a, new long[] {1}, 3);
            cache.fill(b, new long[] {1}, 3);
            List<Change> changes = List.of(new Change(a, 4, true, 2), new Change(b, 4, false, 1));

            assertThat(cache.invalidateAll(changes).outcomes()).containsExactly(Outcome.DROPPED, Outcome.DROPPED);
            assertThat(cache.isFollowing(a, 1)).isEqualTo(FollowingCache.MISS);
            assertThat(cache.fill(b, new long[] {1}, 3)).as("the row before the change").isFalse();
        }
    }

    @Test
    void everyScript_survivesAServerThatForgotIt() {
        try (RedisConnector redis = connect()) {
            FollowingCache cache = cache(redis);
            long a = user();
            long b = user();
            cache.fill(a, new long[] {1}, 1);
            scriptFlush();
            assertThat(cache.apply(new Change(a, 2, true, 2))).isEqualTo(Outcome.APPLIED);
            scriptFlush();
            assertThat(cache.fill(b, new long[] {1}, 1)).isTrue();
            scriptFlush();
            assertThat(cache.applyAll(List.of(new Change(a, 3, true, 3), new Change(b, 2, true, 3))).outcomes())
                    .containsExactly(Outcome.APPLIED, Outcome.APPLIED);
            scriptFlush();
            assertThat(cache.invalidateAll(List.of(new Change(b, 3, true, 4))).outcomes())
                    .containsExactly(Outcome.DROPPED);
            assertThat(cache.areFollowing(a, new long[] {1, 2, 3})).containsExactly(true, true, true);
            assertThat(failures).isEmpty();
        }
    }
}
