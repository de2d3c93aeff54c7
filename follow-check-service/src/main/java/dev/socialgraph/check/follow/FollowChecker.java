package dev.socialgraph.check.follow;

import dev.socialgraph.check.CheckProperties;
import dev.socialgraph.check.bloom.EdgeBloom;
import dev.socialgraph.check.cache.LocalFollowingCache;
import dev.socialgraph.check.cache.RedisFollowingCache;
import dev.socialgraph.check.store.ShardReader;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.store.FollowingRow;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Service;

/**
 * Answers "does a follow b?" through the layers of DESIGN.md 5: L0 bloom filter (a definite "no"), local cache, L1 Redis, L2 shard (with a
 * version-guarded backfill of Redis and a local put). A valid follow token of the same actor skips the bloom
 * filter, the local cache <em>and Redis</em> and reads the shard, the truth (read-your-writes: the event may not
 * have arrived yet, and the write service's Redis update may have failed, which DESIGN.md 3 step 3 allows; a
 * token is valid for 5 s after the actor's own write, so this costs one primary-key read per such check).
 *
 * <p>Each answer is timed in {@code graph.check.latency}, tagged with the layer that answered (never the user).
 * The check path stays primitive: {@code long} ids, sorted {@code long[]} arrays, binary search.
 */
@Service
public class FollowChecker {

    /** Layers that answer a check, the values of the {@code layer} tag. */
    enum Layer { BLOOM, LOCAL, REDIS, SHARD }

    private final EdgeBloom bloom;
    private final LocalFollowingCache local;
    private final RedisFollowingCache redis;
    private final ShardReader shards;
    private final FollowTokens tokens;
    private final Duration tokenMaxAge;
    private final int admitOneIn;
    private final Timer[] latency = new Timer[Layer.values().length];
    private final Counter bloomFalsePositives;

    FollowChecker(EdgeBloom bloom, LocalFollowingCache local, RedisFollowingCache redis, ShardReader shards,
                  CheckProperties properties, MeterRegistry registry) {
        this.bloom = bloom;
        this.local = local;
        this.redis = redis;
        this.shards = shards;
        this.tokens = new FollowTokens(properties.tokenSecret().getBytes(StandardCharsets.UTF_8), Clock.systemUTC());
        this.tokenMaxAge = properties.tokenMaxAge();
        this.admitOneIn = properties.localAdmitOneIn();
        this.bloomFalsePositives = Counter.builder("graph.check.bloom.false.positives")
                .description("Checks the bloom filter let through that a later layer answered false")
                .register(registry);
        for (Layer layer : Layer.values()) {
            latency[layer.ordinal()] = Timer.builder("graph.check.latency")
                    .description("Follow check latency by the layer that answered")
                    .tag("layer", layer.name().toLowerCase())
                    .serviceLevelObjectives(Duration.ofNanos(300_000), Duration.ofMillis(1))
                    .publishPercentileHistogram()
                    .register(registry);
        }
    }

    /**
     * Whether {@code followerId} follows {@code followeeId}.
     *
     * @param followerId  positive
     * @param followeeId  positive
     * @param followToken the {@code X-Follow-Token} header, or {@code null}
     * @return the answer, correct whatever the state of the caches
     * @throws dev.socialgraph.check.store.ShardUnavailableException when the answer needs a shard that is down
     */
    public boolean isFollowing(long followerId, long followeeId, String followToken) {
        long start = System.nanoTime();
        boolean fresh = followToken != null && tokens.verify(followToken, followerId, tokenMaxAge).isValid();
        boolean bloomSaidMaybe = false;
        if (!fresh) {
            if (!bloom.mightFollow(followerId, followeeId)) {
                return answered(Layer.BLOOM, start, false);
            }
            bloomSaidMaybe = bloom.isReady();
            LocalFollowingCache.Entry entry = local.get(followerId);
            if (entry != null) {
                return counted(bloomSaidMaybe,
                        answered(Layer.LOCAL, start, AdjacencyArray.contains(entry.ids(), followeeId)));
            }
        }
        int cached = fresh ? RedisFollowingCache.MISS : redis.isFollowing(followerId, followeeId);
        if (cached != RedisFollowingCache.MISS) {
            boolean answer = answered(Layer.REDIS, start, cached == RedisFollowingCache.FOLLOWING);
            if (ThreadLocalRandom.current().nextInt(admitOneIn) == 0) {
                admit(followerId);
            }
            return counted(bloomSaidMaybe, answer);
        }
        long[] ids = loadFromShard(followerId);
        return counted(bloomSaidMaybe, answered(Layer.SHARD, start, AdjacencyArray.contains(ids, followeeId)));
    }

    /** Counts a bloom false positive: the filter said "maybe" and the answer is "no". */
    private boolean counted(boolean bloomSaidMaybe, boolean answer) {
        if (bloomSaidMaybe && !answer) {
            bloomFalsePositives.increment();
        }
        return answer;
    }

    /**
     * Membership of many followees at once: nothing but the bloom filter when it rules out every id, else one
     * local lookup or one Redis round trip for a cached user, else one shard read.
     *
     * @param followerId  positive
     * @param followeeIds positive ids
     * @return membership aligned with {@code followeeIds}
     */
    public boolean[] areFollowing(long followerId, long[] followeeIds) {
        long start = System.nanoTime();
        if (bloom.isReady() && noneMightFollow(followerId, followeeIds)) {
            latency[Layer.BLOOM.ordinal()].record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            return new boolean[followeeIds.length];
        }
        LocalFollowingCache.Entry entry = local.get(followerId);
        long[] ids;
        Layer layer;
        if (entry != null) {
            ids = entry.ids();
            layer = Layer.LOCAL;
        } else {
            boolean[] cached = redis.areFollowing(followerId, followeeIds);
            if (cached != null) {
                latency[Layer.REDIS.ordinal()].record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                return cached;
            }
            ids = loadFromShard(followerId);
            layer = Layer.SHARD;
        }
        boolean[] out = new boolean[followeeIds.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = AdjacencyArray.contains(ids, followeeIds[i]);
        }
        latency[layer.ordinal()].record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        return out;
    }

    private boolean noneMightFollow(long followerId, long[] followeeIds) {
        for (long followee : followeeIds) {
            if (bloom.mightFollow(followerId, followee)) {
                return false;
            }
        }
        return true;
    }

    /** Copies a user's cached Redis set into the local cache (after the answer was timed). */
    private void admit(long followerId) {
        LocalFollowingCache.Entry entry = redis.members(followerId);
        if (entry != null) {
            local.put(followerId, entry.ids(), entry.version());
        }
    }

    private long[] loadFromShard(long followerId) {
        FollowingRow row = shards.following(followerId);
        redis.fill(followerId, row.followingIds(), row.version());
        local.put(followerId, row.followingIds(), row.version());
        return row.followingIds();
    }

    private boolean answered(Layer layer, long startNanos, boolean answer) {
        latency[layer.ordinal()].record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
        return answer;
    }
}
