package dev.socialgraph.cdc.cache;

import dev.socialgraph.cdc.CdcMetrics;
import dev.socialgraph.cdc.CdcProperties;
import dev.socialgraph.common.cache.FollowingCacheScripts;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.keys.RedisKeys;
import dev.socialgraph.common.relation.Relation;
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
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Applies follow events to the follower's cached {@code following:{id}} set with the version-guarded
 * {@link FollowingCacheScripts#APPLY} script (DESIGN.md 2.3, 4). The consumer is the writer that guarantees the
 * cache: the write service's own update after its commit may fail (it only counts that), so an event is never
 * acknowledged until its update has reached Redis. A failed apply falls back to {@link FollowingCacheScripts#INVALIDATE}
 * (the set is dropped and refilled from the shard on the next read); when that fails too, {@link #apply} throws and
 * the listener fails the batch, which is retried with back-off until Redis answers. Otherwise a Redis that lost its
 * clients for a few seconds but kept its data would serve the old set for its whole TTL (3,600 s).
 *
 * <p>Commands of one batch are pipelined on one connection and awaited together, each bounded by
 * {@code graph.cdc.redis-timeout}; while Redis is unreachable commands fail at once instead of queueing.
 */
@Component
public class FollowingCache implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(FollowingCache.class);

    private final ClientResources resources;
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
        // Lettuce's default reconnect back-off grows to 30 s; events wait on Redis now, so reconnect within 1 s.
        this.resources = DefaultClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(50), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
                .build();
        this.client = RedisClient.create(resources);
        this.client.setOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                .build());
    }

    /**
     * Runs {@link FollowingCacheScripts#APPLY} for each event, in order, and {@link FollowingCacheScripts#INVALIDATE}
     * for each whose apply failed. Outcomes are counted in {@code graph.cdc.cache.updates{outcome}}.
     *
     * @param all    valid events, in stream order; only follows and unfollows are applied (the following cache holds
     *               follows alone), blocks and mutes are skipped
     * @throws CacheUpdateException when some event's set could neither be updated nor dropped (Redis unreachable,
     *                              too slow, or answering errors); the caller must not acknowledge the events
     */
    public void apply(List<FollowEvent> all) {
        List<FollowEvent> events = all.stream().filter(e -> e.relation() == Relation.FOLLOW).toList();
        if (events.isEmpty()) {
            return;
        }
        RedisAsyncCommands<String, String> commands;
        try {
            commands = connection().async();
        } catch (RuntimeException e) {
            for (int i = 0; i < events.size(); i++) {
                metrics.cacheUpdate("error");
            }
            throw new CacheUpdateException("Redis unavailable, " + events.size() + " cache updates not applied", e);
        }
        Failures applyFailures = run(commands, events, FollowingCacheScripts.APPLY_SHA1, FollowingCacheScripts.APPLY,
                this::applyArgs, FollowingCache::applyOutcome);
        if (applyFailures.events().isEmpty()) {
            return;
        }
        Failures dropFailures = run(commands, applyFailures.events(), FollowingCacheScripts.INVALIDATE_SHA1,
                FollowingCacheScripts.INVALIDATE, this::invalidateArgs, result -> "dropped");
        if (!dropFailures.events().isEmpty()) {
            throw new CacheUpdateException(dropFailures.events().size() + " of " + events.size()
                    + " cache updates could neither be applied nor dropped", dropFailures.first());
        }
        log.warn("{} of {} cache updates failed and their sets were dropped instead, first error: {}",
                applyFailures.events().size(), events.size(), String.valueOf(applyFailures.first()));
    }

    /** The events whose script failed, and the first error. */
    private record Failures(List<FollowEvent> events, Throwable first) {
    }

    /**
     * Pipelines one script per event and awaits them all within one {@link #timeout}; counts each success by its
     * outcome and each failure as {@code error}.
     */
    private Failures run(RedisAsyncCommands<String, String> commands, List<FollowEvent> events, String sha,
                         String script, Function<FollowEvent, String[]> args, Function<Long, String> outcome) {
        List<RedisFuture<Long>> futures = new ArrayList<>(events.size());
        for (FollowEvent event : events) {
            futures.add(commands.evalsha(sha, ScriptOutputType.INTEGER, keys(event), args.apply(event)));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        List<FollowEvent> failed = new ArrayList<>();
        Throwable first = null;
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
                    result = commands.<Long>eval(script, ScriptOutputType.INTEGER, keys(event), args.apply(event))
                            .get(timeout.toNanos(), TimeUnit.NANOSECONDS);
                }
                metrics.cacheUpdate(result == null ? "error" : outcome.apply(result));
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                failed.add(event);
                first = first == null ? (e.getCause() == null ? e : e.getCause()) : first;
                metrics.cacheUpdate("error");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CacheUpdateException("interrupted while updating the cache", e);
            }
        }
        return new Failures(failed, first);
    }

    private static String[] keys(FollowEvent event) {
        return new String[] {RedisKeys.following(event.followerId()), RedisKeys.followingVersion(event.followerId())};
    }

    private String[] invalidateArgs(FollowEvent event) {
        return new String[] {Long.toString(event.version()), ttlSeconds};
    }

    private String[] applyArgs(FollowEvent event) {
        return new String[] {Long.toString(event.version()),
                event.isFollow() ? FollowingCacheScripts.ADD : FollowingCacheScripts.REMOVE,
                Long.toString(event.followeeId()), ttlSeconds};
    }

    private static String applyOutcome(Long result) {
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
        resources.shutdown();
    }
}
