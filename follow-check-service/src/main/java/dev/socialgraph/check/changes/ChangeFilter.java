package dev.socialgraph.check.changes;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

/**
 * Which events a watcher gets, decided in memory under the log's lock (it never blocks):
 * <ul>
 *   <li>{@code kinds}: only these kinds (all when empty);</li>
 *   <li>{@code users}: only events whose actor or target is one of them (all when empty);</li>
 *   <li>{@code owner} (a user's own stream, {@code 0} for the whole stream): follows and unfollows where the owner is
 *       the actor or the target, and the owner's own blocks, unblocks, mutes and unmutes, never another user's block or
 *       mute of the owner;</li>
 *   <li>never an event naming a user who is inactive now (deactivated or erased): the stream shows what every read
 *       shows, and an erased user's events are never served again, though the topic keeps them until its retention
 *       deletes them.</li>
 * </ul>
 * What needs a database (whether the other user of an own-stream event blocks the owner) is decided after the read,
 * by the caller.
 *
 * @param kinds    the kinds kept, empty for all
 * @param users    ascending user ids, empty for all
 * @param owner    the own stream's user, or {@code 0}
 * @param inactive whether a user is inactive now
 */
public record ChangeFilter(Set<FollowEvent.Type> kinds, long[] users, long owner, LongPredicate inactive)
        implements Predicate<FollowEvent> {

    /**
     * @param kinds    copied; empty for all
     * @param users    ascending, copied; empty for all
     * @param owner    positive, or {@code 0} for the whole stream
     * @param inactive the inactive-users view
     */
    public ChangeFilter {
        kinds = kinds.isEmpty() ? EnumSet.allOf(FollowEvent.Type.class) : EnumSet.copyOf(kinds);
        users = users.clone();
    }

    @Override
    public boolean test(FollowEvent e) {
        if (!kinds.contains(e.type())) {
            return false;
        }
        long actor = e.followerId();
        long target = e.followeeId();
        if (users.length > 0 && Arrays.binarySearch(users, actor) < 0 && Arrays.binarySearch(users, target) < 0) {
            return false;
        }
        if (owner != 0) {
            boolean own = e.relation() == Relation.FOLLOW
                    ? actor == owner || target == owner
                    : actor == owner;
            if (!own) {
                return false;
            }
        }
        return !inactive.test(actor) && !inactive.test(target);
    }

    /**
     * The other user of an event of the owner's own stream.
     *
     * @param e an event that passed this filter with an owner
     * @return its actor or target, whichever is not the owner
     */
    public long other(FollowEvent e) {
        return e.followerId() == owner ? e.followeeId() : e.followerId();
    }
}
