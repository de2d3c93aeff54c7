package dev.socialgraph.check.cache;

import dev.socialgraph.check.CheckProperties;
import dev.socialgraph.check.follow.FollowChecker;
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
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * The L1 cache {@code following:{id}} (DESIGN.md 2.3) and the suggestions cache, over one Lettuce connection.
 *
 * <p>Redis is only a cache: every failure (down, timeout, flushed) is reported as a miss and counted in
 * {@code graph.check.redis.errors}, so the caller answers from the shard. Commands are bounded by
 * {@link CheckProperties#redisTimeout()} and rejected at once while the connection is down, so a dead Redis
 * costs at most one timeout. The connection is made lazily and retried at most once per second, so the
 * service starts and answers without Redis.
 */
@Component
public class RedisFollowingCache implements FollowChecker.Cache, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(RedisFollowingCache.class);
    private static final long RECONNECT_INTERVAL_NANOS = Duration.ofSeconds(1).toNanos();

    private final RedisClient client;
    private final String ttlSeconds;
    private final Counter errors;
    private final String fillDigest;
    private final Object connectLock = new Object();
    private volatile StatefulRedisConnection<String, String> connection;
    private long nextConnectAttempt = System.nanoTime();

    RedisFollowingCache(CheckProperties properties, MeterRegistry registry) {
        Duration timeout = properties.redisTimeout();
        RedisURI uri = RedisURI.create(properties.redisUri());
        uri.setTimeout(timeout);
        this.client = RedisClient.create(uri);
        client.setOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofMillis(500)).build())
                .build());
        this.ttlSeconds = Long.toString(properties.cacheTtl().toSeconds());
        this.errors = Counter.builder("graph.check.redis.errors")
                .description("Redis commands that failed or timed out; the shard answered instead")
                .register(registry);
        this.fillDigest = FollowingCacheScripts.FILL_SHA1;
    }

    /**
     * {@code SMISMEMBER following:{a} b -1}: one round trip.
     *
     * @param followerId positive
     * @param followeeId positive
     * @return {@link #FOLLOWING}, {@link #NOT_FOLLOWING} or {@link #MISS}
     */
    @Override
    public int isFollowing(long followerId, long followeeId) {
        RedisCommands<String, String> redis = commands();
        if (redis == null) {
            return MISS;
        }
        try {
            List<Boolean> answer = redis.smismember(RedisKeys.following(followerId), Long.toString(followeeId),
                    RedisKeys.SENTINEL_MEMBER);
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
     * @param followeeIds positive ids
     * @return membership aligned with {@code followeeIds}, or {@code null} on a miss
     */
    @Override
    public boolean[] areFollowing(long followerId, long[] followeeIds) {
        RedisCommands<String, String> redis = commands();
        if (redis == null) {
            return null;
        }
        String[] members = new String[followeeIds.length + 1];
        for (int i = 0; i < followeeIds.length; i++) {
            members[i] = Long.toString(followeeIds[i]);
        }
        members[followeeIds.length] = RedisKeys.SENTINEL_MEMBER;
        try {
            List<Boolean> answer = redis.smismember(RedisKeys.following(followerId), members);
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
     * Backfills {@code following:{a}} from a row read from the shard with the version-guarded
     * {@link FollowingCacheScripts#FILL}: it never replaces a newer cached version.
     *
     * @param followerId   positive
     * @param followingIds the row's followee ids
     * @param version      the row's version
     */
    @Override
    public void fill(long followerId, long[] followingIds, long version) {
        RedisCommands<String, String> redis = commands();
        if (redis == null) {
            return;
        }
        String[] keys = {RedisKeys.following(followerId), RedisKeys.followingVersion(followerId)};
        String[] args = new String[followingIds.length + 2];
        args[0] = Long.toString(version);
        args[1] = ttlSeconds;
        for (int i = 0; i < followingIds.length; i++) {
            args[i + 2] = Long.toString(followingIds[i]);
        }
        try {
            try {
                redis.evalsha(fillDigest, ScriptOutputType.INTEGER, keys, args);
            } catch (RedisNoScriptException e) {
                redis.eval(FollowingCacheScripts.FILL, ScriptOutputType.INTEGER, keys, args);
            }
        } catch (RuntimeException e) {
            failed("FILL", e);
        }
    }

    /**
     * Reads a cached string value, e.g. {@code suggest:{id}}.
     *
     * @param key the key
     * @return the value, or {@code null} when absent or Redis did not answer
     */
    public String get(String key) {
        RedisCommands<String, String> redis = commands();
        if (redis == null) {
            return null;
        }
        try {
            return redis.get(key);
        } catch (RuntimeException e) {
            failed("GET", e);
            return null;
        }
    }

    /**
     * Stores a string value with a time to live; failures are counted and ignored.
     *
     * @param key   the key
     * @param value the value
     * @param ttl   time to live, at least one second
     */
    public void put(String key, String value, Duration ttl) {
        RedisCommands<String, String> redis = commands();
        if (redis == null) {
            return;
        }
        try {
            redis.setex(key, Math.max(1, ttl.toSeconds()), value);
        } catch (RuntimeException e) {
            failed("SETEX", e);
        }
    }

    private RedisCommands<String, String> commands() {
        StatefulRedisConnection<String, String> c = connection;
        if (c != null) {
            return c.sync();
        }
        synchronized (connectLock) {
            if (connection != null) {
                return connection.sync();
            }
            long now = System.nanoTime();
            if (now - nextConnectAttempt < 0) {
                return null;
            }
            nextConnectAttempt = now + RECONNECT_INTERVAL_NANOS;
            try {
                connection = client.connect(); // Lettuce reconnects by itself once connected
                log.info("Connected to Redis");
                return connection.sync();
            } catch (RuntimeException e) {
                failed("CONNECT", e);
                return null;
            }
        }
    }

    private void failed(String command, RuntimeException e) {
        errors.increment();
        log.debug("Redis {} failed; answering from the shard", command, e);
    }

    @Override
    public void destroy() {
        StatefulRedisConnection<String, String> c = connection;
        if (c != null) {
            c.close();
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

}
