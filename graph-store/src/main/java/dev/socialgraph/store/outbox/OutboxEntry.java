package dev.socialgraph.store.outbox;

import dev.socialgraph.common.event.AccountEvent;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.GraphEvent;
import dev.socialgraph.common.relation.Relation;
import java.time.Instant;

/**
 * A row of {@code follow_outbox}: one change of an edge (a follow, block or mute created or removed) or of an account's
 * state, committed on a following shard, to be published to {@code follow-events} (DESIGN.md 3 step 5).
 *
 * <p>An account row ({@link #isAccount()}) has {@link #account()} set and {@link #type()} {@code null}; it names its
 * user as both follower and followee, its {@code followedAt} is the change's time and its version the state's. A
 * reader of edge rows skips it first.
 *
 * @param id          outbox id, increasing in commit order per pair (both writes lock the same following row)
 * @param followerId  the follower, positive user id
 * @param followeeId  the followee, positive user id
 * @param type        the change, as its event will carry it
 * @param followedAt  epoch-ms time of the follow; for an unfollow, the time of the follow that was removed
 * @param version     the following row's version after the change
 * @param createdAt   when the row was committed
 * @param publishedAt when the relay marked it published; {@code null} while unpublished
 * @param trace       the trace context of the request that wrote the row ({@link OutboxTrace#NONE} without one)
 * @param account     the account change of an account row, {@code null} for an edge row
 */
public record OutboxEntry(long id, long followerId, long followeeId, FollowEvent.Type type, long followedAt,
                          long version, Instant createdAt, Instant publishedAt, OutboxTrace trace,
                          AccountEvent.Type account) {

    /**
     * @throws IllegalArgumentException unless exactly one of {@code type} and {@code account} is set
     */
    public OutboxEntry {
        trace = trace == null ? OutboxTrace.NONE : trace;
        if ((type == null) == (account == null)) {
            throw new IllegalArgumentException("an outbox row is an edge change or an account change: type " + type
                    + ", account " + account);
        }
    }

    /** An edge row. */
    public OutboxEntry(long id, long followerId, long followeeId, FollowEvent.Type type, long followedAt,
                       long version, Instant createdAt, Instant publishedAt, OutboxTrace trace) {
        this(id, followerId, followeeId, type, followedAt, version, createdAt, publishedAt, trace, null);
    }

    /** A row written without a trace context. */
    public OutboxEntry(long id, long followerId, long followeeId, FollowEvent.Type type, long followedAt,
                       long version, Instant createdAt, Instant publishedAt) {
        this(id, followerId, followeeId, type, followedAt, version, createdAt, publishedAt, OutboxTrace.NONE);
    }

    /**
     * Whether the row is an account change rather than an edge change.
     *
     * @return {@code account() != null}
     */
    public boolean isAccount() {
        return account != null;
    }

    /**
     * The event the relay publishes for the row.
     *
     * @return a {@link FollowEvent} for an edge row, an {@link AccountEvent} for an account row, with the row's commit
     *         time as its {@code occurredAt}
     */
    public GraphEvent event() {
        long occurredAt = createdAt.toEpochMilli();
        return account != null ? AccountEvent.of(account, followerId, version, occurredAt)
                : FollowEvent.of(type, followerId, followeeId, followedAt, version, occurredAt);
    }

    /**
     * Whether a follow was created ({@code false} for an unfollow and for every block or mute change).
     *
     * @return {@code type() == FOLLOW}
     */
    public boolean follow() {
        return type == FollowEvent.Type.FOLLOW;
    }

    /**
     * The relation of the changed edge; an account row has none.
     *
     * @return {@code type().relation()}
     * @throws NullPointerException for an account row
     */
    public Relation relation() {
        return type.relation();
    }
}
