package dev.socialgraph.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.testsupport.TestShards;
import java.sql.Connection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Celebrity pages with a threshold of 5 followers and pages of 3. */
@SpringBootTest(classes = CdcConsumerApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
@DirtiesContext
class CelebrityPagesIT {

    private static final TestShards SHARDS = TestShards.create("cdc_celebrity");
    private static final CdcHarness KAFKA = new CdcHarness("cdc-celebrity");
    private static final long T0 = 1_700_000_000_000L;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        KAFKA.properties(SHARDS).forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.cdc.celebrity-threshold", () -> "5");
        registry.add("graph.cdc.page-size", () -> "3");
    }

    @AfterAll
    static void close() {
        KAFKA.close();
        SHARDS.close();
    }

    @Autowired
    ShardDataSources dataSources;
    @Autowired
    KafkaListenerEndpointRegistry listeners;
    @Autowired
    CdcMetrics metrics;

    private final Map<Long, Long> model = new HashMap<>();
    private long version;

    @Test
    void crossingTheThreshold_thenAppendsNewPagesUnfollowsAndRefollows_keepEveryFollowerOnceInTimeOrder() throws Exception {
        long followee = 256L * 100 + 200;
        double migrationsBefore = metrics.celebrityMigrations();
        for (long f = 1; f <= 4; f++) {
            follow(f, followee, T0 + f);
        }
        KAFKA.awaitCaughtUp();
        assertThat(row(followee).celebrity()).isFalse();
        assertThat(row(followee).followerIds()).containsExactly(1, 2, 3, 4);

        follow(5, followee, T0 + 5); // reaches the threshold
        KAFKA.awaitCaughtUp();
        FollowerRow celebrity = row(followee);
        assertThat(celebrity.celebrity()).isTrue();
        assertThat(celebrity.followerIds()).isEmpty();
        assertThat(celebrity.followerCount()).isEqualTo(5);
        assertThat(pageIds(followee)).containsExactly(List.of(1L, 2L, 3L), List.of(4L, 5L));
        assertThat(metrics.celebrityMigrations()).isEqualTo(migrationsBefore + 1);

        follow(6, followee, T0 + 6); // fills the last page
        follow(7, followee, T0 + 7); // starts a new one
        KAFKA.awaitCaughtUp();
        assertThat(pageIds(followee)).containsExactly(List.of(1L, 2L, 3L), List.of(4L, 5L, 6L), List.of(7L));

        follow(2, followee, T0 + 100); // already on page 0: no-op
        unfollow(3, followee, T0 + 999); // not that edge: no-op
        KAFKA.awaitCaughtUp();
        assertThat(pageIds(followee)).containsExactly(List.of(1L, 2L, 3L), List.of(4L, 5L, 6L), List.of(7L));

        unfollow(2, followee, T0 + 2); // removed from the old page
        follow(2, followee, T0 + 8);   // re-follow: appended to the last page
        KAFKA.awaitCaughtUp();
        assertThat(pageIds(followee)).containsExactly(List.of(1L, 3L), List.of(4L, 5L, 6L), List.of(7L, 2L));

        unfollow(1, followee, T0 + 1);
        unfollow(3, followee, T0 + 3); // page 0 empties and goes
        KAFKA.awaitCaughtUp();
        assertThat(pageIds(followee)).containsExactly(List.of(4L, 5L, 6L), List.of(7L, 2L));
        assertMatchesModel(followee);
        assertThat(row(followee).followerCount()).isEqualTo(5);

        unfollow(5, followee, T0 + 5);
        unfollow(6, followee, T0 + 6); // below the threshold: the followers stay in pages
        KAFKA.awaitCaughtUp();
        assertThat(row(followee).celebrity()).isTrue();
        assertThat(row(followee).followerCount()).isEqualTo(3);
        follow(8, followee, T0 + 9);
        follow(9, followee, T0 + 10);
        KAFKA.awaitCaughtUp();
        assertThat(pageIds(followee)).containsExactly(List.of(4L), List.of(7L, 2L, 8L), List.of(9L));
        assertMatchesModel(followee);
    }

    @Test
    void randomBatchesAcrossTheThreshold_matchTheModel() throws Exception {
        long followee = 256L * 200 + 17;
        Random random = new Random(7);
        var container = listeners.getListenerContainer("cdc-consumer");
        long clock = T0;
        for (int round = 0; round < 4; round++) {
            container.pause(); // one poll then sees many events of this followee
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(container::isContainerPaused);
            for (int i = 0; i < 40; i++) {
                long follower = 1 + random.nextInt(25);
                Long at = model.get(follower);
                if (at == null) {
                    follow(follower, followee, clock += random.nextInt(2));
                } else if (random.nextBoolean()) {
                    unfollow(follower, followee, at);
                } else {
                    follow(follower, followee, clock + 1); // redundant follow: no-op
                }
            }
            container.resume();
            KAFKA.awaitCaughtUp();
            assertMatchesModel(followee, Integer.MAX_VALUE);
        }
        assertThat(row(followee).celebrity()).isTrue();
    }

    private void follow(long follower, long followee, long at) {
        model.putIfAbsent(follower, at);
        KAFKA.publish(FollowEvent.follow(follower, followee, at, ++version, at));
    }

    private void unfollow(long follower, long followee, long at) {
        model.remove(follower, at);
        KAFKA.publish(FollowEvent.unfollow(follower, followee, at, ++version, at));
    }

    private void assertMatchesModel(long followee) throws Exception {
        assertMatchesModel(followee, 3);
    }

    /**
     * A late follow that ties with the first entry of the last page (same time, smaller id) belongs on an older
     * page and may push it past the page size; random batches therefore only require non-empty pages.
     */
    private void assertMatchesModel(long followee, int maxPageSize) throws Exception {
        List<long[]> all = CdcHarness.followers(dataSources, followee);
        assertThat(all).containsExactlyElementsOf(CdcHarness.expected(model));
        Set<Long> ids = new HashSet<>();
        all.forEach(pair -> assertThat(ids.add(pair[0])).as("follower %d once", pair[0]).isTrue());
        assertThat(row(followee).followerCount()).isEqualTo(model.size());
        for (CelebrityPage page : pages(followee)) {
            assertThat(page.followerIds()).hasSizeBetween(1, maxPageSize);
        }
    }

    private FollowerRow row(long followee) {
        return CdcHarness.row(dataSources, followee).orElseThrow();
    }

    private List<CelebrityPage> pages(long followee) throws Exception {
        try (Connection connection = dataSources.forUser(ShardGroup.FOLLOWER, followee).getConnection()) {
            return new CelebrityPageRepository().all(connection, followee);
        }
    }

    private List<List<Long>> pageIds(long followee) throws Exception {
        return pages(followee).stream()
                .map(p -> java.util.Arrays.stream(p.followerIds()).boxed().toList())
                .toList();
    }
}
