package dev.socialgraph.store.following;

import dev.socialgraph.common.adjacency.Adjacency;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.store.outbox.OutboxRepository;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * The one way an edge of any relation is added to or removed from its source's row on a following shard: the sorted
 * arrays change, the row is written with {@code version + 1}, and the outbox row that carries the change to
 * {@code follow-events} is appended in the same transaction (DESIGN.md 3). The write service's follows, blocks and
 * mutes and the event consumer's removal of a follow under a block all go through it, so every change of a row has
 * its event. Stateless and thread-safe.
 *
 * <p>The caller runs the transaction and locks the row first ({@link FollowingRepository#lock} or
 * {@link FollowingRepository#lockOrCreate} of {@link #rows()}), or has a removal lock it
 * ({@link #remove(Connection, long, long, UnderLock)}); rules such as caps and blocks are the caller's.
 */
public final class RelationEdges {

    private final FollowingRepository rows;
    private final OutboxRepository outbox;

    /**
     * Edges of one relation.
     *
     * @param rows   the relation's rows
     * @param outbox where the changes are appended
     */
    public RelationEdges(FollowingRepository rows, OutboxRepository outbox) {
        this.rows = rows;
        this.outbox = outbox;
    }

    /** The relation's rows, to lock before a change. */
    public FollowingRepository rows() {
        return rows;
    }

    /** The relation these edges belong to. */
    public Relation relation() {
        return rows.relation();
    }

    /**
     * The state of one edge after an add or a remove.
     *
     * @param row       the source's row after the call (the locked row itself when nothing changed)
     * @param present   whether the edge exists now
     * @param createdAt epoch ms when the edge was created, when {@code present}; for a removal that removed it, when
     *                  the removed edge was created; otherwise {@link Adjacency#NO_TIME}
     * @param changed   whether the call changed the row and appended an outbox row
     */
    public record Edit(FollowingRow row, boolean present, long createdAt, boolean changed) {
    }

    /**
     * Adds {@code targetId} to a locked row, unless present.
     *
     * @param locked   the source's row, locked in this transaction
     * @param targetId positive user id, not the source
     * @param now      epoch ms, the new edge's creation time
     * @return the edge's state; unchanged with the original creation time when already present
     * @throws SQLException          on database errors, including the relation's cap ({@code check_violation})
     * @throws IllegalStateException when the row was not locked in this transaction
     */
    public Edit add(Connection connection, FollowingRow locked, long targetId, long now) throws SQLException {
        int at = Arrays.binarySearch(locked.followingIds(), targetId);
        if (at >= 0) {
            return new Edit(locked, true, locked.followedAt()[at], false);
        }
        Adjacency next = AdjacencyArray.insert(locked.followingIds(), locked.followedAt(), targetId, now);
        FollowingRow written = rows.writeNextVersion(connection, locked, next.ids(), next.followedAt());
        outbox.append(connection, FollowEvent.Type.of(relation(), true), locked.followerId(), targetId, now,
                written.version());
        return new Edit(written, true, now, true);
    }

    /** A rule a removal checks once it holds the source's row lock, before the row changes; refuses by throwing. */
    @FunctionalInterface
    public interface UnderLock {
        /** Checks the rule; whatever it throws rolls the caller's transaction back. */
        void check() throws SQLException;
    }

    /**
     * Locks {@code sourceId}'s row, checks {@code underLock}, and removes {@code targetId} from the row, if present:
     * the whole of an unfollow, unblock or unmute, and of the removals an account job makes. A source without a row
     * writes nothing and locks nothing ({@code underLock} is checked all the same).
     *
     * @param sourceId  positive user id
     * @param targetId  positive user id
     * @param underLock checked after the lock and before the change, e.g. that the source is still active; a state
     *                  change takes the same lock, so the two serialize
     * @return the edge's state ({@code present == false}); for a source without a row, an empty row of version 0
     * @throws SQLException on database errors
     */
    public Edit remove(Connection connection, long sourceId, long targetId, UnderLock underLock) throws SQLException {
        FollowingRow row = rows.lock(connection, sourceId).orElse(null);
        underLock.check();
        if (row == null) {
            return new Edit(FollowingRow.empty(sourceId), false, Adjacency.NO_TIME, false);
        }
        return remove(connection, row, targetId);
    }

    /**
     * Removes {@code targetId} from a locked row, if present. The outbox row carries the removed edge's creation
     * time (docs/decisions/0003-events.md).
     *
     * @param locked   the source's row, locked in this transaction
     * @param targetId positive user id
     * @return the edge's state ({@code present == false})
     * @throws SQLException          on database errors
     * @throws IllegalStateException when the row was not locked in this transaction
     */
    public Edit remove(Connection connection, FollowingRow locked, long targetId) throws SQLException {
        Adjacency next = AdjacencyArray.remove(locked.followingIds(), locked.followedAt(), targetId);
        if (!next.changed()) {
            return new Edit(locked, false, Adjacency.NO_TIME, false);
        }
        FollowingRow written = rows.writeNextVersion(connection, locked, next.ids(), next.followedAt());
        outbox.append(connection, FollowEvent.Type.of(relation(), false), locked.followerId(), targetId,
                next.removedFollowedAt(), written.version());
        return new Edit(written, false, next.removedFollowedAt(), true);
    }
}
