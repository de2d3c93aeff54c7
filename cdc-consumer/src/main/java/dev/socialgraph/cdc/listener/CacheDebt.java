package dev.socialgraph.cdc.listener;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;

/**
 * The cache updates one consumer still owes: events whose follower side is applied but whose cached
 * {@code following:{id}} set could neither be updated nor dropped (Redis down, hung or cut off). A Redis outage is a
 * cache outage (DESIGN.md 7), so it must not hold back the follower side: instead of failing the batch, the owed
 * updates are kept here and the batch goes on.
 *
 * <p>What is owed is a drop, not the update itself: {@code INVALIDATE} of a follower's set at the highest version
 * owed for it (the script raises the floor to the larger version, so order does not matter and one drop per follower
 * and partition settles all its events). Until a partition's debt is settled its offsets are not committed past the
 * first owed event ({@link #holds()}), so a crash or a rebalance reads the owed events again and the guarantee the
 * cache needs (no set survives that misses a committed version, DESIGN.md 2.3) holds across restarts too.
 *
 * <p>While something is owed and the last attempt failed, Redis is not asked again before the retry time: batches
 * then add their follow events straight to the debt instead of waiting a command timeout each, so a hung Redis does
 * not slow the follower side down. The retry interval is fixed ({@code graph.cdc.retry-backoff}), not growing: it is
 * how long a Redis that comes back with its old data may serve a set from before an owed event.
 *
 * <p>Not thread-safe: one per Kafka consumer, used on its thread.
 */
final class CacheDebt {

    /** The cache operations the debt needs: {@code CacheUpdates} in the service, a fake in tests. */
    interface Cache {
        /**
         * Updates (or, failing that, drops) the cached sets of the events.
         *
         * @return the events whose set could neither be updated nor dropped, the same instances
         */
        List<FollowEvent> apply(List<FollowEvent> events);

        /**
         * Drops the cached sets of the events and raises their version floors.
         *
         * @return the events whose set could not be dropped, the same instances
         */
        List<FollowEvent> invalidate(List<FollowEvent> events);
    }

    /**
     * One event of a batch with where it came from.
     *
     * @param partition its topic partition
     * @param offset    its record's offset
     * @param event     the event
     */
    record Owed(TopicPartition partition, long offset, FollowEvent event) {
    }

    /** What is owed for one follower in one partition: a drop at the highest version seen, from the first offset. */
    private static final class Entry {
        FollowEvent newest;
        long firstOffset;

        Entry(FollowEvent newest, long firstOffset) {
            this.newest = newest;
            this.firstOffset = firstOffset;
        }
    }

    /** Per partition, per follower id. */
    private final Map<TopicPartition, Map<Long, Entry>> owedByPartition = new HashMap<>();
    private final Cache cache;
    private final LongSupplier nanoTime;
    private final long retryNanos;
    private long retryAtNanos;
    private int owed;

    /**
     * @param cache      the cache
     * @param retryNanos how long after a failed attempt Redis is asked again, nanoseconds, positive
     * @param nanoTime   a monotonic clock in nanoseconds
     * @throws IllegalArgumentException when {@code retryNanos} is not positive
     */
    CacheDebt(Cache cache, long retryNanos, LongSupplier nanoTime) {
        if (retryNanos <= 0) {
            throw new IllegalArgumentException("retry interval must be positive, was " + retryNanos + " ns");
        }
        this.cache = cache;
        this.retryNanos = retryNanos;
        this.nanoTime = nanoTime;
    }

    /**
     * Settles what is owed if the retry time has come, then updates the caches of a batch's events: through Redis
     * when nothing is owed any more, else straight into the debt. Never throws for a Redis failure.
     *
     * @param batch the batch's valid events in stream order (blocks and mutes included; they owe nothing)
     */
    void apply(List<Owed> batch) {
        settleIfDue();
        if (batch.isEmpty()) {
            return;
        }
        if (owed > 0) {
            batch.forEach(this::owe); // Redis failed moments ago: do not wait for it again now
            return;
        }
        List<FollowEvent> events = new ArrayList<>(batch.size());
        batch.forEach(o -> events.add(o.event()));
        Set<FollowEvent> lost = identitySet(cache.apply(events));
        if (lost.isEmpty()) {
            return;
        }
        batch.stream().filter(o -> lost.contains(o.event())).forEach(this::owe);
        retryAtNanos = nanoTime.getAsLong() + retryNanos;
    }

    /**
     * Tries to drop every owed set if the retry time has come (on every batch and on the container's idle ticks).
     *
     * @return whether nothing is owed afterwards
     */
    boolean settleIfDue() {
        if (owed == 0) {
            return true;
        }
        if (nanoTime.getAsLong() - retryAtNanos < 0) {
            return false;
        }
        List<FollowEvent> events = new ArrayList<>(owed);
        owedByPartition.values().forEach(m -> m.values().forEach(e -> events.add(e.newest)));
        Set<FollowEvent> lost = identitySet(cache.invalidate(events));
        for (Iterator<Map<Long, Entry>> partitions = owedByPartition.values().iterator(); partitions.hasNext(); ) {
            Map<Long, Entry> ofPartition = partitions.next();
            int before = ofPartition.size();
            ofPartition.values().removeIf(e -> !lost.contains(e.newest));
            owed -= before - ofPartition.size();
            if (ofPartition.isEmpty()) {
                partitions.remove();
            }
        }
        if (owed > 0) {
            retryAtNanos = nanoTime.getAsLong() + retryNanos;
        }
        return owed == 0;
    }

    /** How many drops are owed: one per follower and partition with an owed follow or unfollow. */
    int owed() {
        return owed;
    }

    /**
     * Per partition with a debt, the first offset owed: the commit must not pass it.
     *
     * @return partition → offset; empty when nothing is owed
     */
    Map<TopicPartition, Long> holds() {
        Map<TopicPartition, Long> holds = new HashMap<>();
        owedByPartition.forEach((partition, ofPartition) -> ofPartition.values()
                .forEach(e -> holds.merge(partition, e.firstOffset, Math::min)));
        return holds;
    }

    /**
     * Forgets the debt of partitions this consumer no longer owns: their next owner reads them again from the
     * committed offset, which did not pass the owed events, and updates or owes their sets itself.
     */
    void forget(Collection<TopicPartition> partitions) {
        for (TopicPartition partition : partitions) {
            Map<Long, Entry> ofPartition = owedByPartition.remove(partition);
            if (ofPartition != null) {
                owed -= ofPartition.size();
            }
        }
    }

    private void owe(Owed o) {
        if (o.event().relation() != Relation.FOLLOW) {
            return; // the following cache holds follows alone
        }
        Map<Long, Entry> ofPartition = owedByPartition.computeIfAbsent(o.partition(), p -> new HashMap<>());
        Entry entry = ofPartition.get(o.event().followerId());
        if (entry == null) {
            ofPartition.put(o.event().followerId(), new Entry(o.event(), o.offset()));
            owed++;
            return;
        }
        entry.firstOffset = Math.min(entry.firstOffset, o.offset());
        if (o.event().version() > entry.newest.version()) {
            entry.newest = o.event();
        }
    }

    private static Set<FollowEvent> identitySet(List<FollowEvent> events) {
        Set<FollowEvent> set = Collections.newSetFromMap(new IdentityHashMap<>());
        set.addAll(events);
        return set;
    }
}
