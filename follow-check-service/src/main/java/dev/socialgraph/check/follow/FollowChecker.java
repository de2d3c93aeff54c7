package dev.socialgraph.check.follow;

import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.store.following.FollowingRow;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;

/**
 * Answers "does a follow b?" through the layers of DESIGN.md 5:
 * <ol>
 *   <li>L0 bloom filter: "not in the filter" is a definite no;</li>
 *   <li>the exact in-process following cache: a binary search in the follower's sorted array;</li>
 *   <li>L1 Redis {@code following:{a}};</li>
 *   <li>L2 the following shard, the truth, with a version-guarded backfill of Redis and a fill of the in-process
 *       cache.</li>
 * </ol>
 * <b>Feed-lag guard.</b> Both in-process layers are exactly as fresh as the {@code follow-events} this instance has
 * applied; while {@link Feed#isFresh()} is false (the stream is stalled or this consumer is behind) they are skipped
 * and Redis or the shard answers, so a stalled broker or relay never turns an acknowledged follow into a "no".
 *
 * <p><b>Read-your-writes.</b> A valid follow token of the same actor (younger than {@code tokenMaxAge}) skips the
 * in-process layers <em>and Redis</em> and reads the shard: the event may not have arrived yet, and the write
 * service's Redis update may have failed (DESIGN.md 3 step 3 allows it).
 *
 * <p><b>Admission.</b> Only followers whose logical shard this instance owns are cached in process (shard-affine
 * reads send their checks here). A shard read fills the cache at once; a miss answered by Redis queues the
 * follower for a shard read on the {@code admissions} executor, after the answer, so no check waits for it. Fills
 * happen only while the feed is fresh: an entry must be read after the consumer started applying events, or an
 * event between the read and the consumer's start would be lost to it.
 *
 * <p>Each answer is timed in {@code graph.check.latency}, tagged with the layer that answered (never the user);
 * {@code graph.check.bloom.false.positives} counts checks the filter was consulted on, said "maybe" to, and that
 * a later layer answered "no". The check path stays primitive: {@code long} ids, sorted {@code long[]} arrays.
 */
public class FollowChecker {

    /** The L0 filter. */
    public interface Bloom {
        /**
         * Whether the filter may be consulted about {@code followerId}: it is built and holds every edge of the
         * follower's logical shard.
         *
         * @param followerId positive
         * @return {@code true} when {@link #mightFollow} is meaningful for this follower
         */
        boolean covers(long followerId);

        /**
         * Whether the edge may exist; {@code false} is definite for a covered follower.
         *
         * @param followerId positive
         * @param followeeId positive
         * @return {@code false} only when the edge is certainly absent
         */
        boolean mightFollow(long followerId, long followeeId);
    }

    /** The exact in-process following cache, as {@code dev.socialgraph.check.cache.LocalFollowingCache}. */
    public interface Local {
        /**
         * @param followerId positive
         * @return the cached sorted followee ids, or {@code null}
         */
        long[] following(long followerId);

        /**
         * @param followerId positive
         * @return a fill ticket, taken before reading the row
         */
        long ticket(long followerId);

        /**
         * Caches a row unless an event of the follower may have been applied since {@code ticket}.
         *
         * @param followerId positive
         * @param ids        sorted ascending
         * @param version    the row's version
         * @param ticket     from {@link #ticket}
         * @return whether it is cached now
         */
        boolean put(long followerId, long[] ids, long version, long ticket);
    }

    /** The L1 Redis cache, as {@code dev.socialgraph.check.cache.RedisFollowingCache}. */
    public interface Cache {
        /** {@link #isFollowing}: the cached set has the member. */
        int FOLLOWING = 1;
        /** {@link #isFollowing}: the set is cached and lacks the member. */
        int NOT_FOLLOWING = 0;
        /** {@link #isFollowing}: not cached, or Redis did not answer. */
        int MISS = -1;

        /**
         * @param followerId positive
         * @param followeeId positive
         * @return {@link #FOLLOWING}, {@link #NOT_FOLLOWING} or {@link #MISS}
         */
        int isFollowing(long followerId, long followeeId);

