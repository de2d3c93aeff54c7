package dev.socialgraph.check.changes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wake-ups of waiting watchers: by an append, by one that came just before the wait, by the time-out, by a stop;
 * off the feed's thread, every watcher by one wake-up, and nothing left of a wait that ended.
 */
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

    @Test
    void anAppend_wakesEveryWaitingWatcher_andLeavesNoWaitBehind() throws Exception {
        List<CompletableFuture<Boolean>> waits = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            waits.add(signals.after(signals.generation(), Duration.ofMinutes(1)).toFuture());
        }
        assertThat(signals.waiting()).isEqualTo(1000);

        signals.appended();

        for (CompletableFuture<Boolean> wait : waits) {
            assertThat(wait.get(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(signals.waiting()).isZero();
    }

    @Test
    void theFeedsThread_returnsBeforeTheWatchersRun_andBatchesMeanwhile_coalesceIntoOneWakeUp() throws Exception {
        Scheduler single = Schedulers.newSingle("wakeups-test");
        try {
            ChangeSignals held = new ChangeSignals(single, 1);
            CountDownLatch release = new CountDownLatch(1);
            single.schedule(() -> { // the wake-up thread is busy: the feed must not wait for it
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            List<String> wokenOn = new ArrayList<>();
            CompletableFuture<Boolean> wait = held.after(held.generation(), Duration.ofMinutes(1))
                    .doOnNext(w -> {
                        synchronized (wokenOn) {
                            wokenOn.add(Thread.currentThread().getName());
                        }
                    }).toFuture();

            held.appended();
            held.appended();
            held.appended();

            assertThat(wait).isNotDone();
            release.countDown();
            assertThat(wait.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(wokenOn).singleElement().asString().startsWith("wakeups-test");
            assertThat(held.generation()).isEqualTo(3);
        } finally {
            single.dispose();
        }
    }

    @Test
    void aWaitThatTimedOutOrWasCancelled_leavesNothingBehind() {
        assertThat(signals.after(signals.generation(), Duration.ofMillis(20)).block(Duration.ofSeconds(10))).isFalse();
        Disposable gone = signals.after(signals.generation(), Duration.ofMinutes(1)).subscribe();
        assertThat(signals.waiting()).isEqualTo(1);

        gone.dispose();

        assertThat(signals.waiting()).isZero();
    }

    @Test
    void closing_tellsTheStreamsBeforeItEndsTheirWaits() {
        // A server-sent stream whose wait ended reads and waits again at once: told to end only afterwards, it would
        // spin on the closing thread.
        AtomicBoolean streamsTold = new AtomicBoolean();
        signals.closed().subscribe(null, null, () -> streamsTold.set(true));
        AtomicReference<Boolean> toldWhenTheWaitEnded = new AtomicReference<>();
        signals.after(signals.generation(), Duration.ofMinutes(1))
                .subscribe(woken -> toldWhenTheWaitEnded.set(streamsTold.get()));

        signals.close();

        assertThat(toldWhenTheWaitEnded.get()).isTrue();
    }
}
