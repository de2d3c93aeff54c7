package dev.socialgraph.check.changes;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The wake-ups of waiting watchers: by an append, by one that came just before the wait, by the time-out, by a stop. */
class ChangeSignalsTest {

    final ChangeSignals signals = new ChangeSignals();

    @Test
    void aWait_endsWithTheNextAppend() throws Exception {
        CompletableFuture<Boolean> wait = signals.after(signals.generation(), Duration.ofMinutes(1)).toFuture();
        assertThat(wait).isNotDone();
        signals.appended();
        assertThat(wait.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void anAppendBetweenTheLastReadAndTheWait_endsTheWaitAtOnce() throws Exception {
        long seen = signals.generation();
        signals.appended(); // after the read, before the wait
        assertThat(signals.after(seen, Duration.ofMinutes(1)).toFuture().get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aWaitWithNothingAppended_timesOut() {
        assertThat(signals.after(signals.generation(), Duration.ofMillis(50)).block(Duration.ofSeconds(10))).isFalse();
    }

    @Test
    void closing_endsEveryWait_andEveryWaitAfterIt_andSignalsTheStreams() throws Exception {
        CompletableFuture<Boolean> waiting = signals.after(signals.generation(), Duration.ofMinutes(1)).toFuture();
        CompletableFuture<Void> streams = signals.closed().toFuture();
        assertThat(streams).isNotDone();

        signals.close();

        assertThat(waiting.get(10, TimeUnit.SECONDS)).isFalse();
        assertThat(signals.after(signals.generation(), Duration.ofMinutes(1)).block(Duration.ofSeconds(10))).isFalse();
        streams.get(10, TimeUnit.SECONDS);
        assertThat(streams).isCompleted();
        assertThat(signals.isClosed()).isTrue();
    }
}
