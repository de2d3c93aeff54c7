package dev.socialgraph.cdc.cache;

import dev.socialgraph.cache.FollowingCache;
import dev.socialgraph.cache.FollowingCacheScripts;
import dev.socialgraph.cache.RedisBreaker;
import dev.socialgraph.cache.RedisConnector;
import dev.socialgraph.cache.RedisEndpoint;
import dev.socialgraph.cdc.CdcMetrics;
import dev.socialgraph.cdc.CdcProperties;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Applies follow events to the follower's cached {@code following:{id}} set through graph-cache's
 * {@link FollowingCache} (DESIGN.md 2.3, 4). The consumer is the writer that guarantees the cache: the write
 * service's own update after its commit may fail (it only counts that). A failed apply falls back to
 * {@link FollowingCacheScripts#INVALIDATE} (the set is dropped and refilled from the shard on the next read); the
 * events whose set could be neither updated nor dropped are handed back, and the listener owes them a drop
 * (its {@code CacheDebt}: retried until Redis answers, their offsets not committed meanwhile) instead of failing the
 * batch, so a Redis outage never holds back the follower side. Otherwise a Redis that lost its clients for a few
 * seconds but kept its data would serve the old set for its whole TTL (3,600 s).
 *
 * <p>Commands of one batch are pipelined and awaited together, each bounded by {@code graph.cdc.redis-timeout};
 * while Redis (or, in a cluster, the master of a slot) is unreachable, commands fail at once instead of queueing.
 */
@Component
public class CacheUpdates implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(CacheUpdates.class);

    private final RedisConnector redis;
    private final FollowingCache cache;
    private final CdcMetrics metrics;

    /**
     * Creates the client; it connects on first use, so a Redis that is down does not stop start-up. Its breaker
     * ({@code graph.redis-breaker.*}) skips a hung Redis after its first timeouts: the batch's sets are then owed as
     * when Redis is down, and the owed drops' retries are the breaker's probes.
     */
    public CacheUpdates(CdcProperties properties, CdcMetrics metrics, Environment environment, MeterRegistry meters) {
        Duration timeout = properties.redisTimeout();
        this.redis = new RedisConnector(RedisEndpoint.parse(properties.redisUri(), properties.redisMode(), timeout,
                timeout), RedisBreaker.settings(environment::getProperty));
        redis.breaker().bindTo(meters);
        this.cache = new FollowingCache(redis, Duration.ofSeconds(Math.max(1, properties.cacheTtl().toSeconds())),
                (command, error) -> { });
        this.metrics = metrics;
    }

    /**
     * Runs {@link FollowingCacheScripts#APPLY} for each event, in order, and {@link FollowingCacheScripts#INVALIDATE}
     * for each whose apply failed. Outcomes are counted in {@code graph.cdc.cache.updates{outcome}}.
     *
     * @param all valid events, in stream order; only follows and unfollows are applied (the following cache holds
     *            follows alone), blocks and mutes are skipped
     * @return the events whose set could neither be updated nor dropped (Redis unreachable, too slow, or answering
     *         errors), the same instances in stream order; empty when every set is right. Never throws for Redis.
     */
    public List<FollowEvent> apply(List<FollowEvent> all) {
        List<FollowEvent> follows = all.stream().filter(e -> e.relation() == Relation.FOLLOW).toList();
        if (follows.isEmpty()) {
            return List.of();
        }
        List<FollowingCache.Change> changes = changes(follows);
        FollowingCache.Batch applied = cache.applyAll(changes);
        applied.outcomes().forEach(outcome -> metrics.cacheUpdate(tag(outcome)));
        List<FollowEvent> failed = failed(follows, applied);
        if (failed.isEmpty()) {
            return List.of();
        }
        List<FollowEvent> lost = invalidate(failed);
        if (lost.size() < failed.size()) {
            log.warn("{} of {} cache updates failed and their sets were dropped instead, first error: {}",
                    failed.size() - lost.size(), changes.size(), String.valueOf(applied.firstFailure()));
        }
        return lost;
    }

    /**
     * Drops the cached sets of the events with {@link FollowingCacheScripts#INVALIDATE} and raises their version
     * floors to the events' versions. Outcomes are counted as {@code dropped} or {@code error}.
     *
     * @param follows follow and unfollow events
     * @return the events whose set could not be dropped, the same instances; empty when all were
     */
    public List<FollowEvent> invalidate(List<FollowEvent> follows) {
        if (follows.isEmpty()) {
            return List.of();
        }
        FollowingCache.Batch dropped = cache.invalidateAll(changes(follows));
        dropped.outcomes().forEach(outcome -> metrics.cacheUpdate(tag(outcome)));
        return failed(follows, dropped);
    }

    private static List<FollowingCache.Change> changes(List<FollowEvent> follows) {
        return follows.stream()
                .map(e -> new FollowingCache.Change(e.followerId(), e.version(), e.isFollow(), e.followeeId()))
                .toList();
    }

    private static List<FollowEvent> failed(List<FollowEvent> events, FollowingCache.Batch batch) {
        List<FollowEvent> failed = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            if (batch.outcomes().get(i) == FollowingCache.Outcome.FAILED) {
                failed.add(events.get(i));
            }
        }
        return failed;
    }

    private static String tag(FollowingCache.Outcome outcome) {
        return outcome == FollowingCache.Outcome.FAILED ? "error" : outcome.name().toLowerCase();
    }

    @Override
    public void destroy() {
        redis.close();
    }
}
