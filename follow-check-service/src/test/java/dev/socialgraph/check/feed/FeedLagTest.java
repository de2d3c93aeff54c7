package dev.socialgraph.check.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FeedLagTest {

    final AtomicLong now = new AtomicLong(1_000_000);
    final FeedLag lag = new FeedLag(now::get, 2_000);

    @Test
    void beforeTheFirstCatchUp_isNotFresh() {
        assertThat(lag.isFresh()).isFalse();
        assertThat(lag.lagMillis()).isEqualTo(Long.MAX_VALUE);
        lag.outboxProbed(now.get(), -1);
        assertThat(lag.isFresh()).isFalse(); // the outbox alone says nothing about this consumer
    }

    @Test
    void emptyOutbox_thenCaughtUp_watermarkIsTheProbeTime() {
        lag.outboxProbed(999_000, -1);
        lag.caughtUp(lag.outboxMark());
        assertThat(lag.appliedWatermark()).isEqualTo(999_000);
        assertThat(lag.lagMillis()).isEqualTo(1_000);
        assertThat(lag.isFresh()).isTrue();
    }

    @Test
    void unpublishedRows_moveTheWatermarkBackByTheOldestAge() {
        lag.outboxProbed(1_000_000, 1_500);
        lag.caughtUp(lag.outboxMark());
        assertThat(lag.appliedWatermark()).isEqualTo(998_500);
        assertThat(lag.isFresh()).isTrue();
        now.addAndGet(600);
        assertThat(lag.lagMillis()).isEqualTo(2_100);
        assertThat(lag.isFresh()).isFalse();
    }

    /** A stalled stream: probes go on, the consumer never catches up again; the guard trips past the bound. */
    @Test
    void noCatchUpWhileTimePasses_tripsAtTheBound() {
        lag.outboxProbed(now.get(), -1);
        lag.caughtUp(lag.outboxMark());
        now.addAndGet(2_000);
        lag.outboxProbed(now.get(), 0);
        assertThat(lag.isFresh()).isTrue();
        now.addAndGet(1);
        assertThat(lag.isFresh()).isFalse();
        lag.caughtUp(lag.outboxMark()); // caught up with the latest probe again
        assertThat(lag.isFresh()).isTrue();
    }

    @Test
    void olderMarks_neverMoveTheWatermarkBack() {
        lag.outboxProbed(1_000_000, -1);
        FeedLag.OutboxMark newer = lag.outboxMark();
        lag.outboxProbed(990_000, -1); // a probe that started earlier but finished later
        assertThat(lag.outboxMark()).isEqualTo(newer);
        lag.caughtUp(newer);
        lag.caughtUp(new FeedLag.OutboxMark(995_000, 995_000));
        lag.caughtUp(null);
        assertThat(lag.appliedWatermark()).isEqualTo(1_000_000);
    }

    @Test
    void negativeBound_isRejected() {
        assertThatThrownBy(() -> new FeedLag(now::get, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
