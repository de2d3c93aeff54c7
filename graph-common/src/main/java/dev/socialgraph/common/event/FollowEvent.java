package dev.socialgraph.common.event;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.relation.Relation;

/**
 * A change of one edge, as published to Kafka {@code follow-events} by the write service's outbox
 * relay (DESIGN.md 2.4, 3). The Kafka key is {@link #followeeId()}, so events of one followee arrive in
 * order; delivery is at least once and every consumer is idempotent.
 *
 * <p>Follows, blocks, mutes and follow requests share the stream and this schema ({@link Relation}): the
 * {@link #type()} names the relation and whether the edge was added or removed. For a block, mute or request,
 * "follower" is the source (the blocker, the muter, the requester) and "followee" the target. Every consumer must look at {@link #relation()} before anything else: a
 * consumer of follows acts on {@link Relation#FOLLOW} events only. A reader built before blocks existed refuses the
 * new types as malformed rather than mistaking them for follows.
 *
 * @param eventId    stable, unique id of the change (see {@link #eventId(Relation, long, long)}); the same change
 *                   republished has the same id
 * @param type       follow or unfollow, block or unblock, mute or unmute, request or unrequest
 * @param followerId the user who follows (or stops following), positive
 * @param followeeId the user followed, positive, not {@code followerId}
 * @param followedAt epoch ms when the edge was created; for an {@link Type#UNFOLLOW}, the creation time
 *                   of the edge that was removed, which locates it in the time-ordered follower row
 * @param version    the follower's following-row version after this change, {@code >= 1}; consumers
 *                   compare it with their cached version (DESIGN.md 2.3)
 * @param occurredAt epoch ms when the change was committed
 */
public record FollowEvent(String eventId, Type type, long followerId, long followeeId, long followedAt,
        long version, long occurredAt) implements GraphEvent {

    /** The kind of change; its JSON form is {@link #wireName()}. */
    public enum Type {
        /** A follow was created. */
        FOLLOW("follow", Relation.FOLLOW, true),
        /** A follow was removed. */
        UNFOLLOW("unfollow", Relation.FOLLOW, false),
        /** A block was created. */
        BLOCK("block", Relation.BLOCK, true),
        /** A block was removed. */
        UNBLOCK("unblock", Relation.BLOCK, false),
        /** A mute was created. */
        MUTE("mute", Relation.MUTE, true),
        /** A mute was removed. */
        UNMUTE("unmute", Relation.MUTE, false),
        /** A follow request to a protected account was made. */
        REQUEST("request", Relation.REQUEST, true),
        /** A follow request ended: withdrawn, declined, or accepted (then a follow event beside it). */
        UNREQUEST("unrequest", Relation.REQUEST, false);

        private final String wireName;
        private final Relation relation;
        private final boolean adds;

        Type(String wireName, Relation relation, boolean adds) {
            this.wireName = wireName;
            this.relation = relation;
            this.adds = adds;
        }

        /**
         * The value of the JSON {@code type} field.
         *
         * @return {@code "follow"}, {@code "unfollow"}, {@code "block"}, {@code "unblock"}, {@code "mute"},
         *         {@code "unmute"}, {@code "request"} or {@code "unrequest"}
         */
        public String wireName() {
            return wireName;
        }

        /**
         * The relation the edge belongs to.
         *
         * @return the relation
         */
        public Relation relation() {
            return relation;
        }

        /**
         * Whether the edge was created rather than removed.
         *
         * @return {@code true} for follow, block, mute and request
         */
        public boolean adds() {
            return adds;
        }

        /**
         * The type with a JSON {@code type} value.
         *
         * @param wireName e.g. {@code "block"}; may be {@code null}
         * @return the type, or empty when no type has that name
         */
        public static java.util.Optional<Type> byWireName(String wireName) {
            for (Type type : values()) {
                if (type.wireName.equals(wireName)) {
                    return java.util.Optional.of(type);
                }
            }
            return java.util.Optional.empty();
        }

        /**
         * The type of a change of {@code relation}.
         *
         * @param relation the relation
         * @param adds     whether the edge was created
         * @return e.g. {@link #BLOCK} for {@code (BLOCK, true)}
         */
        public static Type of(Relation relation, boolean adds) {
            return switch (relation) {
                case FOLLOW -> adds ? FOLLOW : UNFOLLOW;
                case BLOCK -> adds ? BLOCK : UNBLOCK;
                case MUTE -> adds ? MUTE : UNMUTE;
                case REQUEST -> adds ? REQUEST : UNREQUEST;
            };
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
        GraphEvent.requireIdAndVersion(eventId, version);
        if (type == null) {
            throw new IllegalArgumentException("type must not be null");
        }
        UserIds.requirePositive(followerId, "followerId");
        UserIds.requirePositive(followeeId, "followeeId");
        if (followerId == followeeId) {
            throw new IllegalArgumentException("followerId and followeeId must differ, both are " + followerId);
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
        return new FollowEvent(eventId(type.relation(), followerId, version), type, followerId, followeeId,
                followedAt, version, occurredAt);
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
     * The event id of a change of any relation. A follow keeps {@link #eventId(long, long)}, so ids of events
     * published before relations existed are unchanged; other relations name themselves, since each
     * {@code (user, relation)} row has versions of its own.
     *
     * @param relation the edge's relation
     * @param sourceId the follower, blocker or muter
     * @param version  that user's row version of {@code relation} after the change
     * @return e.g. {@code "42-7"} for a follow, {@code "42-block-3"} for a block
     */
    public static String eventId(Relation relation, long sourceId, long version) {
        return relation == Relation.FOLLOW ? eventId(sourceId, version)
                : sourceId + "-" + relation.wireName() + "-" + version;
    }

    /**
     * Whether a follow was created. {@code false} for an unfollow and for every block, mute or request event: a consumer of
     * follows checks {@link #relation()} first.
     *
     * @return whether this is a {@link Type#FOLLOW}
     */
    public boolean isFollow() {
        return type == Type.FOLLOW;
    }

    /**
     * The relation the edge belongs to.
     *
     * @return {@code type().relation()}
     */
    public Relation relation() {
        return type.relation();
    }

    /**
     * Whether the edge was created rather than removed, in any relation.
     *
     * @return {@code type().adds()}
     */
    public boolean adds() {
        return type.adds();
    }

    @Override
    public String kind() {
        return type.wireName();
    }

    /** The follower, blocker or muter. */
    @Override
    public long actorId() {
        return followerId;
    }

    /** The followee, blocked or muted user. */
    @Override
    public long targetId() {
        return followeeId;
    }

    /** The followee, blocked or muted user. */
    @Override
    public long partitionKey() {
        return followeeId;
    }
}
