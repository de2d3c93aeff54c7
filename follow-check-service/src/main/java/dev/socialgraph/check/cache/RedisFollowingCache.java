package dev.socialgraph.check.cache;

import dev.socialgraph.cache.FollowingCache;
import dev.socialgraph.cache.RedisBreaker;
import dev.socialgraph.cache.RedisConnector;
import dev.socialgraph.cache.RedisEndpoint;
import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.check.follow.Answer;
import dev.socialgraph.check.follow.FollowChecker;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * The check service's view of Redis: the L1 cache {@code following:{id}} (DESIGN.md 2.3) through graph-cache's
 * {@link FollowingCache}, the one implementation of its protocol, and the suggestions cache, on one connection
 * ({@link RedisConnector}: a standalone server or a Redis Cluster, {@code graph.check.redis-mode}).
 *
 * <p>Redis is only a cache: every failure (down, timeout, flushed, a failover in progress) is reported as a miss and
 * counted in {@code graph.check.redis.errors}, so the caller answers from the shard. Commands are bounded by
 * {@link CheckProperties#redisTimeout()} and rejected at once while the connection is down, so a dead Redis costs at
 * most one timeout; a hung one costs the timeouts its breaker ({@code graph.redis-breaker.*}, graph-cache's
 * {@link RedisBreaker}) needs to open and its probes, while every other read skips Redis (not counted as errors).
 * The connection is made lazily and retried at most once per second, so the service starts and answers without
 * Redis.
 */
@Component
public class RedisFollowingCache implements FollowChecker.Cache, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(RedisFollowingCache.class);
    /** Connecting waits at most this, even when commands may take longer. */
    private static final Duration CONNECT_TIMEOUT = Duration.ofMillis(500);

    private final RedisConnector redis;
    private final FollowingCache cache;
    private final Counter errors;
    private final long trustDelayNanos;
    private volatile long trustedFromNanos = System.nanoTime();

    RedisFollowingCache(CheckProperties properties, MeterRegistry registry, Environment environment) {
        this.redis = new RedisConnector(RedisEndpoint.parse(properties.redisUri(), properties.redisMode(),
                properties.redisTimeout(), CONNECT_TIMEOUT), RedisBreaker.settings(environment::getProperty));
        redis.breaker().bindTo(registry);
        this.errors = Counter.builder("graph.check.redis.errors")
                .description("Redis commands that failed or timed out; the shard answered instead")
                .register(registry);
        this.cache = new FollowingCache(redis, properties.cacheTtl(), (command, error) -> errors.increment());
        this.trustDelayNanos = properties.redisTrustDelay().toNanos();
        redis.breaker().onTransition(state -> {
            if (state == CircuitBreaker.State.CLOSED) {
                trustedFromNanos = System.nanoTime() + trustDelayNanos;
            }
        });
    }

    /**
     * Whether a set read from Redis may answer now. Not while the breaker is half-open (its probes are sent, their
     * answers dropped), nor for {@link CheckProperties#redisTrustDelay()} after it closed: while Redis was skipped,
     * the write service's updates of the sets were skipped too, and a set is right again only once the cdc-consumer's
     * owed drops (retried every second) have landed; until then a set may miss the writes made during the fault.
     */
    private boolean trusted() {
        CircuitBreaker.State state = redis.breaker().state();
        return state == CircuitBreaker.State.CLOSED
                && System.nanoTime() - trustedFromNanos >= 0;
    }

    /** While the breaker is not closed, the command goes to it: skipped while open, sent as a probe once allowed. */
    private boolean probing() {
        return redis.breaker().state() != CircuitBreaker.State.CLOSED;
    }

    /**
     * {@code SMISMEMBER following:{a} b -1}: one round trip.
     *
     * @param followerId positive
     * @param followeeId positive
     * @return {@link Answer#YES} or {@link Answer#NO} when the set is cached; {@link Answer#NEXT} when it is not, or
     *         Redis did not answer
     */
    @Override
    public int isFollowing(long followerId, long followeeId) {
        if (!trusted()) {
            if (probing()) {
                cache.isFollowing(followerId, followeeId);
            }
            return Answer.NEXT;
        }
        return switch (cache.isFollowing(followerId, followeeId)) {
            case FollowingCache.FOLLOWING -> Answer.YES;
            case FollowingCache.NOT_FOLLOWING -> Answer.NO;
            default -> Answer.NEXT;
        };
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
        if (!trusted()) {
            if (probing()) {
                cache.areFollowing(followerId, followeeIds);
            }
            return null;
        }
        return cache.areFollowing(followerId, followeeIds);
    }

    /**
     * Backfills {@code following:{a}} from a row read from the shard; never replaces a newer cached version.
     *
     * @param followerId   positive
     * @param followingIds the row's followee ids
     * @param version      the row's version
     */
    @Override
    public void fill(long followerId, long[] followingIds, long version) {
        cache.fill(followerId, followingIds, version);
    }

    /**
     * Reads a cached string value, e.g. {@code suggest:{id}}.
     *
     * @param key the key
     * @return the value, or {@code null} when absent or Redis did not answer
     */
    public String get(String key) {
        try {
            return redis.breaker().call(() -> redis.sync().get(key));
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
        try {
            redis.breaker().call(() -> redis.sync().setex(key, Math.max(1, ttl.toSeconds()), value));
        } catch (RuntimeException e) {
            failed("SETEX", e);
        }
    }

    private void failed(String command, RuntimeException e) {
        if (RedisBreaker.skipped(e)) {
            return;
        }
        errors.increment();
        log.debug("Redis {} failed; answering without the cache", command, e);
    }

    @Override
    public void destroy() {
        redis.close();
    }
}
