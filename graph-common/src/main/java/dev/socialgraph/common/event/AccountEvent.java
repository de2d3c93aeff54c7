package dev.socialgraph.common.event;

import dev.socialgraph.common.id.UserIds;
import java.util.Optional;

/**
 * A change of one account's state (docs/account-lifecycle.md) or protection (docs/decisions/0064-follow-requests.md),
 * published on {@code follow-events} beside the edge changes, keyed by the user, so a consumer of the stream learns of
 * a deactivation, reactivation, erasure or protection change in the order of the user's other changes on that key. The jobs that follow a state change (removing an erased user's
 * edges, say) publish their own edge events.
 *
 * @param eventId    {@link #eventId(long, long)}: stable across redeliveries
 * @param type       deactivate, reactivate, erase, protect or unprotect
 * @param userId     the account's user, positive
 * @param version    the account row's version after the change (state and protection changes share it), {@code >= 1}
 * @param occurredAt epoch ms when the change was committed
 */
public record AccountEvent(String eventId, Type type, long userId, long version, long occurredAt)
        implements GraphEvent {

    /** The kind of change; its JSON form is {@link #wireName()}. */
    public enum Type {
        /** The account was deactivated: its edges stay, and no read shows them. */
        DEACTIVATE("deactivate"),
        /** The account was active again. */
        REACTIVATE("reactivate"),
        /** The account was erased for good. */
        ERASE("erase"),
        /** The account was made protected: a new follower needs its approval. */
        PROTECT("protect"),
        /** The account was made public again: its pending requests are accepted by a job. */
        UNPROTECT("unprotect");

        private final String wireName;

        Type(String wireName) {
            this.wireName = wireName;
        }

        /**
         * The value of the JSON {@code type} field.
         *
         * @return {@code "deactivate"}, {@code "reactivate"}, {@code "erase"}, {@code "protect"} or
         *         {@code "unprotect"}
         */
        public String wireName() {
            return wireName;
        }

        /**
         * The type with a JSON {@code type} value.
         *
         * @param wireName e.g. {@code "erase"}; may be {@code null}
         * @return the type, or empty when no account change has that name
         */
        public static Optional<Type> byWireName(String wireName) {
            for (Type type : values()) {
                if (type.wireName.equals(wireName)) {
                    return Optional.of(type);
                }
            }
            return Optional.empty();
        }
    }

    /**
     * Validates the event.
     *
     * @throws IllegalArgumentException if {@code eventId} or {@code type} is {@code null}, {@code eventId} is empty,
     *                                  {@code userId} is not positive or {@code version < 1}
     */
    public AccountEvent {
        GraphEvent.requireIdAndVersion(eventId, version);
        if (type == null) {
            throw new IllegalArgumentException("type must not be null");
        }
        UserIds.requirePositive(userId, "userId");
    }

    /**
     * An event with the conventional {@link #eventId(long, long)}.
     *
     * @param type       the change
     * @param userId     the account's user, positive
     * @param version    the state's version after the change, {@code >= 1}
     * @param occurredAt commit time, epoch ms
     * @return the event
     * @throws IllegalArgumentException as the canonical constructor
     */
    public static AccountEvent of(Type type, long userId, long version, long occurredAt) {
        return new AccountEvent(eventId(userId, version), type, userId, version, occurredAt);
    }

    /**
     * The event id convention: {@code userId + "-account-" + version}. Unique because each change of the account row
     * (state or protection) increments its version, and distinct from every edge event's id ({@link FollowEvent#eventId(
     * dev.socialgraph.common.relation.Relation, long, long)}).
     *
     * @param userId  the account's user
     * @param version the state's version after the change
     * @return e.g. {@code "42-account-3"}
     */
    public static String eventId(long userId, long version) {
        return userId + "-account-" + version;
    }

    @Override
    public String kind() {
        return type.wireName();
    }

    @Override
    public long actorId() {
        return userId;
    }

    /** An account change concerns its user alone: {@code 0}. */
    @Override
    public long targetId() {
        return 0;
    }

    /** The account's user. */
    @Override
    public long partitionKey() {
        return userId;
    }
}