        /**
         * @param followerId  positive
         * @param followeeIds positive ids
         * @return membership aligned with {@code followeeIds}, or {@code null} on a miss
         */
        boolean[] areFollowing(long followerId, long[] followeeIds);

        /**
         * Backfills the cached set from a shard row; never replaces a newer version.
         *
         * @param followerId   positive
         * @param followingIds sorted ascending
         * @param version      the row's version
         */
        void fill(long followerId, long[] followingIds, long version);
    }

    /** The following shards. */
    public interface Shards {
        /**
         * @param followerId positive
         * @return the row as stored (an empty row of version 0 for a user who never followed anyone)
         * @throws dev.socialgraph.common.shard.ShardUnavailableException when its database is down
         */
        FollowingRow following(long followerId);
    }

    /** The feed-lag guard, as {@code dev.socialgraph.check.feed.FeedLag}. */
    public interface Feed {
        /**
         * @return whether the in-process layers have applied every follow committed longer ago than the bound
         */
        boolean isFresh();
    }

    /** {@link #answerInProcess}: {@code a} follows {@code b}. */
    public static final int FOLLOWING = 1;
    /** {@link #answerInProcess}: {@code a} does not follow {@code b}. */
    public static final int NOT_FOLLOWING = 0;
    /** {@link #answerInProcess}: the in-process layers cannot tell; {@link #isFollowing} must answer. */
    public static final int UNKNOWN = -1;
    /** The bloom filter said "maybe" and the in-process cache lacks the follower. */
    private static final int BLOOM_MAYBE = -2;

    /** {@link #writer} of a request without a follow token. */
    public static final long NO_TOKEN = 0;
    /** {@link #writer} of a follow token that proves no write: old, forged or malformed. Equal to no user id. */
    public static final long NO_WRITER = -1;

    /** Layers that answer a check, the values of the {@code layer} tag. */
    enum Layer { BLOOM, LOCAL, REDIS, SHARD }

    private final Bloom bloom;
    private final Local local;
    private final Cache redis;
    private final Shards shards;
    private final Feed feed;
    private final LongPredicate owned;
    private final FollowTokens tokens;
    private final Duration tokenMaxAge;
    private final Executor admissions;
    private final Set<Long> admitting = ConcurrentHashMap.newKeySet();
    private final Timer[] latency = new Timer[Layer.values().length];
    private final Counter bloomFalsePositives;
    private final Counter lagged;

