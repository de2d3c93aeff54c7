package dev.socialgraph.write.cache;

import dev.socialgraph.common.cache.FollowingCacheScripts;
import dev.socialgraph.common.keys.RedisKeys;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write-through of committed changes to the L1 cache {@code following:{id}} (DESIGN.md 2.3, 3 step 3),
 * with the version-guarded {@link FollowingCacheScripts#APPLY} script ({@code EVALSHA}, falling back to
 * {@code EVAL} when the server does not know the script yet).
 *
 * <p>Never fails its caller: Redis is a cache, and a change that did not reach it is repaired by the event
 * stream (the cdc-consumer applies the same script) or, for a dropped entry, by the next fill. Every command
 * is bounded by the configured timeout, commands are rejected at once while the connection is down, and the
 * connection is opened lazily, so a Redis that is down at start-up or later only costs each write at most one
 * timeout. Failures are counted ({@code graph.write.cache.apply{result=failed}}) and logged at WARN at most
 * once per {@link #WARN_INTERVAL}, otherwise at DEBUG.
 *
 * <p>Thread-safe; one shared connection (Lettuce pipelines concurrent commands on it).
 */
public final class FollowingCache implements AutoCloseable {

    /** The outcome of one apply; tags of {@code graph.write.cache.apply}. */
    public enum Result {
        /** The change was applied to the cached set. */
        APPLIED,
        /** The cached set already reflected this version or a later one. */
        ALREADY_APPLIED,
        /** The user is not cached; the version floor was recorded. */
        NOT_CACHED,
        /** The cached set had missed a version and was dropped; the next read fills it. */
        INVALIDATED,
        /** Redis could not be reached or answered with an error. */
        FAILED
    }

    static final Duration WARN_INTERVAL = Duration.ofSeconds(30);
    /**
     * After a failed first connect, writes skip Redis for this long instead of each waiting for a connect timeout
     * in turn (connecting is serialized). Once connected, Lettuce reconnects by itself.
     */
    static final Duration CONNECT_RETRY = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(FollowingCache.class);

    private final RedisClient client;
    private final String ttlSeconds;
    private final Map<Result, Counter> counters = new EnumMap<>(Result.class);
    private final AtomicLong lastWarnNanos = new AtomicLong(System.nanoTime() - WARN_INTERVAL.toNanos());
    private final Object connectLock = new Object();
    private volatile StatefulRedisConnection<String, String> connection;
    private volatile long nextConnectNanos = System.nanoTime();

    /**
     * Creates the client; no connection is made until the first apply.
     *
     * @param uri      Redis URI, e.g. {@code redis://127.0.0.1:6379/0}
     * @param timeout  bound on connecting and on each command, positive
     * @param cacheTtl time to live of a version floor, whole seconds, positive
     * @param registry where the results are counted
     */
    public FollowingCache(String uri, Duration timeout, Duration cacheTtl, MeterRegistry registry) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("Redis timeout must be positive, was " + timeout);
        }
        if (cacheTtl.toSeconds() < 1) {
            throw new IllegalArgumentException("cache TTL must be at least 1 s, was " + cacheTtl);
        }
        RedisURI redisUri = RedisURI.create(uri);
        redisUri.setTimeout(timeout);
        this.client = RedisClient.create(redisUri);
        client.setOptions(ClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                // While reconnecting, fail commands at once instead of queueing them behind a dead server.
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
        this.ttlSeconds = Long.toString(cacheTtl.toSeconds());
        for (Result result : Result.values()) {
            counters.put(result, Counter.builder("graph.write.cache.apply")
                    .description("Write-through results of following:{id} after a committed change")
                    .tag("result", result.name().toLowerCase())
                    .register(registry));
        }
    }

    /**
     * Applies one committed change of {@code followerId}'s following row to the cache. Never throws.
     *
     * @param followerId the follower, positive
     * @param version    the row's version after the change, {@code >= 1}
     * @param follow     {@code true} for a follow (SADD), {@code false} for an unfollow (SREM)
     * @param followeeId the followee, positive
     * @return what the script did, or {@link Result#FAILED}
     */
    public Result apply(long followerId, long version, boolean follow, long followeeId) {
        Result result;
        try {
            result = toResult(evalApply(followerId, version, follow, followeeId));
        } catch (RuntimeException e) {
            result = Result.FAILED;
            logFailure(e);
        }
        counters.get(result).increment();
        return result;
    }

    private long evalApply(long followerId, long version, boolean follow, long followeeId) {
        StatefulRedisConnection<String, String> c = connection();
        String[] keys = {RedisKeys.following(followerId), RedisKeys.followingVersion(followerId)};
        String[] args = {Long.toString(version), follow ? FollowingCacheScripts.ADD : FollowingCacheScripts.REMOVE,
                Long.toString(followeeId), ttlSeconds};
        try {
            Long code = c.sync().evalsha(FollowingCacheScripts.APPLY_SHA1, ScriptOutputType.INTEGER, keys, args);
            return code;
        } catch (RedisNoScriptException e) {
            // A restarted or flushed server forgot the script; EVAL loads it again for later EVALSHAs.
            Long code = c.sync().eval(FollowingCacheScripts.APPLY, ScriptOutputType.INTEGER, keys, args);
            return code;
        }
    }

    private StatefulRedisConnection<String, String> connection() {
        StatefulRedisConnection<String, String> c = connection;
        if (c != null) {
            return c;
        }
        if (System.nanoTime() - nextConnectNanos < 0) {
            throw new IllegalStateException("Redis is not connected; next connect attempt in under "
                    + CONNECT_RETRY.toMillis() + " ms");
        }
        synchronized (connectLock) {
            if (connection == null) {
                try {
                    connection = client.connect(); // auto-reconnects from now on
                } catch (RuntimeException e) {
                    nextConnectNanos = System.nanoTime() + CONNECT_RETRY.toNanos();
                    throw e;
                }
            }
            return connection;
        }
    }

    private static Result toResult(long code) {
        if (code == FollowingCacheScripts.APPLIED) {
            return Result.APPLIED;
        } else if (code == FollowingCacheScripts.ALREADY_APPLIED) {
            return Result.ALREADY_APPLIED;
        } else if (code == FollowingCacheScripts.NOT_CACHED) {
            return Result.NOT_CACHED;
        } else if (code == FollowingCacheScripts.INVALIDATED) {
            return Result.INVALIDATED;
        }
        throw new IllegalStateException("unknown APPLY result " + code);
    }

    private void logFailure(RuntimeException e) {
        long now = System.nanoTime();
        long last = lastWarnNanos.get();
        if (now - last >= WARN_INTERVAL.toNanos() && lastWarnNanos.compareAndSet(last, now)) {
            log.warn("Redis write-through failed; writes go on, the event stream repairs the cache"
                    + " (further failures at DEBUG for {} s): {}", WARN_INTERVAL.toSeconds(), e.toString());
        } else {
            log.debug("Redis write-through failed", e);
        }
    }

    /** Closes the connection and the client. */
    @Override
    public void close() {
        StatefulRedisConnection<String, String> c = connection;
        if (c != null) {
            c.close();
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
