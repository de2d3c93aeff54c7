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
 */
public final class ChangeSignals {

    private final AtomicLong generation = new AtomicLong();
    private final Sinks.Many<Long> ticks = Sinks.many().multicast().directBestEffort();

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
        // The sink first, then the generation: an append between the two is seen by one or the other.
        return Flux.merge(ticks.asFlux(), Mono.fromSupplier(generation::get))
                .filter(g -> g != seen)
                .next()
                .map(g -> true)
                .timeout(max, Mono.just(false));
    }
}
