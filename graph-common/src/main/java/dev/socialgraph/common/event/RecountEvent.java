package dev.socialgraph.common.event;

import dev.socialgraph.common.id.UserIds;
import java.util.Arrays;

/**
 * The follower counts of some users moved without an edge event: an account job (docs/account-lifecycle.md) took
 * {@link #userId()}, deactivated or erased, out of the visible follower count of each of {@link #followeeIds()}, or,
 * reactivated, put it back. Published on {@code follow-events} by the job after each batch's changes committed and
 * before the batch is recorded as done, so every committed move is announced at least once (a batch done again after
 * a crash is announced again). A cache of follower counts drops those users' counts when it reads one
 * (docs/decisions/0066-recounts-announced-by-account-jobs.md); no other consumer acts on it, and the change stream does
 * not serve it (it is no change of an edge or an account, only of what counts show).
 *
 * @param eventId     {@link #eventId(long, long, long)}: the same for a batch announced again
 * @param userId      the account whose job moved the counts, positive
 * @param version     the account state's version the job carries out, {@code >= 1}
 * @param followeeIds the users whose follower counts moved: positive, ascending, distinct, 1 to {@value #MAX_USERS}
 * @param occurredAt  epoch ms when the batch committed
 */
public record RecountEvent(String eventId, long userId, long version, long[] followeeIds, long occurredAt)
        implements GraphEvent {

    /** The most users one event names: twice an account job's largest batch (500). */
    public static final int MAX_USERS = 1_000;

    /** The value of the JSON {@code type} field. */
    public static final String KIND = "recount";

    /**
     * Validates the event; {@code followeeIds} is copied.
     *
     * @throws IllegalArgumentException if {@code eventId} is {@code null} or empty, {@code userId} is not positive,
     *                                  {@code version < 1}, or {@code followeeIds} is {@code null}, empty, longer
     *                                  than {@value #MAX_USERS}, or not positive, ascending and distinct
     */
    public RecountEvent {
        GraphEvent.requireIdAndVersion(eventId, version);
        UserIds.requirePositive(userId, "userId");
        if (followeeIds == null || followeeIds.length == 0 || followeeIds.length > MAX_USERS) {
            throw new IllegalArgumentException("followeeIds must hold 1 to " + MAX_USERS + " ids, held "
                    + (followeeIds == null ? "none" : followeeIds.length));
        }
        followeeIds = followeeIds.clone();
        for (int i = 0; i < followeeIds.length; i++) {
            UserIds.requirePositive(followeeIds[i], "followeeIds[" + i + "]");
            if (i > 0 && followeeIds[i] <= followeeIds[i - 1]) {
                throw new IllegalArgumentException("followeeIds must be ascending and distinct, were not at " + i);
            }
        }
    }

    /**
     * An event with the conventional {@link #eventId(long, long, long)}.
     *
     * @param userId      the account whose job moved the counts, positive
     * @param version     the account state's version the job carries out, {@code >= 1}
     * @param followeeIds positive, ascending, distinct, 1 to {@value #MAX_USERS}
     * @param occurredAt  epoch ms
     * @return the event
     * @throws IllegalArgumentException as the canonical constructor
     */
    public static RecountEvent of(long userId, long version, long[] followeeIds, long occurredAt) {
        return new RecountEvent(eventId(userId, version, followeeIds.length == 0 ? 0 : followeeIds[0]), userId,
                version, followeeIds, occurredAt);
    }

    /**
     * The event id convention: {@code userId + "-account-" + version + "-recount-" + firstFolloweeId}, distinct from
     * every edge and account event's id; a job walks each followee once per state change, in ascending order, so its
     * batches start at distinct ids, and a batch announced again after a crash starts where it started before.
     *
     * @param userId          the account's user
     * @param version         the state's version
     * @param firstFolloweeId the batch's first followee
     * @return e.g. {@code "42-account-3-recount-9"}
     */
    public static String eventId(long userId, long version, long firstFolloweeId) {
        return userId + "-account-" + version + "-recount-" + firstFolloweeId;
    }

    /** The ids; a copy. */
    @Override
    public long[] followeeIds() {
        return followeeIds.clone();
    }

    /**
     * One of the users named, without copying the ids.
     *
     * @param i index into {@link #followeeIds()}
     * @return the id at {@code i}
     */
    public long followeeId(int i) {
        return followeeIds[i];
    }

    /**
     * The number of users named.
     *
     * @return 1 to {@value #MAX_USERS}
     */
    public int size() {
        return followeeIds.length;
    }

    @Override
    public String kind() {
        return KIND;
    }

    /** No change of an edge or an account, only of what counts show: the change stream does not serve it. */
    @Override
    public boolean isChange() {
        return false;
    }

    @Override
    public long actorId() {
        return userId;
    }

    /** A recount names many users: {@code 0}. */
    @Override
    public long targetId() {
        return 0;
    }

    /** The account's user, as its account events: the job's announcements follow its state change in order. */
    @Override
    public long partitionKey() {
        return userId;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RecountEvent other && eventId.equals(other.eventId) && userId == other.userId
                && version == other.version && occurredAt == other.occurredAt
                && Arrays.equals(followeeIds, other.followeeIds);
    }

    @Override
    public int hashCode() {
        return eventId.hashCode() * 31 + Arrays.hashCode(followeeIds);
    }

    @Override
    public String toString() {
        return "RecountEvent[eventId=" + eventId + ", userId=" + userId + ", version=" + version + ", followeeIds="
                + followeeIds.length + " ids, occurredAt=" + occurredAt + "]";
    }
}
