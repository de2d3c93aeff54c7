package dev.socialgraph.check.changes;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Wakes the watchers that wait for the next record: the event feed calls {@link #appended} after each batch it put
 * into the {@link ChangeLog}, and a watcher waits with {@link #after}. A generation number closes the race between a
 * watcher's last read and its wait: a batch appended in between is seen at once. A watcher that goes away, or whose
 * wait times out, leaves nothing here.
 *
 * <p><b>Wake-ups leave the feed's thread and coalesce.</b> {@link #appended} only counts the batch and, unless a
 * wake-up is already pending, hands one to {@code wakeups}; the wake-up takes every waiting watcher at once and ends
 * their waits there, in slices spread over that scheduler's workers, so what a woken watcher does next (its read of
 * the log, its server-sent write) runs off the feed's thread. Batches appended while a wake-up is pending or running
 * are covered by the next one: a thousand watchers are woken once per wake-up, not once per batch, and the feed never
 * waits for them (when it did, a thousand watchers' reads on its thread held back the feed itself, and with it the
 * bloom filter's and the caches' freshness). A waiting watcher costs one entry in a set and one timer.
 *
 * <p>On shutdown ({@link #close}, before the server's graceful shutdown waits for requests to end) every wait ends at
 * once and {@link #closed} completes: a server-sent stream never ends by itself, so without this every open one would
 * hold the instance's stop for the whole shutdown timeout. Its client reconnects, to another instance, from its last
 * event id.
 */
public final class ChangeSignals {

    /** Fewest waits a slice of a wake-up ends, so a handful of watchers is not spread over threads. */
    private static final int MIN_SLICE = 64;

    private final AtomicLong generation = new AtomicLong();
    private final Scheduler wakeups;
    private final int slices;
    /** Guards {@link #waiting}: a wake-up takes the whole set and leaves an empty one. */
    private final Object lock = new Object();
    private Set<Waiter> waiting = new HashSet<>();
    private final AtomicBoolean wakeupPending = new AtomicBoolean();
    private final Sinks.Empty<Void> closing = Sinks.empty();
    private volatile boolean closed;

    /** Wakes on Reactor's parallel scheduler. */
    public ChangeSignals() {
        this(Schedulers.parallel(), Schedulers.DEFAULT_POOL_SIZE);
    }

    /**
     * @param wakeups where wake-ups (and what the woken watchers do next) and time-outs run; must not block
     * @param slices  most parts a wake-up is split into, e.g. the scheduler's workers, {@code >= 1}
     */
    public ChangeSignals(Scheduler wakeups, int slices) {
        if (slices < 1) {
            throw new IllegalArgumentException("slices must be at least 1, was " + slices);
        }
        this.wakeups = wakeups;
        this.slices = slices;
    }

    /**
     * The generation now: read it before a read of the log, then wait {@link #after} it.
     *
     * @return a number that grows with every batch appended
     */
    public long generation() {
        return generation.get();
    }

    /** Called by the event feed's one thread after each batch of appends; returns at once. */
    public void appended() {
        generation.incrementAndGet();
        if (wakeupPending.compareAndSet(false, true)) {
            wakeups.schedule(this::wakeAll);
        }
    }

    /**
     * Completes when a batch was appended after generation {@code seen}, or when {@code max} has passed.
     *
     * @param seen the generation read before the watcher's last read
     * @param max  longest wait
     * @return {@code true} when woken by an append, {@code false} on time-out or when the instance stops
     */
    public Mono<Boolean> after(long seen, Duration max) {
        if (closed) {
            return Mono.just(false);
        }
        return Mono.create(sink -> {
            Waiter w = new Waiter(sink);
            sink.onCancel(w::dropped);
            synchronized (lock) {
                waiting.add(w);
            }
            // The set first, then the generation and the stop: an append or a close in between is seen by one or
            // the other.
            if (closed) {
                w.end(false, false);
            } else if (generation.get() != seen) {
                w.end(true, false);
            } else {
                w.timer = wakeups.schedule(() -> w.end(false, false), max.toNanos(), TimeUnit.NANOSECONDS);
                if (w.done.get()) {
                    w.timer.dispose(); // woken while the timer was being set
                }
            }
        });
    }

    /** Ends every wait, now and from now on; idempotent. */
    public void close() {
        closed = true;
        // The streams first: a server-sent stream whose wait ended would read and wait again at once, on this thread,
        // for as long as it was not told to end.
        closing.tryEmitEmpty();
        end(take(), false);
    }

    /**
     * Whether {@link #close} was called: a long-poll answers what it has instead of waiting.
     *
     * @return {@code true} once the instance is stopping
     */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Completes when the instance stops: what a server-sent stream ends with.
     *
     * @return a signal of {@link #close}
     */
    public Mono<Void> closed() {
        return closing.asMono();
    }

    /**
     * The waits registered and not yet taken by a wake-up, for tests.
     *
     * @return how many
     */
    int waiting() {
        synchronized (lock) {
            return waiting.size();
        }
    }

    /** One wake-up: every wait registered before it ends; a batch appended from here on schedules the next. */
    private void wakeAll() {
        wakeupPending.set(false); // before the take: an append after it is not lost
        Waiter[] woken = take();
        int parts = Math.max(1, Math.min(slices, woken.length / MIN_SLICE));
        for (int i = 1; i < parts; i++) {
            int from = (int) ((long) woken.length * i / parts);
            int to = (int) ((long) woken.length * (i + 1) / parts);
            wakeups.schedule(() -> end(woken, from, to, true));
        }
        end(woken, 0, woken.length / parts, true);
    }

    private Waiter[] take() {
        Set<Waiter> taken;
        synchronized (lock) {
            if (waiting.isEmpty()) {
                return new Waiter[0];
            }
            taken = waiting;
            waiting = new HashSet<>();
        }
        return taken.toArray(new Waiter[0]);
    }

    /** Ends the waits {@link #take} took. */
    private static void end(Waiter[] waiters, boolean woken) {
        end(waiters, 0, waiters.length, woken);
    }

    private static void end(Waiter[] waiters, int from, int to, boolean woken) {
        for (int i = from; i < to; i++) {
            waiters[i].end(woken, true);
        }
    }

    /** One watcher's wait. */
    private final class Waiter {
        final MonoSink<Boolean> sink;
        final AtomicBoolean done = new AtomicBoolean();
        volatile Disposable timer;

        Waiter(MonoSink<Boolean> sink) {
            this.sink = sink;
        }

        /**
         * Ends the wait once: woken, or timed out (or stopped).
         *
         * @param taken whether a wake-up (or the stop) took it off the set already
         */
        void end(boolean woken, boolean taken) {
            if (finish(taken)) {
                sink.success(woken);
            }
        }

        /** The watcher went away. */
        void dropped() {
            finish(false);
        }

        /** Marks the wait done, once: its timer stops and, unless {@code taken}, it leaves the set. */
        private boolean finish(boolean taken) {
            if (!done.compareAndSet(false, true)) {
                return false;
            }
            Disposable t = timer;
            if (t != null) {
                t.dispose();
            }
            if (!taken) {
                forget();
            }
            return true;
        }

        /** Off the set, unless a wake-up has taken it already (then the set it is in is no longer anyone's). */
        private void forget() {
            synchronized (lock) {
                waiting.remove(this);
            }
        }
    }
}
