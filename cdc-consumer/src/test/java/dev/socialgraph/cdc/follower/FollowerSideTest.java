package dev.socialgraph.cdc.follower;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.socialgraph.cdc.CdcMetrics;
import dev.socialgraph.cdc.CdcProperties;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.CelebrityPageRepository;
import dev.socialgraph.store.FollowerRepository;
import dev.socialgraph.store.ShardDataSources;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FollowerSideTest {

    /** Nothing listens on port 1: every connection attempt is refused. */
    private static final String REFUSING = "jdbc:postgresql://127.0.0.1:1/none";

    @Test
    void apply_whenTheDatabaseIsUnreachable_triesItOncePerBatchAndThrows() {
        List<ShardRange> ranges = new ArrayList<>();
        for (ShardGroup group : ShardGroup.values()) {
            ranges.add(new ShardRange(group, 0, 255, "unreachable_" + group.name().toLowerCase(), REFUSING + group.ordinal()));
        }
        CdcProperties properties = new CdcProperties("t", "t.DLT", "g", 1, 500, 1_000_000, 100_000,
                "redis://127.0.0.1:1", Duration.ofMillis(100), Duration.ofHours(1), Duration.ofSeconds(1),
                Duration.ofSeconds(10));
        try (ShardDataSources dataSources = new ShardDataSources(ShardMap.of(256, ranges),
                new ShardDataSources.PoolSettings("postgres", "", 1, Duration.ofMillis(250), "test"))) {
            FollowerSide side = new FollowerSide(dataSources, new FollowerRepository(), new CelebrityPageRepository(),
                    new CdcMetrics(new SimpleMeterRegistry()), properties);
            List<FollowEvent> events = new ArrayList<>();
            for (long followee = 10; followee < 20; followee++) {
                events.add(FollowEvent.follow(1, followee, 1_000, 1, 1_000));
            }

            FollowerSideException failure = catchThrowableOfType(FollowerSideException.class, () -> side.apply(events));

            assertThat(failure).hasMessageContaining("first failure at followee 10");
            // The nine other followees on the same database were skipped, not tried one connection timeout each.
            assertThat(failure.getSuppressed()).isEmpty();
        }
    }
}
