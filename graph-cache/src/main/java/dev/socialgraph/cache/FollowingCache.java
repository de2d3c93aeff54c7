package dev.socialgraph.cache;

import dev.socialgraph.common.keys.RedisKeys;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The L1 cache {@code following:{id}} (DESIGN.md 2.3): a user's followee ids as a Redis set holding the sentinel
 * {@code -1} while cached, guarded by the row version in {@code following:{id}:v}, read and written only through
 * the {@link FollowingCacheScripts}. This is the one implementation of that protocol: the check service reads and
 * fills it, the write service applies its commits to it, the cdc-consumer applies every event to it (and drops a set
 * it cannot update). On a standalone Redis or a Redis Cluster alike ({@link RedisConnector}): a user's two keys share
 * the hash tag {@code {id}}, so each command and script touches one slot.
 *
 * <p>Redis is a cache. No method throws on a Redis failure (down, timeout, flushed script cache, failover in
 * progress): reads answer a miss, writes answer {@link Outcome#FAILED}, and each failure goes to the
 * {@link FailureListener} and to the log, at WARN at most once per {@link #WARN_INTERVAL}, otherwise at DEBUG.
 * What a caller does about a failure (answer from the shard, count it, drop the set, retry the batch) is its own.
 * Every command goes through the connector's {@link RedisBreaker}: while it is open nothing is sent, reads miss and
 * writes answer {@link Outcome#FAILED} at once, as when Redis is down (the listener is not told: nothing failed in
 * Redis, and the breaker's meters count the skipped commands).
 *
 * <p>Ids are positive 64-bit user ids; a version is the following row's version after the change ({@code >= 1}).
 * Thread-safe.
 */
public final class FollowingCache {

    /** {@link #isFollowing} answer: cached, and the followee is in the set. */
    public static final int FOLLOWING = 1;
    /** {@link #isFollowing} answer: cached, and the followee is not in the set. */
    public static final int NOT_FOLLOWING = 0;
    /** {@link #isFollowing} answer: not cached, or Redis did not answer. */
    public static final int MISS = -1;

    /** Rate limit of the WARN line for failures. */
    public static final Duration WARN_INTERVAL = Duration.ofSeconds(30);

    /** What a write to the cache did. */
    public enum Outcome {
        /** The change was applied to the cached set. */
        APPLIED,
        /** The cached set already reflected this version or a later one. */
        ALREADY_APPLIED,
        /** The user is not cached; the version floor was recorded. */
        NOT_CACHED,
        /** The cached set had missed a version and was dropped; the next read fills it. */
        INVALIDATED,
        /** {@link #invalidateAll}: the set was dropped and the floor raised to the change's version. */
        DROPPED,
        /** Redis could not be reached, timed out or answered with an error. */
        FAILED
    }

    /**
     * One committed change of a following row.
     *
     * @param followerId the row's owner, positive
     * @param version    the row's version after the change, {@code >= 1}
     * @param follow     {@code true} for a follow (added to the set), {@code false} for an unfollow (removed)
     * @param followeeId the followee, positive
     */
    public record Change(long followerId, long version, boolean follow, long followeeId) {
    }

    /**
     * What a pipelined batch did.
     *
     * @param outcomes     one per change, in the batch's order
     * @param firstFailure the first error of a {@link Outcome#FAILED} change, or {@code null}
     */
    public record Batch(List<Outcome> outcomes, Throwable firstFailure) {

        /**
         * @param changes the batch's changes, as given
         * @return those whose outcome is {@link Outcome#FAILED}, in order
         */
        public List<Change> failed(List<Change> changes) {
            List<Change> failed = new ArrayList<>();
            for (int i = 0; i < outcomes.size(); i++) {
                if (outcomes.get(i) == Outcome.FAILED) {
                    failed.add(changes.get(i));
                }
            }
            return failed;
        }
    }

    /** Told of every failed command, e.g. to count it. */
    @FunctionalInterface
    public interface FailureListener {
        /**
         * @param command the Redis command or script ({@code SMISMEMBER}, {@code FILL}, {@code APPLY},
         *                {@code INVALIDATE}, {@code DEL}, {@code CONNECT})
         * @param error   what failed
         */
        void failed(String command, Throwable error);
    }

    private static final Logger log = LoggerFactory.getLogger(FollowingCache.class);

    private final RedisConnector redis;
    private final String ttlSeconds;
    private final long timeoutNanos;
    private final FailureListener listener;
    private final AtomicLong lastWarnNanos = new AtomicLong(System.nanoTime() - WARN_INTERVAL.toNanos());

    /**
     * @param redis    the connection; not closed by this object
     * @param ttl      time to live of a cached set and of a version floor, whole seconds, at least 1 s
     * @param listener told of each failure, e.g. to count it
     * @throws IllegalArgumentException when {@code ttl} is under one second
     */
    public FollowingCache(RedisConnector redis, Duration ttl, FailureListener listener) {
        if (ttl.toSeconds() < 1) {
            throw new IllegalArgumentException("cache TTL must be at least 1 s, was " + ttl);
        }
        this.redis = redis;
        this.ttlSeconds = Long.toString(ttl.toSeconds());
        this.timeoutNanos = redis.endpoint().commandTimeout().toNanos();
        this.listener = listener;
    }

    /**
     * {@code SMISMEMBER following:{a} b -1}: one round trip.
     *
     * @param followerId positive
     * @param followeeId positive
     * @return {@link #FOLLOWING}, {@link #NOT_FOLLOWING} or {@link #MISS} (also when Redis failed)
     */
    public int isFollowing(long followerId, long followeeId) {
        try {
            List<Boolean> answer = redis.breaker().call(() -> redis.sync().smismember(RedisKeys.following(followerId),
                    Long.toString(followeeId), RedisKeys.SENTINEL_MEMBER));
            if (!answer.get(1)) {
                return MISS;
            }
            return answer.get(0) ? FOLLOWING : NOT_FOLLOWING;
        } catch (RuntimeException e) {
            failed("SMISMEMBER", e);
            return MISS;
        }
    }

    /**
     * {@code SMISMEMBER following:{a} id1 .. idn -1}: the whole batch in one round trip.
     *
     * @param followerId  positive
     * @param followeeIds positive ids, any number
     * @return membership aligned with {@code followeeIds}, or {@code null} when not cached or Redis failed
     */
    public boolean[] areFollowing(long followerId, long[] followeeIds) {
        String[] members = new String[followeeIds.length + 1];
        for (int i = 0; i < followeeIds.length; i++) {
            members[i] = Long.toString(followeeIds[i]);
        }
        members[followeeIds.length] = RedisKeys.SENTINEL_MEMBER;
        try {
            List<Boolean> answer = redis.breaker().call(() -> redis.sync().smismember(RedisKeys.following(followerId),
                    members));
            if (!answer.get(followeeIds.length)) {
                return null;
            }
            boolean[] out = new boolean[followeeIds.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = answer.get(i);
            }
            return out;
        } catch (RuntimeException e) {
            failed("SMISMEMBER", e);
            return null;
        }
    }

    /**
     * Caches a row read from the shard with {@link FollowingCacheScripts#FILL}, which never replaces a newer
     * cached version or floor.
     *
     * @param followerId   positive
     * @param followingIds the row's followee ids, any number
     * @param version      the row's version as read
     * @return {@code true} when the set now reflects {@code version}; {@code false} when a newer version was cached
     *         or recorded, or Redis failed
     */
    public boolean fill(long followerId, long[] followingIds, long version) {
        String[] args = new String[followingIds.length + 2];
        args[0] = Long.toString(version);
        args[1] = ttlSeconds;
        for (int i = 0; i < followingIds.length; i++) {
            args[i + 2] = Long.toString(followingIds[i]);
        }
        try {
            return redis.breaker().call(() -> eval(redis.sync(), FollowingCacheScripts.FILL_SHA1,
                    FollowingCacheScripts.FILL, keys(followerId), args)) == FollowingCacheScripts.FILLED;
        } catch (RuntimeException e) {
            failed("FILL", e);
            return false;
        }
    }

    /**
     * Deletes every key of {@code userId}: {@code following:{id}}, its version floor, {@code counts:{id}} and
     * {@code suggest:{id}}, in one {@code DEL} (one hash tag, so one slot in a cluster). For an erased user, whose rows
     * are gone: nothing may be left that names them.
     *
     * @param userId positive
     * @return whether Redis confirmed the deletion; {@code false} when it failed (the caller retries)
     */
    public boolean forget(long userId) {
        try {
            redis.breaker().call(() -> redis.sync().del(RedisKeys.following(userId),
                    RedisKeys.followingVersion(userId), RedisKeys.counts(userId), RedisKeys.suggestions(userId)));
            return true;
        } catch (RuntimeException e) {
            failed("DEL", e);
            return false;
        }
    }

    /**
     * Applies one committed change with {@link FollowingCacheScripts#APPLY}.
     *
     * @param change the change
     * @return what the script did, or {@link Outcome#FAILED}
     */
    public Outcome apply(Change change) {
        try {
            return applyOutcome(redis.breaker().call(() -> eval(redis.sync(), FollowingCacheScripts.APPLY_SHA1,
                    FollowingCacheScripts.APPLY, keys(change.followerId()), applyArgs(change))));
        } catch (RuntimeException e) {
            failed("APPLY", e);
            return Outcome.FAILED;
        }
    }

    /**
     * Applies changes with {@link FollowingCacheScripts#APPLY}, pipelined (in cluster mode, to each slot's master) and
     * awaited together within one command timeout. Changes of one follower are applied in the given order.
     *
     * @param changes committed changes in stream order
     * @return one outcome per change
     */
    public Batch applyAll(List<Change> changes) {
        return pipeline(changes, "APPLY", FollowingCacheScripts.APPLY_SHA1, FollowingCacheScripts.APPLY, true);
    }

    /**
     * Drops the sets of changes that could not be applied, with {@link FollowingCacheScripts#INVALIDATE}: the set is
     * deleted and its floor raised to the change's version, so no fill that read an older row brings it back.
     * Pipelined like {@link #applyAll}.
     *
     * @param changes the changes whose sets must not stay cached
     * @return {@link Outcome#DROPPED} or {@link Outcome#FAILED} per change
     */
    public Batch invalidateAll(List<Change> changes) {
        return pipeline(changes, "INVALIDATE", FollowingCacheScripts.INVALIDATE_SHA1, FollowingCacheScripts.INVALIDATE,
                false);
    }

    private Batch pipeline(List<Change> changes, String command, String sha, String script, boolean apply) {
        List<Outcome> outcomes = new ArrayList<>(changes.size());
        if (changes.isEmpty()) {
            return new Batch(outcomes, null);
        }
        RedisBreaker breaker = redis.breaker();
        if (!breaker.tryAcquire()) {
            RuntimeException skipped = breaker.notPermitted();
            failed(command, skipped);
            changes.forEach(c -> outcomes.add(Outcome.FAILED));
            return new Batch(outcomes, skipped);
        }
        long sent = System.nanoTime();
        RedisClusterAsyncCommands<String, String> commands;
        try {
            commands = redis.async();
        } catch (RuntimeException e) {
            breaker.failed(sent, e);
            failed(command, e);
            changes.forEach(c -> outcomes.add(Outcome.FAILED));
            return new Batch(outcomes, e);
        }
        List<RedisFuture<Long>> futures = new ArrayList<>(changes.size());
        try {
            for (Change change : changes) {
                futures.add(commands.evalsha(sha, ScriptOutputType.INTEGER, keys(change.followerId()),
                        apply ? applyArgs(change) : invalidateArgs(change)));
            }
        } catch (RuntimeException e) {
            // Refused before it was sent (the connection is down and commands are rejected): still the permission's
            // outcome, or a half-open breaker would wait for it for ever.
            breaker.failed(sent, e);
            failed(command, e);
            changes.forEach(c -> outcomes.add(Outcome.FAILED));
            return new Batch(outcomes, e);
        }
        long deadline = System.nanoTime() + timeoutNanos;
        Throwable first = null;
        for (int i = 0; i < futures.size(); i++) {
            Change change = changes.get(i);
            String[] args = apply ? applyArgs(change) : invalidateArgs(change);
            try {
                long code;
                try {
                    code = futures.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof RedisNoScriptException)) {
                        throw e;
                    }
                    // This node lost its script cache (restart, failover to a replica, SCRIPT FLUSH): EVAL loads it.
                    code = commands.<Long>eval(script, ScriptOutputType.INTEGER, keys(change.followerId()), args)
                            .get(timeoutNanos, TimeUnit.NANOSECONDS);
                }
                outcomes.add(apply ? applyOutcome(code) : Outcome.DROPPED);
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                first = first == null ? cause : first;
                failed(command, cause);
                outcomes.add(Outcome.FAILED);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failed(command, e);
                first = first == null ? e : first;
                while (outcomes.size() < changes.size()) {
                    outcomes.add(Outcome.FAILED);
                }
                break;
            }
        }
        // One batch is one outcome for the breaker: a hung Redis fails the whole batch at its one deadline.
        if (first == null) {
            breaker.succeeded(sent);
        } else {
            breaker.failed(sent, first);
        }
        return new Batch(outcomes, first);
    }

    /** {@code EVALSHA}, falling back to {@code EVAL} on a server (or cluster node) that does not know the script. */
    private static long eval(RedisClusterCommands<String, String> commands, String sha, String script, String[] keys,
                             String[] args) {
        try {
            Long code = commands.evalsha(sha, ScriptOutputType.INTEGER, keys, args);
            return code;
        } catch (RedisNoScriptException e) {
            Long code = commands.eval(script, ScriptOutputType.INTEGER, keys, args);
            return code;
        }
    }

    private static String[] keys(long followerId) {
        return new String[] {RedisKeys.following(followerId), RedisKeys.followingVersion(followerId)};
    }

    private String[] applyArgs(Change change) {
        return new String[] {Long.toString(change.version()),
                change.follow() ? FollowingCacheScripts.ADD : FollowingCacheScripts.REMOVE,
                Long.toString(change.followeeId()), ttlSeconds};
    }

    private String[] invalidateArgs(Change change) {
        return new String[] {Long.toString(change.version()), ttlSeconds};
    }

    private static Outcome applyOutcome(long code) {
        if (code == FollowingCacheScripts.APPLIED) {
            return Outcome.APPLIED;
        } else if (code == FollowingCacheScripts.ALREADY_APPLIED) {
            return Outcome.ALREADY_APPLIED;
        } else if (code == FollowingCacheScripts.NOT_CACHED) {
            return Outcome.NOT_CACHED;
        } else if (code == FollowingCacheScripts.INVALIDATED) {
            return Outcome.INVALIDATED;
        }
        throw new IllegalStateException("unknown APPLY result " + code);
    }

    private void failed(String command, Throwable e) {
        if (RedisBreaker.skipped(e)) {
            // Not sent: the breaker's own meters count these, and it logged its opening.
            log.debug("Redis {} skipped: the breaker is open", command);
            return;
        }
        listener.failed(command, e);
        long now = System.nanoTime();
        long last = lastWarnNanos.get();
        if (now - last >= WARN_INTERVAL.toNanos() && lastWarnNanos.compareAndSet(last, now)) {
            log.warn("Redis {} failed; the cache is skipped (further failures at DEBUG for {} s): {}", command,
                    WARN_INTERVAL.toSeconds(), e.toString());
        } else {
            log.debug("Redis {} failed", command, e);
        }
    }
}
