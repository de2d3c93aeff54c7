package dev.socialgraph.check;

import com.github.benmanes.caffeine.cache.Ticker;
import dev.socialgraph.check.accounts.AccountStates;
import dev.socialgraph.check.accounts.AccountVisibility;
import dev.socialgraph.check.affinity.ShardOwnership;
import dev.socialgraph.check.bloom.EdgeBloom;
import dev.socialgraph.check.cache.FollowerSideCache;
import dev.socialgraph.check.cache.LocalFollowingCache;
import dev.socialgraph.check.cache.RedisFollowingCache;
import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.check.feed.FeedLag;
import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.check.lists.FollowLists;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.store.account.AccountStateFeed;
import dev.socialgraph.store.account.InactiveUsers;
import dev.socialgraph.store.shard.ShardDataSources;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the read path's layers (DESIGN.md 5) into the {@link FollowChecker}: the bloom filter, the exact in-process
 * following cache, Redis, the shards, and the feed-lag guard that decides whether the in-process layers answer. In the
 * root package, above the features it wires: no feature depends on this package (their settings are in
 * {@code check.config}), so the wiring closes no package cycle.
 */
@Configuration(proxyBeanMethods = false)
class ReadPathConfiguration {

    @Bean
    LocalFollowingCache localFollowingCache(CheckProperties properties, MeterRegistry registry) {
        LocalFollowingCache cache = new LocalFollowingCache(properties.localCacheBudget().toBytes());
        Gauge.builder("graph.check.local.entries", cache, LocalFollowingCache::entries)
                .description("Followers whose following array is cached in process").register(registry);
        Gauge.builder("graph.check.local.weight", cache, LocalFollowingCache::weightedBytes)
                .description("Weighed size of the in-process following cache (16 bytes per edge + 144 per follower)")
                .baseUnit("bytes").register(registry);
        FunctionCounter.builder("graph.check.local.patched", cache, LocalFollowingCache::patched)
                .description("follow-events that patched a cached following array").register(registry);
        FunctionCounter.builder("graph.check.local.dropped", cache, LocalFollowingCache::dropped)
                .description("follow-events that dropped a cached array on a version gap").register(registry);
        FunctionCounter.builder("graph.check.local.refused.fills", cache, LocalFollowingCache::refusedFills)
                .description("Fills refused because an event of the same stripe arrived during the read")
                .register(registry);
        return cache;
    }

    @Bean
    FollowerSideCache followerSideCache(CheckProperties properties, MeterRegistry registry) {
        CheckProperties.FollowerSide settings = properties.followerSide();
        FollowerSideCache cache = new FollowerSideCache(settings.windowBudget().toBytes(), settings.countEntries(),
                settings.windowSize(), settings.deepWindowSize(), settings.staleBound(), settings.windowMaxAge(),
                settings.countMaxAge(), Ticker.systemTicker());
        Gauge.builder("graph.check.follower.windows", cache, FollowerSideCache::windows)
                .description("Followees whose newest followers are cached in process").register(registry);
        Gauge.builder("graph.check.follower.counts", cache, FollowerSideCache::counts)
                .description("Followees whose follower count is cached in process").register(registry);
        Gauge.builder("graph.check.follower.weight", cache, FollowerSideCache::windowBytes)
                .description("Weighed size of the cached follower windows (16 bytes per follower + 136 per followee)")
                .baseUnit("bytes").register(registry);
        Gauge.builder("graph.check.follower.pending", cache, FollowerSideCache::pending)
                .description("Followees with a follow event read but not yet applied by the cdc-consumer")
                .register(registry);
        FunctionCounter.builder("graph.check.follower.refused.fills", cache, FollowerSideCache::refusedFills)
                .description("Follower-side fills refused: the followee was pending or an event came during the read")
                .register(registry);
        FunctionCounter.builder("graph.check.follower.invalidated", cache, FollowerSideCache::invalidated)
                .description("Followees whose cached entries were dropped once the cdc-consumer applied their events")
                .register(registry);
        FunctionCounter.builder("graph.check.follower.recounted", cache, FollowerSideCache::recountedCounts)
                .description("Cached follower counts dropped because an account job announced it moved them")
                .register(registry);
        FunctionCounter.builder("graph.check.follower.deepened", cache, FollowerSideCache::deepened)
                .description("Follower windows read again deeper after a walk of the list reached their end")
                .register(registry);
        return cache;
    }

