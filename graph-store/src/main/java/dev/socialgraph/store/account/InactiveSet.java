package dev.socialgraph.store.account;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A set of positive user ids for one writer and any number of readers that never lock: open addressing with linear
 * probing over a {@code long[]} whose slots are read with acquire and written with release semantics, so a reader
 * sees a slot either before or after a change, never torn. {@code 0} marks a free slot and {@code -1} a removed one
 * (ids are positive). Occupied and removed slots together stay below two thirds of the table, so every probe ends at a
 * free slot; past that the writer builds a new table (at least two slots per live id, removed slots dropped) and publishes it
 * with a volatile write. A reader holding the old table answers from it; it is at most one change behind.
 *
 * <p>Memory: 8 bytes per slot, 1.5 to 4 slots per id (4 just after a rebuild that doubled the table, 1.5 just before
 * the next), so 12 to 32 bytes per id (docs/capacity.md).
 * A lookup hashes once (Fibonacci hashing) and reads one cache line in the common case.
 *
 * <p>{@link #add} and {@link #remove} must be called by one thread at a time (the view's feed); {@link #contains},
 * {@link #size} and {@link #isEmpty} by any thread.
 */
final class InactiveSet {

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final long FREE = 0;
    private static final long REMOVED = -1;
    private static final int MIN_CAPACITY = 16;

    private volatile long[] table = new long[MIN_CAPACITY];
    private volatile int size;
    /** Occupied plus removed slots of {@link #table}; writer only. */
    private int used;

    /** Whether the set has no id; one volatile read. */
    boolean isEmpty() {
        return size == 0;
    }

    /** The number of ids held. */
    int size() {
        return size;
    }

    /**
     * Whether {@code id} is in the set.
     *
     * @param id any value; only positive ids are ever held
     * @return whether it is held
     */
    boolean contains(long id) {
        if (id <= 0) {
            return false;
        }
        long[] t = table;
        int mask = t.length - 1;
        for (int i = slot(id, mask); ; i = (i + 1) & mask) {
            long v = (long) SLOT.getAcquire(t, i);
            if (v == id) {
                return true;
            }
            if (v == FREE) {
                return false;
            }
        }
    }

    /**
     * Adds {@code id}; writer thread only.
     *
     * @param id positive
     * @return whether it was not held before
     * @throws IllegalArgumentException when {@code id <= 0}
     */
    boolean add(long id) {
        if (id <= 0) {
            throw new IllegalArgumentException("id must be a positive user id, was " + id);
        }
        if (contains(id)) {
            return false;
        }
        if ((used + 1) * 3L > table.length * 2L) {
            rebuild(size + 1);
        }
        long[] t = table;
        int mask = t.length - 1;
        int i = slot(id, mask);
        while (true) {
            long v = t[i];
            if (v == FREE || v == REMOVED) {
                if (v == FREE) {
                    used++;
                }
                SLOT.setRelease(t, i, id);
                size = size + 1;
                return true;
            }
            i = (i + 1) & mask;
        }
    }

    /**
     * Removes {@code id}; writer thread only. Its slot becomes a removed marker, which probes pass over.
     *
     * @param id any value
     * @return whether it was held
     */
    boolean remove(long id) {
        if (id <= 0) {
            return false;
        }
        long[] t = table;
        int mask = t.length - 1;
        for (int i = slot(id, mask); ; i = (i + 1) & mask) {
            long v = t[i];
            if (v == id) {
                SLOT.setRelease(t, i, REMOVED);
                size = size - 1;
                return true;
            }
            if (v == FREE) {
                return false;
            }
        }
    }

    /** A table for {@code need} ids at most half full, filled from the current one, then published. */
    private void rebuild(int need) {
        int capacity = MIN_CAPACITY;
        while (capacity < need * 2L) {
            capacity <<= 1;
        }
        long[] old = table;
        long[] next = new long[capacity];
        int mask = capacity - 1;
        int live = 0;
        for (long v : old) {
            if (v > 0) {
                int i = slot(v, mask);
                while (next[i] != FREE) {
                    i = (i + 1) & mask;
                }
                next[i] = v;
                live++;
            }
        }
        used = live;
        table = next; // volatile write: publishes every slot written above
    }

    /** Fibonacci hashing: the multiplication's high bits, which depend on every bit of the id. */
    private static int slot(long id, int mask) {
        return (int) ((id * 0x9E3779B97F4A7C15L) >>> 32) & mask;
    }
}
