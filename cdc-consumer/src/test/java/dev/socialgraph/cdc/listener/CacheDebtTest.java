package dev.socialgraph.cdc.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class CacheDebtTest {

    private static final TopicPartition P0 = new TopicPartition("follow-events", 0);
    private static final TopicPartition P1 = new TopicPartition("follow-events", 1);
    private static final long T0 = 1_700_000_000_000L;
    private static final long RETRY = Duration.ofSeconds(1).toNanos();

    /** Redis as the debt sees it: up or down, and every call it got. */
    private static final class FakeCache implements CacheDebt.Cache {
        boolean down;
        final List<String> calls = new ArrayList<>();

        @Override
        public List<FollowEvent> apply(List<FollowEvent> events) {
            calls.add("apply " + describe(events));
            return down ? events.stream().filter(e -> e.relation() == Relation.FOLLOW).toList() : List.of();
        }

        @Override
        public List<FollowEvent> invalidate(List<FollowEvent> events) {
            calls.add("invalidate " + describe(events));
            return down ? events : List.of();
        }

        private static String describe(List<FollowEvent> events) {
            return events.stream().map(e -> e.followerId() + "@" + e.version()).sorted().toList().toString();
        }
    }

    private final AtomicLong nanos = new AtomicLong();
    private final FakeCache cache = new FakeCache();
    private final CacheDebt debt = new CacheDebt(cache, RETRY, nanos::get);

    @Test
    void apply_whileRedisAnswers_owesNothing_andHoldsNoCommit() {
        debt.apply(List.of(owed(P0, 10, follow(1, 7, 1))));

        assertThat(debt.owed()).isZero();
        assertThat(debt.holds()).isEmpty();
        assertThat(cache.calls).containsExactly("apply [1@1]");
    }

    @Test
    void apply_whileRedisIsDown_doesNotThrow_owesOneDropPerFollowerAndPartition_andHoldsTheFirstOffset() {
        cache.down = true;
        debt.apply(List.of(owed(P0, 10, follow(1, 7, 1)), owed(P0, 11, follow(1, 8, 2)), owed(P1, 4, follow(2, 7, 5))));

        assertThat(debt.owed()).isEqualTo(2);
        assertThat(debt.holds()).containsOnly(Map.entry(P0, 10L), Map.entry(P1, 4L));
    }

    @Test
    void apply_soonAfterAFailure_doesNotAskRedis_andOwesTheBatchStraightAway() {
        cache.down = true;
        debt.apply(List.of(owed(P0, 10, follow(1, 7, 1))));
        cache.calls.clear();

        debt.apply(List.of(owed(P0, 11, follow(1, 8, 2)), owed(P0, 12, follow(3, 8, 1))));

        assertThat(cache.calls).as("Redis failed moments ago: no command timeout per batch").isEmpty();
        assertThat(debt.owed()).isEqualTo(2);
        assertThat(debt.holds()).containsOnly(Map.entry(P0, 10L));
    }

    @Test
    void settleIfDue_afterRedisIsBack_dropsEachOwedSetAtItsNewestVersion_andReleasesTheCommit() {
        cache.down = true;
        debt.apply(List.of(owed(P0, 10, follow(1, 7, 1))));
        debt.apply(List.of(owed(P0, 11, unfollow(1, 7, 2)), owed(P1, 3, follow(4, 9, 6))));
        cache.down = false;
        cache.calls.clear();

        assertThat(debt.settleIfDue()).as("the retry time has not come").isFalse();
        nanos.addAndGet(RETRY);
        assertThat(debt.settleIfDue()).isTrue();

        assertThat(cache.calls).containsExactly("invalidate [1@2, 4@6]");
        assertThat(debt.owed()).isZero();
        assertThat(debt.holds()).isEmpty();
    }

    @Test
    void settleIfDue_whileRedisIsStillDown_keepsTheDebt_andWaitsAnotherInterval() {
        cache.down = true;
        debt.apply(List.of(owed(P0, 10, follow(1, 7, 1))));
        nanos.addAndGet(RETRY);

        assertThat(debt.settleIfDue()).isFalse();
        cache.calls.clear();
        assertThat(debt.settleIfDue()).isFalse();

        assertThat(cache.calls).as("asked again only after the interval").isEmpty();
        assertThat(debt.holds()).containsOnly(Map.entry(P0, 10L));
    }

    @Test
    void apply_onceTheDebtIsSettled_goesThroughRedisAgain() {
        cache.down = true;
        debt.apply(List.of(owed(P0, 10, follow(1, 7, 1))));
        cache.down = false;
        nanos.addAndGet(RETRY);
        cache.calls.clear();

        debt.apply(List.of(owed(P0, 11, follow(2, 7, 1))));

        assertThat(cache.calls).containsExactly("invalidate [1@1]", "apply [2@1]");
        assertThat(debt.owed()).isZero();
    }

    @Test
    void apply_ofBlocksAndMutes_owesNothing() {
        cache.down = true;
        debt.apply(List.of(owed(P0, 10, follow(1, 7, 1))));

        debt.apply(List.of(owed(P1, 3, FollowEvent.of(FollowEvent.Type.BLOCK, 5, 6, T0, 1, T0))));

        assertThat(debt.holds()).containsOnlyKeys(P0);
    }

    @Test
    void forget_dropsTheRevokedPartitionsDebt_whichItsNextOwnerReadsAgain() {
        cache.down = true;
        debt.apply(List.of(owed(P0, 10, follow(1, 7, 1)), owed(P1, 4, follow(2, 7, 5))));

        debt.forget(List.of(P1));

        assertThat(debt.owed()).isEqualTo(1);
        assertThat(debt.holds()).containsOnly(Map.entry(P0, 10L));
    }

    @Test
    void constructor_withoutARetryInterval_isRefused() {
        assertThatThrownBy(() -> new CacheDebt(cache, 0, nanos::get)).isInstanceOf(IllegalArgumentException.class);
    }

    private static CacheDebt.Owed owed(TopicPartition partition, long offset, FollowEvent event) {
        return new CacheDebt.Owed(partition, offset, event);
    }

    private static FollowEvent follow(long follower, long followee, long version) {
        return FollowEvent.follow(follower, followee, T0 + version, version, T0 + version);
    }

    private static FollowEvent unfollow(long follower, long followee, long version) {
        return FollowEvent.unfollow(follower, followee, T0, version, T0 + version);
    }
}