    /**
     * @param bloom       the L0 filter
     * @param local       the in-process following cache
     * @param redis       the L1 cache
     * @param shards      the following shards
     * @param feed        the feed-lag guard
     * @param owned       whether this instance owns a follower's logical shard (and so caches it in process)
     * @param tokens      verifies follow tokens
     * @param tokenMaxAge how long after a write its token sends checks to the shard (5 s)
     * @param admissions  runs the shard reads that admit a follower after a Redis hit; a bounded executor that
     *                    rejects when full
     * @param registry    where the meters go
     */
    public FollowChecker(Bloom bloom, Local local, Cache redis, Shards shards, Feed feed, LongPredicate owned,
                         FollowTokens tokens, Duration tokenMaxAge, Executor admissions, MeterRegistry registry) {
        this.bloom = bloom;
        this.local = local;
        this.redis = redis;
        this.shards = shards;
        this.feed = feed;
        this.owned = owned;
        this.tokens = tokens;
        this.tokenMaxAge = tokenMaxAge;
        this.admissions = admissions;
        this.bloomFalsePositives = Counter.builder("graph.check.bloom.false.positives")
                .description("Checks the bloom filter was consulted on and let through that a later layer answered "
                        + "false")
                .register(registry);
        this.lagged = Counter.builder("graph.check.feed.lagged")
                .description("Checks that skipped the in-process layers because the event feed was behind")
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
     * A request's {@code X-Follow-Token}, verified once: the value every read of the request is given instead of the
     * header, and compares with the users it names ({@code writer == userId}: that user's own write, younger than
     * the token bound, 5 s, which the reads of that user then skip every layer it may not have reached yet).
     *
     * @param followToken the {@code X-Follow-Token} header, or {@code null}
     * @return the id of the user whose write the token proves (positive); {@link #NO_TOKEN} without a header;
     *         {@link #NO_WRITER} for a token that proves none (old, forged, malformed)
     */
    public long writer(String followToken) {
        if (followToken == null) {
            return NO_TOKEN;
        }
        long actor = tokens.actorOf(followToken, tokenMaxAge);
        return actor == FollowTokens.NO_ACTOR ? NO_WRITER : actor;
    }

    /**
     * Whether {@code followerId} follows {@code followeeId}.
     *
     * @param followerId  positive
     * @param followeeId  positive
     * @param writer     the request's follow token ({@link #writer}); the follower's own write reads the shard
     * @return the answer, correct whatever the state of the caches
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when the answer needs a shard that is down
     */
    public boolean isFollowing(long followerId, long followeeId, long writer) {
        long start = System.nanoTime();
        boolean ownWrite = writer == followerId;
        boolean fresh = feed.isFresh();
        boolean bloomSaidMaybe = false;
        if (!ownWrite) {
            if (fresh) {
                int inProcess = inProcessLayers(followerId, followeeId, start);
                if (inProcess >= 0) {
                    return inProcess == FOLLOWING;
                }
                bloomSaidMaybe = inProcess == BLOOM_MAYBE;
            } else {
                lagged.increment();
            }
            int cached = redis.isFollowing(followerId, followeeId);
            if (cached != Cache.MISS) {
                boolean answer = answered(Layer.REDIS, start, cached == Cache.FOLLOWING);
                if (fresh && owned.test(followerId)) {
                    admitLater(followerId);
                }
                return counted(bloomSaidMaybe, answer);
            }
        }
        long[] ids = loadFromShard(followerId, fresh && owned.test(followerId));
        return counted(bloomSaidMaybe, answered(Layer.SHARD, start, AdjacencyArray.contains(ids, followeeId)));
    }

    /**
     * {@link #isFollowing}'s answer when the in-process layers (bloom filter, in-process cache) hold it, without
     * any I/O or blocking: what a server may answer on its I/O thread before handing the rest of the check to a
     * thread that may wait for Redis or a shard. Without a follow token only, and only while the feed is fresh.
     *
     * @param followerId  positive
     * @param followeeId  positive
     * @param writer     the request's follow token ({@link #writer}); any token, {@link #NO_WRITER} too, means
     *                   {@link #UNKNOWN} (read-your-writes reads the shard)
     * @return {@link #FOLLOWING}, {@link #NOT_FOLLOWING}, or {@link #UNKNOWN} when only Redis or a shard can answer
     *         (then nothing was recorded: {@link #isFollowing} answers it in full)
     */
    public int answerInProcess(long followerId, long followeeId, long writer) {
        if (writer != NO_TOKEN || !feed.isFresh()) {
            return UNKNOWN;
        }
        int answer = inProcessLayers(followerId, followeeId, System.nanoTime());
        return answer >= 0 ? answer : UNKNOWN;
    }

    /** {@link #FOLLOWING} or {@link #NOT_FOLLOWING} (recorded), {@link #BLOOM_MAYBE} or {@link #UNKNOWN}. */
    private int inProcessLayers(long followerId, long followeeId, long start) {
        boolean bloomSaidMaybe = false;
        if (bloom.covers(followerId)) {
            if (!bloom.mightFollow(followerId, followeeId)) {
                answered(Layer.BLOOM, start, false);
                return NOT_FOLLOWING;
            }
            bloomSaidMaybe = true;
        }
        long[] ids = local.following(followerId);
        if (ids == null) {
            return bloomSaidMaybe ? BLOOM_MAYBE : UNKNOWN;
        }
        boolean answer = counted(bloomSaidMaybe, answered(Layer.LOCAL, start, AdjacencyArray.contains(ids, followeeId)));
        return answer ? FOLLOWING : NOT_FOLLOWING;
    }

    /**
     * Membership of many followees at once: nothing but the bloom filter when it rules out every id, else one
     * in-process lookup, else one Redis round trip for a cached user, else one shard read.
     *
     * @param followerId  positive
     * @param followeeIds positive ids
     * @param writer      the request's follow token ({@link #writer}); the follower's own write reads the shard
     *                    (read-your-writes)
     * @return membership aligned with {@code followeeIds}
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when the answer needs a shard that is down
     */
    public boolean[] areFollowing(long followerId, long[] followeeIds, long writer) {
        long start = System.nanoTime();
        boolean ownWrite = writer == followerId;
        boolean fresh = feed.isFresh();
        if (!ownWrite) {
            if (fresh) {
                boolean[] inProcess = inProcessLayers(followerId, followeeIds, start);
                if (inProcess != null) {
                    return inProcess;
                }
            } else {
                lagged.increment();
            }
            boolean[] cached = redis.areFollowing(followerId, followeeIds);
            if (cached != null) {
                latency[Layer.REDIS.ordinal()].record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                if (fresh && owned.test(followerId)) {
                    admitLater(followerId);
                }
                return cached;
            }
        }
        long[] ids = loadFromShard(followerId, fresh && owned.test(followerId));
        return membership(ids, followeeIds, Layer.SHARD, start);
    }

    /**
     * {@link #areFollowing}'s answer when the in-process layers hold it, without any I/O or blocking (as
     * {@link #answerInProcess}).
     *
     * @param followerId  positive
     * @param followeeIds positive ids
     * @param writer      the request's follow token ({@link #writer}); any token means {@code null}
     * @return membership aligned with {@code followeeIds}, or {@code null} when only Redis or a shard can answer
     *         (then nothing was recorded)
     */
    public boolean[] areFollowingInProcess(long followerId, long[] followeeIds, long writer) {
        if (writer != NO_TOKEN || !feed.isFresh()) {
            return null;
        }
        return inProcessLayers(followerId, followeeIds, System.nanoTime());
    }

    private boolean[] inProcessLayers(long followerId, long[] followeeIds, long start) {
        if (bloom.covers(followerId) && noneMightFollow(followerId, followeeIds)) {
            latency[Layer.BLOOM.ordinal()].record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            return new boolean[followeeIds.length];
        }
        long[] ids = local.following(followerId);
        return ids == null ? null : membership(ids, followeeIds, Layer.LOCAL, start);
    }

    private boolean[] membership(long[] ids, long[] followeeIds, Layer layer, long start) {
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

    /** Counts a bloom false positive: the filter was consulted, said "maybe", and the answer is "no". */
    private boolean counted(boolean bloomSaidMaybe, boolean answer) {
        if (bloomSaidMaybe && !answer) {
            bloomFalsePositives.increment();
        }
        return answer;
    }

    /** Queues a shard read that puts the follower's row into the in-process cache; at most one per follower. */
    private void admitLater(long followerId) {
        if (!admitting.add(followerId)) {
            return;
        }
        try {
            admissions.execute(() -> {
                try {
                    if (feed.isFresh() && local.following(followerId) == null) {
                        long ticket = local.ticket(followerId);
                        FollowingRow row = shards.following(followerId);
                        local.put(followerId, row.followingIds(), row.version(), ticket);
                    }
                } catch (RuntimeException e) {
                    // a shard that is down: the next miss tries again
                } finally {
                    admitting.remove(followerId);
                }
            });
        } catch (RejectedExecutionException e) {
            admitting.remove(followerId); // queue full: the next miss tries again
        }
    }

    /**
     * Reads the row, backfills Redis, and caches it in process when {@code cacheHere} (this instance owns the follower
     * and the feed was fresh when the check began).
     */
    private long[] loadFromShard(long followerId, boolean cacheHere) {
        long ticket = cacheHere ? local.ticket(followerId) : 0;
        FollowingRow row = shards.following(followerId);
        redis.fill(followerId, row.followingIds(), row.version());
        if (cacheHere) {
            local.put(followerId, row.followingIds(), row.version(), ticket);
        }
        return row.followingIds();
    }

    private boolean answered(Layer layer, long startNanos, boolean answer) {
        latency[layer.ordinal()].record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
        return answer;
    }
}
