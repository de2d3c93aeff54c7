package dev.socialgraph.cdc.follower;

import dev.socialgraph.store.ShardDataSources;
import dev.socialgraph.store.account.AccountStateFeed;
import dev.socialgraph.store.account.InactiveUsers;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The view of inactive accounts (docs/account-lifecycle.md) that {@link FollowerSide} asks whether a user is erased:
 * loaded before the listener starts, then polled every 250 ms as the check service's is. The erasure job starts
 * {@code graph.write.accounts.erase-delay} (5 s) after the state change, so every consumer knows the user is erased
 * before the job removes the user's follower-side entries, and an event still in flight cannot write one back.
 */
@Configuration(proxyBeanMethods = false)
class AccountViewConfiguration {

    /** How often the state rows are polled: the check service's default. */
    static final Duration POLL_INTERVAL = Duration.ofMillis(250);
    /** How far each poll looks back: longer than any state change's transaction. */
    static final Duration OVERLAP = Duration.ofSeconds(5);

    @Bean
    InactiveUsers inactiveUsers(MeterRegistry registry) {
        InactiveUsers view = new InactiveUsers();
        Gauge.builder("graph.cdc.accounts.inactive", view, InactiveUsers::size)
                .description("Users whose account is deactivated or erased, as this consumer's view holds them")
                .register(registry);
        return view;
    }

    @Bean(destroyMethod = "close")
    AccountStateFeed accountStateFeed(ShardDataSources dataSources, InactiveUsers view, MeterRegistry registry) {
        AccountStateFeed feed = new AccountStateFeed(dataSources, view, POLL_INTERVAL, OVERLAP);
        FunctionCounter.builder("graph.cdc.accounts.poll.failures", feed, AccountStateFeed::failures)
                .description("Polls of a database's account states that failed (retried from the same point)")
                .register(registry);
        feed.loadNow();
        return feed;
    }
}
