package dev.socialgraph.check.changes;

import dev.socialgraph.check.changes.ChangeLog.Change;
import dev.socialgraph.common.cursor.ChangeCursor;
import dev.socialgraph.common.cursor.CursorExpiredException;
import dev.socialgraph.common.event.GraphEvent;
import dev.socialgraph.wire.Changes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Reads the change stream after a cursor: from memory ({@link ChangeLog}) when every partition of the cursor is within
 * what this instance holds, else first the partitions behind it from the topic ({@link ChangeArchive}), which also
 * tells a cursor older than the topic's retention ({@link CursorExpiredException}). Each read is bounded: at most
 * {@code limit} events and {@code maxScan} records looked at; the cursor it answers moves past every record looked at,
 * including those the filter left out, so a watcher with a narrow filter reads on in bounded steps.
 *
 * <p>An event is identified by its {@code eventId} (the write's own id, the same for a record the outbox relay
 * published twice) and positioned by a cursor (offsets), so a consumer that resumes from any cursor it was given
 * misses nothing after it and may see an event twice only when the relay published it twice.
 *
 * <p>Thread-safe. {@link #readInMemory} never blocks; {@link #read} may block on the topic when memory does not hold
 * the cursor.
 */
public final class ChangeStream {

    /**
     * What a read found.
     *
     * @param events   the events, each with the cursor just after it
     * @param next     where the next read starts
     * @param caughtUp whether the read looked at everything up to the head of this instance (an empty answer then
     *                 means there is nothing yet, not that the scan bound was reached)
     */
    public record Batch(List<Changes.Event> events, long[] next, boolean caughtUp) {
    }

    /** The stream is not served here now: the event feed has not started or has stopped. */
    public static final class UnavailableException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        UnavailableException(String message) {
            super(message);
        }
    }

    private final ChangeLog log;
    private final ChangeArchive archive;
    private final ChangeCursor cursors;
    private final int maxScan;
    private final Duration retention;

    /**
     * @param log       the recent records in memory
     * @param archive   the topic, for older cursors
     * @param cursors   the cursor codec (the key every instance shares)
     * @param maxScan   most records one read looks at, {@code >= } {@link Changes#MAX_LIMIT}
     * @param retention how far back the topic keeps records, as a 410 states it
     */
    public ChangeStream(ChangeLog log, ChangeArchive archive, ChangeCursor cursors, int maxScan, Duration retention) {
        this.log = log;
        this.archive = archive;
        this.cursors = cursors;
        this.maxScan = maxScan;
        this.retention = retention;
    }

    /**
     * The position now.
     *
     * @return for each partition, the next offset this instance's feed reads
     * @throws UnavailableException when the feed is not running
     */
    public long[] head() {
        requireServing();
        return log.head();
    }

    /**
     * Encodes a position as the opaque cursor clients get.
     *
     * @param position by partition number
     * @return the cursor
     */
    public String encode(long[] position) {
        return cursors.encode(position);
    }

    /**
     * Decodes a client's cursor.
     *
     * @param cursor any string
     * @return the position
     * @throws dev.socialgraph.common.cursor.InvalidCursorException when it is not a genuine change cursor
     */
    public long[] decode(String cursor) {
        return cursors.decode(cursor);
    }

    /**
     * Reads after a position from memory alone: what {@link #read} answers when every partition of the position is
     * within what memory holds, decided atomically with the read. Never blocks: for the server's I/O threads.
     *
     * @param position by partition number, the next offset to read
     * @param filter   which events to return (called under the log's lock: it must not block)
     * @param limit    most events, {@code 1..}{@link Changes#MAX_LIMIT}
     * @return the events and the next position, or {@code null} when memory does not hold the position (or the feed
     *         is not running): then {@link #read} it where blocking is allowed
     */
    public Batch readInMemory(long[] position, Predicate<GraphEvent> filter, int limit) {
        if (!log.serving()) {
            return null;
        }
        ChangeLog.Read read = log.read(position, filter, limit, maxScan);
        if (read == null) {
            return null;
        }
        List<Changes.Event> events = new ArrayList<>(read.changes().length);
        for (int i = 0; i < read.changes().length; i++) {
            events.add(event(read.changes()[i].event(), read.after()[i]));
        }
        return new Batch(events, read.next(), read.atHead());
    }

    /**
     * Reads after a position: from memory when it holds every partition of the position, else first the partitions
     * behind it from the topic.
     *
     * @param position by partition number, the next offset to read; partitions it does not name start at offset 0
     * @param filter   which events to return (called under the log's lock: it must not block)
     * @param limit    most events, {@code 1..}{@link Changes#MAX_LIMIT}
     * @return the events and the next position
     * @throws UnavailableException                           when the feed is not running
     * @throws CursorExpiredException                         when a partition's offset is older than the topic keeps
     * @throws ChangeArchive.ChangeArchiveUnavailableException when the topic must be read and cannot be
     */
    public Batch read(long[] position, Predicate<GraphEvent> filter, int limit) {
        requireServing();
        Batch inMemory = readInMemory(position, filter, limit);
        if (inMemory != null) {
            return inMemory;
        }
        // Coverage only moves forward: a partition memory refused is still behind it now.
        long[] covered = log.coveredFrom();
        long[] from = new long[covered.length];
        for (int p = 0; p < covered.length; p++) {
            from[p] = p < position.length ? position[p] : 0;
        }
        return fromArchive(from, covered, filter, limit);
    }

    /** The partitions behind memory, from the topic up to where memory starts; the others wait for the next read. */
    private Batch fromArchive(long[] from, long[] covered, Predicate<GraphEvent> filter, int limit) {
        int partitions = from.length;
        long[] earliest = archive.earliest(partitions);
        long[] until = from.clone();
        for (int p = 0; p < partitions; p++) {
            if (from[p] < covered[p]) {
                if (from[p] < earliest[p]) {
                    throw new CursorExpiredException(retention);
                }
                until[p] = covered[p];
            }
        }
        ChangeArchive.Slice slice = archive.read(from, until, Math.min(maxScan, Math.max(limit, 500)));
        long[] position = from.clone();
        List<Changes.Event> events = new ArrayList<>();
        for (Change change : slice.changes()) {
            position[change.partition()] = change.offset() + 1;
            if (events.size() < limit && filter.test(change.event())) {
                events.add(event(change.event(), position.clone()));
            } else if (events.size() >= limit) {
                position[change.partition()] = change.offset(); // not looked at: the next read starts here
                break;
            }
        }
        boolean cut = events.size() >= limit;
        for (int p = 0; p < partitions && !cut; p++) {
            position[p] = Math.max(position[p], slice.reached()[p]);
        }
        return new Batch(events, position, false);
    }

    /** The wire form of a change; the cursor is the position just after it. */
    private Changes.Event event(GraphEvent e, long[] after) {
        return new Changes.Event(e.eventId(), cursors.encode(after), e.kind(), e.actorId(), e.targetId(),
                e.occurredAt(), e.version());
    }

    private void requireServing() {
        if (!log.serving()) {
            throw new UnavailableException("the change stream is not served by this instance now: its event feed is"
                    + " not running");
        }
    }

    private static long at(long[] position, int partition) {
        return partition < position.length ? position[partition] : 0;
    }
}
