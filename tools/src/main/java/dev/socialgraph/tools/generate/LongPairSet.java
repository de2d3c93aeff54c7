package dev.socialgraph.tools.generate;

/**
 * An open-addressing hash set of (long, long) pairs, for de-duplicating generated edges without boxing
 * (linear probing; load factor at most 1/2). Not thread-safe.
 */
final class LongPairSet {

    private long[] firsts;
    private long[] seconds;
    private boolean[] used;
    private int size;

    LongPairSet(int expected) {
        int capacity = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        firsts = new long[capacity];
        seconds = new long[capacity];
        used = new boolean[capacity];
    }

    /** Adds the pair; returns {@code false} when it was already present. */
    boolean add(long first, long second) {
        if (2 * (size + 1) > used.length) {
            grow();
        }
        int mask = used.length - 1;
        int i = (int) mix(first, second) & mask;
        while (used[i]) {
            if (firsts[i] == first && seconds[i] == second) {
                return false;
            }
            i = (i + 1) & mask;
        }
        used[i] = true;
        firsts[i] = first;
        seconds[i] = second;
        size++;
        return true;
    }

    int size() {
        return size;
    }

    private void grow() {
        long[] f = firsts;
        long[] s = seconds;
        boolean[] u = used;
        firsts = new long[f.length * 2];
        seconds = new long[f.length * 2];
        used = new boolean[f.length * 2];
        size = 0;
        for (int i = 0; i < u.length; i++) {
            if (u[i]) {
                add(f[i], s[i]);
            }
        }
    }

    private static long mix(long a, long b) {
        long h = a * 0x9E3779B97F4A7C15L + b;
        h ^= h >>> 32;
        h *= 0xD6E8FEB86659FD93L;
        return h ^ (h >>> 32);
    }
}
