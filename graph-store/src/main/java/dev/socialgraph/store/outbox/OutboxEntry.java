package dev.socialgraph.store.outbox;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import java.time.Instant;

/**
 * A row of {@code follow_outbox}: one change of an edge (a follow, block or mute created or removed) committed on a
 * following shard, to be published to {@code follow-events} (DESIGN.md 3 step 5).
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
 */
public record OutboxEntry(long id, long followerId, long followeeId, FollowEvent.Type type, long followedAt,
                          long version, Instant createdAt, Instant publishedAt, OutboxTrace trace) {

    public OutboxEntry {
        trace = trace == null ? OutboxTrace.NONE : trace;
    }

    /** A row written without a trace context. */
    public OutboxEntry(long id, long followerId, long followeeId, FollowEvent.Type type, long followedAt,
                       long version, Instant createdAt, Instant publishedAt) {
        this(id, followerId, followeeId, type, followedAt, version, createdAt, publishedAt, OutboxTrace.NONE);
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
     * The relation of the changed edge.
     *
     * @return {@code type().relation()}
     */
    public Relation relation() {
        return type.relation();
    }
}
