package dev.socialgraph.check.changes;

import dev.socialgraph.common.event.GraphEvent;
import java.util.Arrays;
import java.util.function.Predicate;

/**
 * The recent tail of {@code follow-events} in memory, from which the change stream serves its watchers: one ring per
 * partition of the records this instance's event feed consumed since it started, each with the partition's offset and
 * a sequence number of arrival, up to a bound of records per partition. It holds no watcher: a watcher is a cursor
 * (the next offset per partition), and reading after it is a merge of the rings by arrival, so a thousand watchers at
 * the tail cost the records once.
 *
 * <p><b>Coverage.</b> Partition {@code p} is covered from {@link #coveredFrom}{@code [p]}: every record of it at or
 * after that offset and before the consumed position is in its ring. A cursor behind the coverage of a partition
 * (older than this process, or than the ring's bound) is read from the topic instead ({@link ChangeArchive}).
 *
 * <p>One thread appends (the event feed); any number read. Reads copy what they return; the lock is held for a read's
 * bounded scan ({@code maxScan} records), never while anything is written to a client.
 */
public final class ChangeLog {

    /** One record of the log. */
    public record Change(int partition, long offset, long sequence, GraphEvent event) {
    }

    /**
     * What a read found.
     *
     * @param changes the records that passed the filter, in arrival order, each with the cursor just after it
     * @param after   for each change, the position just after it (aligned with {@code changes})
     * @param next    the position after everything scanned: the records the filter skipped are behind it too
     * @param atHead  whether the scan ended because no record was left (not at a bound)
     */
    public record Read(Change[] changes, long[][] after, long[] next, boolean atHead) {
    }

    private final int capacity;
    private volatile boolean started;
    private volatile boolean stale;
    private long sequence;
    private Ring[] rings = new Ring[0];
    /** Notified (outside the lock) after each batch of appends. */
    private volatile Runnable onAppend = () -> { };

    /**
     * @param capacity records kept per partition, {@code >= 1}: memory is about 250 bytes a record
     */
    public ChangeLog(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
    }

    /**
     * Sets what runs after each batch of appends ({@link #appended}): the stream's wake-up of waiting watchers.
     *
     * @param listener runs on the feed's thread; must not block
     */
    public void onAppend(Runnable listener) {
        this.onAppend = listener;
    }

    /**
     * Starts coverage: the event feed is positioned at {@code positions} and will append every record from there.
     *
     * @param positions for each partition, by number, the next offset the feed reads
     */
    public synchronized void start(long[] positions) {
        rings = new Ring[positions.length];
        for (int p = 0; p < positions.length; p++) {
            rings[p] = new Ring(capacity, positions[p]);
        }
        stale = false;
        started = true;
    }

    /**
     * Appends a record the feed consumed. Records of one partition come in offset order.
     *
     * @param partition its partition, {@code < } the partitions of {@link #start}
     * @param offset    its offset
     * @param event     the parsed event
     */
    public synchronized void append(int partition, long offset, GraphEvent event) {
        rings[partition].add(new Change(partition, offset, sequence++, event));
    }

    /**
     * The feed's positions after a poll: offsets that held no event (transaction markers, records it could not
     * parse) are covered too.
     *
     * @param partition a partition
     * @param position  the next offset the feed reads in it
     */
    public synchronized void advance(int partition, long position) {
        rings[partition].advance(position);
    }

    /** Wakes the watchers after a batch of appends and advances; call on the feed's thread, outside any lock. */
    public void appended() {
        onAppend.run();
    }

    /**
     * Stops coverage when the feed stopped: every read then goes to the topic.
     */
    public void markStale() {
        stale = true;
    }

    /**
     * Whether the log serves reads: started and its feed running.
     *
     * @return {@code false} before {@link #start} and after {@link #markStale}
     */
    public boolean serving() {
        return started && !stale;
    }

    /**
     * The position now: for each partition, the next offset the feed reads.
     *
     * @return the positions, by partition number; empty before {@link #start}
     */
    public synchronized long[] head() {
        long[] head = new long[rings.length];
        for (int p = 0; p < rings.length; p++) {
            head[p] = rings[p].position;
        }
        return head;
    }

