package dev.socialgraph.common.event;

/**
 * One record of {@code follow-events}: a change of an edge ({@link FollowEvent}) or of an account's state
 * ({@link AccountEvent}), both written by the write service's outbox in the transaction of the change and published in
 * commit order per key; or an account job's announcement that follower counts moved ({@link RecountEvent}), published
 * by the job itself after the change. A consumer of edges reads {@link FollowEventJson#parse} and skips what is not a
 * {@link FollowEvent}; the change stream serves edge and account changes, never a recount.
 */
public sealed interface GraphEvent permits FollowEvent, AccountEvent, RecountEvent {

    /**
     * The change's stable, unique id: the same for a record the outbox relay publishes again.
     *
     * @return e.g. {@code "42-7"}
     */
    String eventId();

    /**
     * The kind of change by its wire name.
     *
     * @return one of {@code follow, unfollow, block, unblock, mute, unmute, request, unrequest, deactivate, reactivate,
     *         erase, protect, unprotect, recount}
     */
    String kind();

    /**
     * Who made the change: the follower, blocker or muter of an edge; the account's user for an account change.
     *
     * @return a positive user id
     */
    long actorId();

    /**
     * Whom an edge change concerns: the followee, blocked or muted user.
     *
     * @return a positive user id, or {@code 0} for an account change, which concerns its user alone
     */
    long targetId();

    /**
     * The version after the change: of the actor's row of the edge's relation, or of the account's state (for a
     * recount, the state the job carries out).
     *
     * @return {@code >= 1}
     */
    long version();

    /**
     * When the change was committed.
     *
     * @return epoch ms
     */
    long occurredAt();

    /**
     * The record's Kafka key on {@code follow-events}, as a decimal string of this id: the followee of an edge change
     * (so the changes of one pair, and of every follower of one user, share a partition in commit order), the user of
     * an account change.
     *
     * @return a positive user id
     */
    long partitionKey();

    /**
     * Whether the change stream serves this event ({@code GET /v1/changes}): a change of an edge or an account is a
     * change of the graph; a recount is only an announcement that counts moved.
     *
     * @return {@code true} but for a {@link RecountEvent}
     */
    default boolean isChange() {
        return true;
    }

    /**
     * Checks the id and version every event's constructor is given.
     *
     * @param eventId the event's id
     * @param version the event's version
     * @throws IllegalArgumentException if {@code eventId} is {@code null} or empty, or {@code version < 1}
     */
    static void requireIdAndVersion(String eventId, long version) {
        if (eventId == null || eventId.isEmpty()) {
            throw new IllegalArgumentException("eventId must not be null or empty");
        }
        if (version < 1) {
            throw new IllegalArgumentException("version must be >= 1, was " + version);
        }
    }
}
