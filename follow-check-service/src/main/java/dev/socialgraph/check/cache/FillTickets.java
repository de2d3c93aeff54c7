package dev.socialgraph.check.cache;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The fill tickets of an in-process cache that events keep current: the answer to the fill/invalidate race, in one
 * home for {@link LocalFollowingCache} and {@link FollowerSideCache}. A fill takes a {@link #ticket} before it reads
 * what it will cache, and may cache it only if the ticket is still {@link #valid} when it puts; every event (and every
 * invalidation) {@link #bump}s the ticket of its key first. So a row read before an event is never cached after it.
 *
 * <p>Tickets are {@value #STRIPES} counters indexed by a Fibonacci hash of the key (consecutive ids spread over
 * them): two keys sharing a stripe only refuse each other's fills (the next miss fills again), never admit a stale one.
 * Thread-safe.
 */
final class FillTickets {

    /** Number of stripes; a power of two. */
    static final int STRIPES = 1 << 16;

    private final AtomicLongArray stripes = new AtomicLongArray(STRIPES);

    /**
     * @param key a user id
     * @return the key's ticket now
     */
    long ticket(long key) {
        return stripes.get(stripe(key));
    }

    /**
     * @param key    a user id
     * @param ticket from {@link #ticket}
     * @return whether no event of the key's stripe came since the ticket was taken
     */
    boolean valid(long key, long ticket) {
        return stripes.get(stripe(key)) == ticket;
    }

    /**
     * Refuses the fills in flight of the key's stripe: call before applying an event or dropping an entry.
     *
     * @param key a user id
     */
    void bump(long key) {
        stripes.incrementAndGet(stripe(key));
    }

    /** Refuses every fill in flight. */
    void bumpAll() {
        for (int i = 0; i < STRIPES; i++) {
            stripes.incrementAndGet(i);
        }
    }

    private static int stripe(long key) {
        long h = key * 0x9E3779B97F4A7C15L; // Fibonacci hashing: consecutive ids spread over the stripes
        return (int) (h >>> 48) & (STRIPES - 1);
    }
}
