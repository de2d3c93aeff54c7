package dev.socialgraph.cdc.cache;

import dev.socialgraph.cache.FollowingCache;
import dev.socialgraph.cache.FollowingCacheScripts;
import dev.socialgraph.cache.RedisConnector;
import dev.socialgraph.cache.RedisEndpoint;
import dev.socialgraph.cdc.CdcMetrics;
import dev.socialgraph.cdc.CdcProperties;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Applies follow events to the follower's cached {@code following:{id}} set through graph-cache's
 * {@link FollowingCache} (DESIGN.md 2.3, 4). The consumer is the writer that guarantees the cache: the write
 * service's own update after its commit may fail (it only counts that), so an event is never acknowledged until its
 * update has reached Redis. A failed apply falls back to {@link FollowingCacheScripts#INVALIDATE} (the set is
 * dropped and refilled from the shard on the next read); when that fails too, {@link #apply} throws and the listener
 * fails the batch, which is retried with back-off until Redis answers. Otherwise a Redis that lost its clients for
 * a few seconds but kept its data would serve the old set for its whole TTL (3,600 s).
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

    /** Creates the client; it connects on first use, so a Redis that is down does not stop start-up. */
    public CacheUpdates(CdcProperties properties, CdcMetrics metrics) {
        Duration timeout = properties.redisTimeout();
        this.redis = new RedisConnector(RedisEndpoint.parse(properties.redisUri(), properties.redisMode(), timeout,
                timeout));
        this.cache = new FollowingCache(redis, Duration.ofSeconds(Math.max(1, properties.cacheTtl().toSeconds())),
                (command, error) -> { });
        this.metrics = metrics;
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
        List<FollowingCache.Change> changes = all.stream().filter(e -> e.relation() == Relation.FOLLOW)
                .map(e -> new FollowingCache.Change(e.followerId(), e.version(), e.isFollow(), e.followeeId()))
                .toList();
        if (changes.isEmpty()) {
            return;
        }
        FollowingCache.Batch applied = cache.applyAll(changes);
        applied.outcomes().forEach(outcome -> metrics.cacheUpdate(tag(outcome)));
        List<FollowingCache.Change> failed = applied.failed(changes);
        if (failed.isEmpty()) {
            return;
        }
        FollowingCache.Batch dropped = cache.invalidateAll(failed);
        dropped.outcomes().forEach(outcome -> metrics.cacheUpdate(tag(outcome)));
        List<FollowingCache.Change> lost = dropped.failed(failed);
        if (!lost.isEmpty()) {
            throw new CacheUpdateException(lost.size() + " of " + changes.size()
                    + " cache updates could neither be applied nor dropped", dropped.firstFailure());
        }
        log.warn("{} of {} cache updates failed and their sets were dropped instead, first error: {}",
                failed.size(), changes.size(), String.valueOf(applied.firstFailure()));
    }

    private static String tag(FollowingCache.Outcome outcome) {
        return outcome == FollowingCache.Outcome.FAILED ? "error" : outcome.name().toLowerCase();
    }

    @Override
    public void destroy() {
        redis.close();
    }
}
