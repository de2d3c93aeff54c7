package dev.socialgraph.common.keys;

/** Kafka topic names (DESIGN.md 2.4). */
public final class Topics {

    /**
     * Edge events (follows, blocks and mutes created or removed), keyed by followee id (ordered per followee), and
     * account events, keyed by the account's user; JSON values in the forms of
     * {@code dev.socialgraph.common.event.FollowEventJson}.
     */
    public static final String FOLLOW_EVENTS = "follow-events";

    /**
     * How long {@link #FOLLOW_EVENTS} keeps a record, in ms: 7 days (DESIGN.md 2.4), set on the topic where it is
     * created ({@code retention.ms}) rather than left to the broker's default, since the change stream promises it (a
     * cursor older than this is {@code cursor-expired}).
     */
    public static final long FOLLOW_EVENTS_RETENTION_MS = 7L * 24 * 60 * 60 * 1000;

    /** Dead-letter topic: events from {@link #FOLLOW_EVENTS} that could not be parsed or applied. */
    public static final String FOLLOW_EVENTS_DLT = FOLLOW_EVENTS + ".DLT";

    private Topics() {
    }
}
