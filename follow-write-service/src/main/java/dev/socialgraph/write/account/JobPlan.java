package dev.socialgraph.write.account;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.store.account.JobKind;
import java.util.List;

/**
 * The phases of each job kind (docs/account-lifecycle.md, "The jobs"), in order; a job's {@code phase} column is an
 * index into its kind's list, so the order is part of the stored format: a phase is only ever added where a job
 * stored at the index it takes over still ends right when resumed there.
 *
 * <p>Every walk goes over ids in ascending order and records the last id done as {@code position}, so a resumed job
 * goes on after it even when the list it walks has changed meanwhile.
 */
final class JobPlan {

    /** What a phase walks. */
    enum Walk {
        /** The users X's row of the relation names (X's following shard); each is changed on its follower side. */
        TARGETS,
        /** The users whose rows name X, from X's follower side (follower row and celebrity pages). */
        SOURCES,
        /** The users who mute X, found by scanning every following database (mutes keep no follower side). */
        MUTERS,
        /** Not a walk: delete X's own rows, exclusions, offsets and Redis keys. */
        OWN_ROWS
    }

    /**
     * One phase.
     *
     * @param walk     what it walks
     * @param relation the relation of the rows walked; {@code null} for {@link Walk#OWN_ROWS}
     */
    record Phase(Walk walk, Relation relation) {

        /**
         * Whether this phase moves the visible follower counts of the users it walks with no edge event (the count
         * exclusions of a deactivation or reactivation; an erasure's removal from the follower side): X's followees,
         * whose caches learn it only from the job's {@link dev.socialgraph.common.event.RecountEvent}s.
         */
        boolean movesFollowerCounts() {
            return walk == Walk.TARGETS && relation == Relation.FOLLOW;
        }
    }

    private static final List<Phase> COUNTS = List.of(new Phase(Walk.TARGETS, Relation.FOLLOW),
            new Phase(Walk.SOURCES, Relation.FOLLOW));

    private static final List<Phase> ERASE = List.of(
            new Phase(Walk.TARGETS, Relation.FOLLOW), new Phase(Walk.SOURCES, Relation.FOLLOW),
            new Phase(Walk.TARGETS, Relation.BLOCK), new Phase(Walk.SOURCES, Relation.BLOCK),
            // X's own mutes need no walk (no follower side to clean); other users' mutes of X do.
            new Phase(Walk.MUTERS, Relation.MUTE),
            // Follow requests came after the phases above, and before the rows they walk are deleted. An erasure
            // stored at index 5 before they came (the own rows, not finished) resumes here: both walks, then the own
            // rows again, each step idempotent.
            new Phase(Walk.TARGETS, Relation.REQUEST), new Phase(Walk.SOURCES, Relation.REQUEST),
            new Phase(Walk.OWN_ROWS, null));

    /** Making an account public: every requester on its follower side, accepted. */
    private static final List<Phase> ACCEPT_REQUESTS = List.of(new Phase(Walk.SOURCES, Relation.REQUEST));

    private JobPlan() {
    }

    /** The phases of {@code kind}, in order. */
    static List<Phase> phases(JobKind kind) {
        return switch (kind) {
            case ERASE -> ERASE;
            case ACCEPT_REQUESTS -> ACCEPT_REQUESTS;
            case DEACTIVATE, REACTIVATE -> COUNTS;
        };
    }

    /** The ids of {@code ids} (ascending) after {@code position}: what a resumed walk has left to do. */
    static long[] after(long[] ids, long position) {
        int from = java.util.Arrays.binarySearch(ids, position);
        from = from >= 0 ? from + 1 : -from - 1;
        return java.util.Arrays.copyOfRange(ids, from, ids.length);
    }
}
