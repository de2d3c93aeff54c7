package dev.socialgraph.common.keys;

/** Kafka topic names (DESIGN.md 2.4). */
public final class Topics {

    /**
     * Follow and unfollow events, keyed by followee id (ordered per followee), JSON values in the form
     * of {@code dev.socialgraph.common.event.FollowEventJson}.
     */
    public static final String FOLLOW_EVENTS = "follow-events";

    /** Dead-letter topic: events from {@link #FOLLOW_EVENTS} that could not be parsed or applied. */
    public static final String FOLLOW_EVENTS_DLT = FOLLOW_EVENTS + ".DLT";

    private Topics() {
    }
}
