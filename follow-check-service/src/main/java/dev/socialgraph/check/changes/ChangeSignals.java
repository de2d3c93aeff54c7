package dev.socialgraph.check.changes;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Wakes the watchers that wait for the next record: the event feed calls {@link #appended} after each batch it put
 * into the {@link ChangeLog}, and a watcher waits with {@link #after}. A generation number closes the race between a
 * watcher's last read and its wait: a batch appended in between is seen at once. No watcher is held here beyond its
 * subscription; one that goes away costs nothing.
 *
 * <p>On shutdown ({@link #close}, before the server's graceful shutdown waits for requests to end) every wait ends at
 * once and {@link #closed} completes: a server-sent stream never ends by itself, so without this every open one would
 * hold the instance's stop for the whole shutdown timeout. Its client reconnects, to another instance, from its last
 * event id.
 */
public final class ChangeSignals {

    private final AtomicLong generation = new AtomicLong();
    private final Sinks.Many<Long> ticks = Sinks.many().multicast().directBestEffort();
    private final Sinks.Empty<Void> closing = Sinks.empty();
    private volatile boolean closed;

    /**
     * The generation now: read it before a read of the log, then wait {@link #after} it.
     *
     * @return a number that grows with every batch appended
     */
    public long generation() {
        return generation.get();
    }

    /** Called by the event feed's one thread after each batch of appends. */
    public void appended() {
        ticks.tryEmitNext(generation.incrementAndGet()); // no subscriber, or one without demand: nothing to wake
    }

    /**
     * Completes when a batch was appended after generation {@code seen}, or when {@code max} has passed.
     *
     * @param seen the generation read before the watcher's last read
     * @param max  longest wait
     * @return {@code true} when woken by an append, {@code false} on time-out
     */
    public Mono<Boolean> after(long seen, Duration max) {
        if (closed) {
            return Mono.just(false);
        }
        // The sink first, then the generation: an append between the two is seen by one or the other.
        return Flux.merge(ticks.asFlux(), Mono.fromSupplier(generation::get))
                .filter(g -> g != seen)
                .next()
                .map(g -> true)
                .timeout(max, Mono.just(false))
                .takeUntilOther(closing.asMono())
                .defaultIfEmpty(false);
    }

    /** Ends every wait, now and from now on; idempotent. */
    public void close() {
        closed = true;
        closing.tryEmitEmpty();
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
}
