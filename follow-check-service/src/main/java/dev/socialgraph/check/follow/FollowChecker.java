package dev.socialgraph.check.follow;

import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.store.following.FollowingRow;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Arrays;
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
 * <b>One pipeline, asked in two places.</b> Each question (one pair, or one follower and many followees) is one method
 * that asks the layers in order, each answering in the one scheme of {@link Answer}: {@link Answer#YES} or
 * {@link Answer#NO}, or {@link Answer#NEXT} to ask the next layer. Asked with {@code mayBlock == false}, on a server's
 * I/O thread, it stops before the first layer that may wait (Redis, a shard, a block row) and answers
 * {@link Answer#NEXT}; asked again with {@code mayBlock == true}, on a thread that may block, the same code runs to the
 * end. A request that carries a follow token, valid or not, is answered where blocking is allowed (tokens are rare: the
 * seconds after the caller's own write).
 *
 * <p><b>Feed-lag guard.</b> Both in-process layers are exactly as fresh as the {@code follow-events} this instance has
 * applied; while {@link Feed#isFresh()} is false (the stream is stalled or this consumer is behind) they are skipped
 * and Redis or the shard answers, so a stalled broker or relay never turns an acknowledged follow into a "no".
 *
 * <p><b>Read-your-writes.</b> A request's follow token is verified once ({@link #writer}); a valid token of the
 * follower (younger than {@code tokenMaxAge}) skips the in-process layers <em>and Redis</em> and reads the shard: the
 * event may not have arrived yet, and the write service's Redis update may have failed (DESIGN.md 3 step 3 allows it).
 *
 * <p><b>Blocks.</b> The single check shows no follow that a block of the follower by the followee forbids, whose
 * removal by the block's event is still on its way ({@link Blocks}): a follow the in-process filter of hidden pairs
 * (or the followee's own token) says may be under a block is finished by a read of the followee's block row.
 *
 * <p><b>Admission.</b> Only followers whose logical shard this instance owns are cached in process (shard-affine
 * reads send their checks here). A shard read fills the cache at once; a miss answered by Redis queues the
 * follower for a shard read on the {@code admissions} executor, after the answer, so no check waits for it. Fills
 * happen only while the feed is fresh: an entry must be read after the consumer started applying events, or an
 * event between the read and the consumer's start would be lost to it.
 *
 * <p>Each answer is timed in {@code graph.check.latency}, tagged with the layer that answered (never the user), once:
 * by the pass that answers, never by one that answers {@link Answer#NEXT}; {@code graph.check.bloom.false.positives}
 * counts checks the filter was consulted on, said "maybe" to, and that a later layer answered "no". The check path
 * stays primitive and allocates nothing: {@code long} ids, sorted {@code long[]} arrays, {@code int} answers.
 */
public class FollowChecker implements FollowingRows {

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
         * @param followerId positive
         * @return the cached following row (ids, follow times, version), or {@code null}
         */
        FollowingRow row(long followerId);

        /**
         * Caches a row unless an event of the follower may have been applied since {@code ticket}.
         *
         * @param row    the row as read from the shard
         * @param ticket from {@link #ticket}
         * @return whether it is cached now
         */
        boolean put(FollowingRow row, long ticket);
    }

    /** The L1 Redis cache, as {@code dev.socialgraph.check.cache.RedisFollowingCache}. */
    public interface Cache {
        /**
         * @param followerId positive
         * @param followeeId positive
         * @return {@link Answer#YES} or {@link Answer#NO} when the set is cached; {@link Answer#NEXT} when it is not,
         *         or Redis did not answer
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

        /**
         * Which of {@code followerIds} follow {@code followeeId} as the shards store it. This default reads each row;
         * the production adapter asks each following database once.
         *
         * @param followerIds positive ids, ascending
         * @param followeeId  positive
         * @return the subset that follows, ascending
         * @throws dev.socialgraph.common.shard.ShardUnavailableException when a database it needs is down
         */
        default long[] whichFollow(long[] followerIds, long followeeId) {
            return Arrays.stream(followerIds)
                    .filter(id -> AdjacencyArray.contains(following(id).followingIds(), followeeId)).toArray();
        }
    }

    /**
     * Blocks that may hide a follow, as {@code dev.socialgraph.check.relations.RelationReads}: a follow of a user by
     * one it blocks stands until the block's event removes it, and the single check must not show it meanwhile.
     */
    public interface Blocks {

        /** The follow as stored: no block is consulted (relationships, batch checks, suggestions). */
        Blocks NONE = new Blocks() {
            @Override
            public boolean followMayBeBlocked(long followerId, long followeeId, long writer) {
                return false;
            }

            @Override
            public boolean blocks(long blockerId, long blockedId) {
                return false;
            }
        };

        /**
         * Whether a block of the follower by the followee may stand, from memory only; asked of follows only.
         *
         * @param followerId positive
         * @param followeeId positive
         * @param writer     the request's follow token ({@link #writer}): the followee's own write may be a block the
         *                   in-process filter has not seen yet
         * @return {@code false} when no block can stand, so the follow is shown without a read
         */
        boolean followMayBeBlocked(long followerId, long followeeId, long writer);

        /**
         * Whether {@code blockerId} blocks {@code blockedId}, from the blocker's row; may block.
         *
         * @throws dev.socialgraph.common.shard.ShardUnavailableException when the blocker's database is down
         */
        boolean blocks(long blockerId, long blockedId);
    }

    /** The feed-lag guard, as {@code dev.socialgraph.check.feed.FeedLag}. */
    public interface Feed {
        /**
         * @return whether the in-process layers have applied every follow committed longer ago than the bound
         */
        boolean isFresh();
    }

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
     * Whether {@code followerId} follows {@code followeeId}: the one read of a pair, in process or blocking.
     *
     * @param followerId positive
     * @param followeeId positive
     * @param writer     the request's follow token ({@link #writer}); the follower's own write reads the shard
     * @param mayBlock   whether Redis, the shard and a block row may be read; {@code false} on an I/O thread
     * @param blocks     the blocks that may hide the follow, or {@link Blocks#NONE} for the follow as stored
     * @return {@link Answer#YES} or {@link Answer#NO}, correct whatever the state of the caches; {@link Answer#NEXT}
     *         only when {@code !mayBlock} and the next layer to ask would block (then nothing was recorded)
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when the answer needs a shard that is down
     */
    public int isFollowing(long followerId, long followeeId, long writer, boolean mayBlock, Blocks blocks) {
        return follows(followerId, followeeId, writer, mayBlock, blocks, true);
    }

    /**
     * Whether {@code followerId} follows {@code followeeId} as stored, through every layer: {@link #isFollowing(long,
     * long, long, boolean, Blocks)} where blocking is allowed, with {@link Blocks#NONE}.
     *
     * @param followerId positive
     * @param followeeId positive
     * @param writer     the request's follow token ({@link #writer}); the follower's own write reads the shard
     * @return the answer
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when the answer needs a shard that is down
     */
    public boolean isFollowing(long followerId, long followeeId, long writer) {
        return follows(followerId, followeeId, writer, true, Blocks.NONE, true) == Answer.YES;
    }

    /**
     * What {@link #isFollowing(long, long, long, boolean, Blocks)} answers on an I/O thread with {@link Blocks#NONE},
     * recording nothing: for a read of several pairs that answers in process only when memory holds all of them, so
     * that a pair it answered is not recorded again when the read is finished where blocking is allowed.
     *
     * @param followerId positive
     * @param followeeId positive
     * @param writer     the request's follow token ({@link #writer})
     * @return {@link Answer#YES} or {@link Answer#NO} from memory, else {@link Answer#NEXT}
     */
    public int knownInProcess(long followerId, long followeeId, long writer) {
        return follows(followerId, followeeId, writer, false, Blocks.NONE, false);
    }

    /** The pipeline of one pair: in-process layers, then (when {@code mayBlock}) Redis and the shard, then blocks. */
    private int follows(long followerId, long followeeId, long writer, boolean mayBlock, Blocks blocks,
                        boolean record) {
        if (!mayBlock && writer != NO_TOKEN) {
            return Answer.NEXT; // a follow token: answered where blocking is allowed
        }
        long start = System.nanoTime();
        boolean ownWrite = writer == followerId;
        boolean fresh = feed.isFresh();
        boolean bloomSaidMaybe = false;
        int answer = Answer.NEXT;
        Layer layer = null;
        if (!ownWrite && fresh) {
            if (bloom.covers(followerId)) {
                if (bloom.mightFollow(followerId, followeeId)) {
                    bloomSaidMaybe = true;
                } else {
                    answer = Answer.NO;
                    layer = Layer.BLOOM;
                }
            }
            if (answer == Answer.NEXT) {
                long[] ids = local.following(followerId);
                if (ids != null) {
                    answer = Answer.of(AdjacencyArray.contains(ids, followeeId));
                    layer = Layer.LOCAL;
                }
            }
        }
        if (answer == Answer.NEXT && !mayBlock) {
            return Answer.NEXT;
        }
        long elapsed = System.nanoTime() - start;
        if (answer == Answer.NEXT && !ownWrite) {
            if (!fresh) {
                lagged.increment();
            }
            answer = redis.isFollowing(followerId, followeeId);
            elapsed = System.nanoTime() - start;
            if (Answer.isAnswer(answer)) {
                layer = Layer.REDIS;
                if (fresh && owned.test(followerId)) {
                    admitLater(followerId);
                }
            }
        }
        if (answer == Answer.NEXT) {
            long[] ids = loadFromShard(followerId, fresh && owned.test(followerId));
            answer = Answer.of(AdjacencyArray.contains(ids, followeeId));
            layer = Layer.SHARD;
            elapsed = System.nanoTime() - start;
        }
        boolean following = answer == Answer.YES;
        boolean blockToRead = following && blocks.followMayBeBlocked(followerId, followeeId, writer);
        if (blockToRead && !mayBlock) {
            return Answer.NEXT; // the followee's block row decides: not recorded here, the blocking pass answers
        }
        if (record) {
            record(layer, elapsed, bloomSaidMaybe, following);
        }
        return blockToRead && blocks.blocks(followeeId, followerId) ? Answer.NO : answer;
    }

    /**
     * Membership of many followees at once, the one read of a batch: nothing but the bloom filter when it rules out
     * every id, else one in-process lookup, else (when {@code mayBlock}) one Redis round trip for a cached user, else
     * one shard read. No block is consulted.
     *
     * @param followerId  positive
     * @param followeeIds positive ids
     * @param writer      the request's follow token ({@link #writer}); the follower's own write reads the shard
     *                    (read-your-writes)
     * @param mayBlock    whether Redis and the shard may be read; {@code false} on an I/O thread
     * @return membership aligned with {@code followeeIds}; {@code null} (the batch's {@link Answer#NEXT}) only when
     *         {@code !mayBlock} and Redis or the shard must answer (then nothing was recorded)
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when the answer needs a shard that is down
     */
    public boolean[] areFollowing(long followerId, long[] followeeIds, long writer, boolean mayBlock) {
        if (!mayBlock && writer != NO_TOKEN) {
            return null; // a follow token: answered where blocking is allowed
        }
        long start = System.nanoTime();
        boolean ownWrite = writer == followerId;
        boolean fresh = feed.isFresh();
        if (!ownWrite && fresh) {
            if (bloom.covers(followerId) && noneMightFollow(followerId, followeeIds)) {
                latency[Layer.BLOOM.ordinal()].record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                return new boolean[followeeIds.length];
            }
            long[] ids = local.following(followerId);
            if (ids != null) {
                return membership(ids, followeeIds, Layer.LOCAL, start);
            }
        }
        if (!mayBlock) {
            return null;
        }
        if (!ownWrite) {
            if (!fresh) {
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
     * {@link #areFollowing(long, long[], long, boolean)} where blocking is allowed.
     *
     * @param followerId  positive
     * @param followeeIds positive ids
     * @param writer      the request's follow token ({@link #writer})
     * @return membership aligned with {@code followeeIds}
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when the answer needs a shard that is down
     */
    public boolean[] areFollowing(long followerId, long[] followeeIds, long writer) {
        return areFollowing(followerId, followeeIds, writer, true);
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

    /**
     * Records an answer of the follow layers: its latency under the layer that gave it, and a bloom false positive
     * when the filter was consulted, said "maybe", and the answer is "no".
     */
    private void record(Layer layer, long elapsedNanos, boolean bloomSaidMaybe, boolean following) {
        latency[layer.ordinal()].record(elapsedNanos, TimeUnit.NANOSECONDS);
        if (bloomSaidMaybe && !following) {
            bloomFalsePositives.increment();
        }
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
                        local.put(shards.following(followerId), ticket);
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
     * The following row of {@code followerId} for a list, a count or common following: the in-process row when the
     * feed is fresh and the request's follow token is not the follower's own, else the shard's row (which then
     * backfills Redis and, when the feed is fresh, the in-process cache: a user whose lists are read is a hot user).
     * Blocks and account states are the caller's.
     *
     * @param followerId positive user id
     * @param writer     the request's follow token ({@link #writer}); the follower's own write reads the shard
     *                   (read-your-writes)
     * @return the row (its arrays not to be modified); an empty row of version 0 for a user who never followed
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when the shard must be read and is down
     */
    @Override
    public FollowingRow followingRow(long followerId, long writer) {
        FollowingRow row = cachedRow(followerId, writer);
        return row != null ? row : loadRow(followerId, feed.isFresh());
    }

    /**
     * The in-process following row of {@code followerId}, when the feed is fresh and the request's follow token is
     * not the follower's own; no I/O.
     *
     * @param followerId positive user id
     * @param writer     the request's follow token ({@link #writer})
     * @return the row (its arrays not to be modified), or {@code null}
     */
    @Override
    public FollowingRow cachedRow(long followerId, long writer) {
        return writer != followerId && feed.isFresh() ? local.row(followerId) : null;
    }

    /**
     * Which of {@code followerIds} follow {@code followeeId}, for "followers you know": each follower is asked of the
     * in-process layers (the bloom filter's definite "no" for a covered follower, else the exact in-process row) while
     * the feed is fresh and the follower is not the token's writer, and the ones memory cannot answer are read from
     * the following shards in one statement per database ({@link Shards#whichFollow}). Redis is not asked: a round
     * trip per follower costs more than one statement for all of them. Nothing is recorded in the check metrics and
     * no block is consulted.
     *
     * @param followerIds positive user ids, ascending
     * @param followeeId  positive user id
     * @param writer      the request's follow token ({@link #writer}): that user's own row is read from its shard
     * @param mayBlock    whether the shards may be read; {@code false} on an I/O thread
     * @return the subset of {@code followerIds} that follow {@code followeeId}, ascending; {@code null} only when
     *         {@code !mayBlock} and memory cannot answer for every one of them
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when a database it needs is down
     */
    @Override
    public long[] whichFollow(long[] followerIds, long followeeId, long writer, boolean mayBlock) {
        boolean fresh = feed.isFresh();
        long[] found = new long[followerIds.length];
        long[] unknown = new long[followerIds.length];
        int nFound = 0;
        int nUnknown = 0;
        for (long id : followerIds) {
            int answer = Answer.NEXT;
            if (fresh && id != writer) {
                if (bloom.covers(id) && !bloom.mightFollow(id, followeeId)) {
                    answer = Answer.NO;
                } else {
                    long[] ids = local.following(id);
                    if (ids != null) {
                        answer = Answer.of(AdjacencyArray.contains(ids, followeeId));
                    }
                }
            }
            if (answer == Answer.YES) {
                found[nFound++] = id;
            } else if (answer == Answer.NEXT) {
                if (!mayBlock) {
                    return null; // the whole question goes to a blocking thread, asked again there
                }
                unknown[nUnknown++] = id;
            }
        }
        if (nUnknown == 0) {
            return Arrays.copyOf(found, nFound);
        }
        long[] stored = shards.whichFollow(Arrays.copyOf(unknown, nUnknown), followeeId);
        long[] all = Arrays.copyOf(found, nFound + stored.length);
        System.arraycopy(stored, 0, all, nFound, stored.length);
        Arrays.sort(all);
        return all;
    }

    /**
     * Whether the event feed is fresh enough for the in-process layers to answer (the feed-lag guard).
     *
     * @return the guard's verdict now
     */
    public boolean feedFresh() {
        return feed.isFresh();
    }

    /**
     * Reads the row, backfills Redis, and caches it in process when {@code cacheHere} (this instance owns the follower
     * and the feed was fresh when the check began).
     */
    private long[] loadFromShard(long followerId, boolean cacheHere) {
        return loadRow(followerId, cacheHere).followingIds();
    }

    private FollowingRow loadRow(long followerId, boolean cacheHere) {
        long ticket = cacheHere ? local.ticket(followerId) : 0;
        FollowingRow row = shards.following(followerId);
        redis.fill(followerId, row.followingIds(), row.version());
        if (cacheHere) {
            local.put(row, ticket);
        }
        return row;
    }
}
