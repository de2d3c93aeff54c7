package dev.socialgraph.check.changes;

import dev.socialgraph.common.event.AccountEvent;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.GraphEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.wire.Changes;
import java.util.Arrays;
import java.util.Set;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

/**
 * Which events a watcher gets, decided in memory under the log's lock (it never blocks):
 * <ul>
 *   <li>{@code kinds}: only these kinds, by wire name (all when empty);</li>
 *   <li>{@code users}: only events whose actor or target is one of them (all when empty); an account event's only user
 *       is its actor;</li>
 *   <li>{@code owner} (a user's own stream, {@code 0} for the whole stream): follows, unfollows and follow requests
 *       where the owner is the actor or the target, and the owner's own blocks, unblocks, mutes, unmutes and account changes, never
 *       another user's block or mute of the owner;</li>
 *   <li>never an edge event naming a user who is inactive now (deactivated or erased): the stream shows what every
 *       read shows, and an erased user's events are never served again, though the topic keeps them until its
 *       retention deletes them. An account event is served whatever its user's state (it is how a consumer learns of
 *       the state), except that of an erased user only the {@code erase} event is.</li>
 * </ul>
 * What needs a database (whether the other user of an own-stream event blocks the owner) is decided after the read,
 * by the caller.
 *
 * @param kinds    the kinds kept, by wire name ({@link Changes#KINDS_SERVED}), empty for all
 * @param users    ascending user ids, empty for all
 * @param owner    the own stream's user, or {@code 0}
 * @param inactive whether a user is inactive now
 * @param erased   whether a user is erased now
 */
public record ChangeFilter(Set<String> kinds, long[] users, long owner, LongPredicate inactive, LongPredicate erased)
        implements Predicate<GraphEvent> {

    /**
     * @param kinds    copied; empty for all
     * @param users    ascending, copied; empty for all
     * @param owner    positive, or {@code 0} for the whole stream
     * @param inactive the inactive-users view
     * @param erased   the erased users of that view
     */
    public ChangeFilter {
        kinds = kinds.isEmpty() ? Set.copyOf(Changes.KINDS_SERVED) : Set.copyOf(kinds);
        users = users.clone();
    }

    @Override
    public boolean test(GraphEvent e) {
        if (!kinds.contains(e.kind())) {
            return false;
        }
        long actor = e.actorId();
        if (e instanceof AccountEvent account) {
            if ((users.length > 0 && Arrays.binarySearch(users, actor) < 0) || (owner != 0 && actor != owner)) {
                return false;
            }
            return account.type() == AccountEvent.Type.ERASE || !erased.test(actor);
        }
        FollowEvent edge = (FollowEvent) e;
        long target = edge.targetId();
        if (users.length > 0 && Arrays.binarySearch(users, actor) < 0 && Arrays.binarySearch(users, target) < 0) {
            return false;
        }
        if (owner != 0) {
            boolean own = edge.relation() == Relation.FOLLOW || edge.relation() == Relation.REQUEST
                    ? actor == owner || target == owner
                    : actor == owner;
            if (!own) {
                return false;
            }
        }
        return !inactive.test(actor) && !inactive.test(target);
    }
}
