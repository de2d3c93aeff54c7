package dev.socialgraph.cdc.cache;

import dev.socialgraph.cdc.CdcMetrics;
import dev.socialgraph.cdc.CdcProperties;
import dev.socialgraph.common.cache.FollowingCacheScripts;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.keys.RedisKeys;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Applies follow events to the follower's cached {@code following:{id}} set with the version-guarded
 * {@link FollowingCacheScripts#APPLY} script (DESIGN.md 2.3, 4): this repairs a write service's failed Redis write
 * within the event latency. The cache is only a cache: a Redis error is logged, counted and skipped, never
 * retried and never allowed to hold back the consumer (the entry is repaired by its TTL or the next fill).
 *
 * <p>Commands of one batch are pipelined on one connection and awaited together, each bounded by
 * {@code graph.cdc.redis-timeout}; while Redis is unreachable commands fail at once instead of queueing.
 */
@Component
public class FollowingCache implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(FollowingCache.class);


    private final RedisClient client;
    private final RedisURI uri;
    private final Duration timeout;
    private final String ttlSeconds;
    private final CdcMetrics metrics;
    private StatefulRedisConnection<String, String> connection;

    /** Creates the client; it connects on first use, so a Redis that is down does not stop start-up. */
    public FollowingCache(CdcProperties properties, CdcMetrics metrics) {
        this.uri = RedisURI.create(properties.redisUri());
        this.timeout = properties.redisTimeout();
        this.uri.setTimeout(timeout);
        this.ttlSeconds = Long.toString(Math.max(1, properties.cacheTtl().toSeconds()));
        this.metrics = metrics;
        this.client = RedisClient.create();
        this.client.setOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                .build());
    }

    /**
     * Runs {@link FollowingCacheScripts#APPLY} for each event, in order; never throws.
     *
     * @param events valid events, in stream order
     */
    public void apply(List<FollowEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        RedisAsyncCommands<String, String> commands;
        try {
            commands = connection().async();
        } catch (RuntimeException e) {
            log.warn("Redis unavailable, {} cache updates skipped: {}", events.size(), e.getMessage());
            for (int i = 0; i < events.size(); i++) {
                metrics.cacheUpdate("error");
            }
            return;
        }
        List<RedisFuture<Long>> futures = new ArrayList<>(events.size());
        for (FollowEvent event : events) {
            futures.add(commands.evalsha(FollowingCacheScripts.APPLY_SHA1, ScriptOutputType.INTEGER, keys(event), args(event)));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        int errors = 0;
        String firstError = null;
        for (int i = 0; i < futures.size(); i++) {
            FollowEvent event = events.get(i);
            try {
                Long result;
                try {
                    result = futures.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof RedisNoScriptException)) {
                        throw e;
                    }
                    // The server lost its script cache (restart, SCRIPT FLUSH): EVAL loads it again.
                    result = commands.<Long>eval(FollowingCacheScripts.APPLY, ScriptOutputType.INTEGER, keys(event),
                            args(event)).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
                }
                metrics.cacheUpdate(outcome(result));
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                errors++;
                firstError = firstError == null ? String.valueOf(e.getCause() == null ? e : e.getCause()) : firstError;
                metrics.cacheUpdate("error");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                metrics.cacheUpdate("error");
                return;
            }
        }
        if (errors > 0) {
            log.warn("{} of {} cache updates failed, first: {}", errors, events.size(), firstError);
        }
    }

    private static String[] keys(FollowEvent event) {
        return new String[] {RedisKeys.following(event.followerId()), RedisKeys.followingVersion(event.followerId())};
    }

    private String[] args(FollowEvent event) {
        return new String[] {Long.toString(event.version()),
                event.isFollow() ? FollowingCacheScripts.ADD : FollowingCacheScripts.REMOVE,
                Long.toString(event.followeeId()), ttlSeconds};
    }

    private static String outcome(Long result) {
        if (result == null) {
            return "error";
        }
        return switch (result.intValue()) {
            case (int) FollowingCacheScripts.APPLIED -> "applied";
            case (int) FollowingCacheScripts.ALREADY_APPLIED -> "already_applied";
            case (int) FollowingCacheScripts.NOT_CACHED -> "not_cached";
            case (int) FollowingCacheScripts.INVALIDATED -> "invalidated";
            default -> "error";
        };
    }

    private synchronized StatefulRedisConnection<String, String> connection() {
        if (connection == null || !connection.isOpen()) {
            connection = client.connect(uri);
        }
        return connection;
    }

    @Override
    public synchronized void destroy() {
        if (connection != null) {
            connection.close();
        }
        client.shutdown();
    }
}
