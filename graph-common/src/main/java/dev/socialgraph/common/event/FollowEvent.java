package dev.socialgraph.common.event;

import dev.socialgraph.common.id.UserIds;

/**
 * A change of one edge, as published to Kafka {@code follow-events} by the write service's outbox
 * relay (DESIGN.md 2.4, 3). The Kafka key is {@link #followeeId()}, so events of one followee arrive in
 * order; delivery is at least once and every consumer is idempotent.
 *
 * @param eventId    stable, unique id of the change: {@code followerId + "-" + version} (see
 *                   {@link #eventId(long, long)}); the same change republished has the same id
 * @param type       follow or unfollow
 * @param followerId the user who follows (or stops following), positive
 * @param followeeId the user followed, positive, not {@code followerId}
 * @param followedAt epoch ms when the edge was created; for an {@link Type#UNFOLLOW}, the creation time
 *                   of the edge that was removed, which locates it in the time-ordered follower row
 * @param version    the follower's following-row version after this change, {@code >= 1}; consumers
 *                   compare it with their cached version (DESIGN.md 2.3)
 * @param occurredAt epoch ms when the change was committed
 */
public record FollowEvent(String eventId, Type type, long followerId, long followeeId, long followedAt,
        long version, long occurredAt) {

    /** The kind of change; its JSON form is {@link #wireName()}. */
    public enum Type {
        /** An edge was created. */
        FOLLOW("follow"),
        /** An edge was removed. */
        UNFOLLOW("unfollow");

        private final String wireName;

        Type(String wireName) {
            this.wireName = wireName;
        }

        /**
         * The value of the JSON {@code type} field.
         *
         * @return {@code "follow"} or {@code "unfollow"}
         */
        public String wireName() {
            return wireName;
        }
    }

    /**
     * Validates the event; a violation is a bug in the producer or a corrupt record.
     *
     * @throws IllegalArgumentException if {@code eventId} or {@code type} is {@code null}, {@code eventId} is
     *                                  empty, an id is not positive, {@code followerId == followeeId}, or
     *                                  {@code version < 1}
     */
    public FollowEvent {
        if (eventId == null || eventId.isEmpty()) {
            throw new IllegalArgumentException("eventId must not be null or empty");
        }
        if (type == null) {
            throw new IllegalArgumentException("type must not be null");
        }
        UserIds.requirePositive(followerId, "followerId");
        UserIds.requirePositive(followeeId, "followeeId");
        if (followerId == followeeId) {
            throw new IllegalArgumentException("followerId and followeeId must differ, both are " + followerId);
        }
        if (version < 1) {
            throw new IllegalArgumentException("version must be >= 1, was " + version);
        }
    }

    /**
     * A follow event with the conventional {@link #eventId(long, long)}.
     *
     * @param followerId the user who follows, positive
     * @param followeeId the user followed, positive, not {@code followerId}
     * @param followedAt the new edge's creation time, epoch ms
     * @param version    the following row's version after the change, {@code >= 1}
     * @param occurredAt commit time, epoch ms
     * @return the event
     * @throws IllegalArgumentException as the canonical constructor
     */
    public static FollowEvent follow(long followerId, long followeeId, long followedAt, long version,
            long occurredAt) {
        return of(Type.FOLLOW, followerId, followeeId, followedAt, version, occurredAt);
    }

    /**
     * An unfollow event with the conventional {@link #eventId(long, long)}.
     *
     * @param followerId the user who stops following, positive
     * @param followeeId the user no longer followed, positive, not {@code followerId}
     * @param followedAt creation time (epoch ms) of the removed edge, e.g.
     *                   {@code Adjacency.removedFollowedAt()} of the following-row removal
     * @param version    the following row's version after the change, {@code >= 1}
     * @param occurredAt commit time, epoch ms
     * @return the event
     * @throws IllegalArgumentException as the canonical constructor
     */
    public static FollowEvent unfollow(long followerId, long followeeId, long followedAt, long version,
            long occurredAt) {
        return of(Type.UNFOLLOW, followerId, followeeId, followedAt, version, occurredAt);
    }

    /**
     * An event of either type with the conventional {@link #eventId(long, long)}.
     *
     * @param type       follow or unfollow
     * @param followerId the follower, positive
     * @param followeeId the followee, positive, not {@code followerId}
     * @param followedAt the edge's creation time, epoch ms (for an unfollow: of the removed edge)
     * @param version    the following row's version after the change, {@code >= 1}
     * @param occurredAt commit time, epoch ms
     * @return the event
     * @throws IllegalArgumentException as the canonical constructor
     */
    public static FollowEvent of(Type type, long followerId, long followeeId, long followedAt, long version,
            long occurredAt) {
        return new FollowEvent(eventId(followerId, version), type, followerId, followeeId, followedAt, version,
                occurredAt);
    }

    /**
     * The event id convention: {@code followerId + "-" + version}. Unique because each change of a
     * following row increments its version, and stable because a republished outbox row carries the same
     * pair.
     *
     * @param followerId the follower
     * @param version    the following row's version after the change
     * @return e.g. {@code "42-7"}
     */
    public static String eventId(long followerId, long version) {
        return followerId + "-" + version;
    }

    /**
     * Whether the edge was created rather than removed.
     *
     * @return whether this is a {@link Type#FOLLOW}
     */
    public boolean isFollow() {
        return type == Type.FOLLOW;
    }
}
