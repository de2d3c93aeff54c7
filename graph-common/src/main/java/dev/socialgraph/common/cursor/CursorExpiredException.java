package dev.socialgraph.common.cursor;

import java.time.Duration;

/**
 * A genuine change cursor ({@link ChangeCursor}) older than what the stream still keeps: the events after it were
 * deleted by the topic's retention. Answered 410 problem+json of type {@code cursor-expired} naming {@code cursor}, with
 * the retention in its detail and as {@code retentionSeconds}: the consumer takes the head, reads the lists it needs
 * and watches from there.
 */
public final class CursorExpiredException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** How far back the stream goes. */
    private final Duration retention;

    /**
     * @param retention how far back the stream keeps events
     */
    public CursorExpiredException(Duration retention) {
        super("the cursor is older than the change stream keeps (" + describe(retention) + "): take GET /v1/changes/head,"
                + " read the lists you need, and watch from that cursor");
        this.retention = retention;
    }

    /**
     * How far back the stream keeps events.
     *
     * @return the retention
     */
    public Duration retention() {
        return retention;
    }

    private static String describe(Duration d) {
        if (d.toHours() >= 48 && d.toHoursPart() == 0 && d.toMinutesPart() == 0) {
            return d.toDays() + " days";
        }
        return d.toSeconds() + " s";
    }
}