    @Bean
    InactiveUsers inactiveUsers(LocalFollowingCache local, MeterRegistry registry) {
        InactiveUsers view = new InactiveUsers(local::invalidate);
        Gauge.builder("graph.check.accounts.inactive", view, InactiveUsers::size)
                .description("Users whose account is deactivated or erased, as this instance's view holds them")
                .register(registry);
        Gauge.builder("graph.check.accounts.protected", view, InactiveUsers::protectedCount)
                .description("Protected accounts, whose follows only they and their followers see, as this instance's"
                        + " view holds them")
                .register(registry);
        return view;
    }

    @Bean
    AccountStates accountStates(ShardDataSources dataSources) {
        return new AccountStates(dataSources);
    }

    /**
     * The view's feed, loaded before the context is up (so before the instance reports ready): an instance that
     * answered before it knew the inactive users would show them.
     */
    @Bean(destroyMethod = "close")
    AccountStateFeed accountStateFeed(ShardDataSources dataSources, InactiveUsers view, CheckProperties properties,
                                      MeterRegistry registry) {
        CheckProperties.Accounts settings = properties.accounts();
        AccountStateFeed feed = new AccountStateFeed(dataSources, view, settings.pollInterval(), settings.overlap());
        FunctionCounter.builder("graph.check.accounts.poll.failures", feed, AccountStateFeed::failures)
                .description("Polls of a database's account states that failed (retried from the same point)")
                .register(registry);
        if (settings.enabled()) {
            feed.loadNow();
        }
        return feed;
    }

    @Bean
    AccountVisibility accountVisibility(InactiveUsers view, AccountStates states, CheckProperties properties) {
        return new AccountVisibility(view, states::state, properties.accounts().enabled());
    }

    @Bean
    FeedLag feedLag(CheckProperties properties) {
        return new FeedLag(System::currentTimeMillis, properties.feed().maxLag().toMillis());
    }

    /** One thread reads admitted followers' rows; a full queue rejects (the next miss tries again). */
    @Bean(destroyMethod = "shutdownNow")
    ThreadPoolExecutor localAdmissions(CheckProperties properties) {
        return new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(properties.admissionQueue()), r -> {
                    Thread t = new Thread(r, "local-cache-admission");
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.AbortPolicy());
    }

    @Bean
    FollowChecker followChecker(EdgeBloom bloom, LocalFollowingCache local, RedisFollowingCache redis,
                                FollowChecker.Shards shards, FeedLag feed, ShardOwnership ownership,
                                ThreadPoolExecutor localAdmissions, CheckProperties properties,
                                MeterRegistry registry) {
        FollowTokens tokens = new FollowTokens(properties.tokenSecret().getBytes(StandardCharsets.UTF_8),
                Clock.systemUTC());
        return new FollowChecker(bloom, local, redis, shards, feed, ownership::owns, tokens,
                properties.tokenMaxAge(), localAdmissions, registry);
    }

    /**
     * The lists over the following rows of the {@link FollowChecker}'s layers and the follower-side cache (none when
     * {@code graph.check.follower-side.enabled} is off).
     */
    @Bean
    FollowLists followLists(FollowLists.Shards shards, FollowChecker checker, FollowerSideCache followerSide,
                            AccountVisibility accounts, CheckProperties properties) {
        return new FollowLists(shards, checker, properties.followerSide().enabled() ? followerSide : null,
                accounts::inactiveAmong);
    }
}