    /**
     * The first offset of each partition the log holds every record from.
     *
     * @return by partition number
     */
    public synchronized long[] coveredFrom() {
        long[] from = new long[rings.length];
        for (int p = 0; p < rings.length; p++) {
            from[p] = rings[p].coveredFrom;
        }
        return from;
    }

    /**
     * Reads after a position: the records of every partition at or after the cursor's offset, merged in arrival order,
     * those passing {@code filter}, until {@code limit} have passed or {@code maxScan} records were looked at.
     *
     * @param cursor  for each partition, the next offset to read (a longer cursor's extra partitions are ignored, a
     *                shorter one's missing partitions read from offset 0)
     * @param filter  which records to return
     * @param limit   at most this many, {@code >= 1}
     * @param maxScan at most this many records looked at, {@code >= limit}
     * @return what passed, and the position after everything looked at; {@code null} when a partition of the cursor
     *         is behind what memory holds, decided under the same lock as the read (the feed may push a record out
     *         at any moment, so no check made before the call could promise it)
     */
    public synchronized Read read(long[] cursor, Predicate<GraphEvent> filter, int limit, int maxScan) {
        int n = rings.length;
        long[] position = new long[n];
        int[] index = new int[n];
        for (int p = 0; p < n; p++) {
            Ring ring = rings[p];
            long from = p < cursor.length ? cursor[p] : 0;
            if (from < ring.coveredFrom) {
                return null;
            }
            position[p] = from; // a cursor ahead of this feed (another instance's) stays where it is
            index[p] = ring.firstAtOrAfter(from);
        }
        Change[] found = new Change[Math.min(limit, 64)];
        long[][] after = new long[found.length][];
        int count = 0;
        boolean atHead = false;
        for (int scanned = 0; scanned < maxScan && count < limit; scanned++) {
            int best = -1;
            long bestSequence = Long.MAX_VALUE;
            for (int p = 0; p < n; p++) {
                Change c = rings[p].at(index[p]);
                if (c != null && c.sequence() < bestSequence) {
                    best = p;
                    bestSequence = c.sequence();
                }
            }
            if (best < 0) {
                atHead = true;
                break;
            }
            Change c = rings[best].at(index[best]++);
            position[best] = c.offset() + 1;
            if (filter.test(c.event())) {
                if (count == found.length) {
                    found = Arrays.copyOf(found, Math.min(limit, count * 2));
                    after = Arrays.copyOf(after, found.length);
                }
                found[count] = c;
                after[count++] = position.clone();
            }
        }
        for (int p = 0; p < n; p++) {
            if (rings[p].at(index[p]) == null) {
                position[p] = Math.max(position[p], rings[p].position); // nothing left: up to the feed's position
            }
        }
        if (!atHead) { // a bound stopped the scan: is anything left?
            atHead = true;
            for (int p = 0; p < n && atHead; p++) {
                atHead = rings[p].at(index[p]) == null;
            }
        }
        return new Read(Arrays.copyOf(found, count), Arrays.copyOf(after, count), position, atHead);
    }

    /** One partition's records in offset order: a circular array of at most {@code capacity}. */
    private static final class Ring {
        final Change[] slots;
        int start;
        int size;
        /** Every record at or after this offset and before {@link #position} is held. */
        long coveredFrom;
        /** The next offset the feed reads. */
        long position;

        Ring(int capacity, long position) {
            this.slots = new Change[capacity];
            this.coveredFrom = position;
            this.position = position;
        }

        void add(Change c) {
            if (size == slots.length) {
                coveredFrom = slots[start].offset() + 1; // the oldest goes: coverage starts after it
                slots[start] = null;
                start = (start + 1) % slots.length;
                size--;
            }
            slots[(start + size) % slots.length] = c;
            size++;
            position = Math.max(position, c.offset() + 1);
        }

        void advance(long next) {
            position = Math.max(position, next);
        }

        /** The i-th held record, oldest first, or {@code null} past the newest. */
        Change at(int i) {
            return i < size ? slots[(start + i) % slots.length] : null;
        }

        /** The index of the first held record at or after {@code offset} (binary search: offsets ascend). */
        int firstAtOrAfter(long offset) {
            int lo = 0;
            int hi = size;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (at(mid).offset() < offset) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }
}
