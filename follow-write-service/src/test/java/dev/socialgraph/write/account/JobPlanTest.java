package dev.socialgraph.write.account;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.store.account.JobKind;
import dev.socialgraph.write.account.JobPlan.Phase;
import dev.socialgraph.write.account.JobPlan.Walk;
import org.junit.jupiter.api.Test;

class JobPlanTest {

    @Test
    void countJobs_walkTheFolloweesThenTheFollowers() {
        assertThat(JobPlan.phases(JobKind.DEACTIVATE)).containsExactly(new Phase(Walk.TARGETS, Relation.FOLLOW),
                new Phase(Walk.SOURCES, Relation.FOLLOW));
        assertThat(JobPlan.phases(JobKind.REACTIVATE)).isEqualTo(JobPlan.phases(JobKind.DEACTIVATE));
    }

    @Test
    void erase_walksEveryRelationsBothSides_thenDeletesTheUsersOwnRowsLast() {
        assertThat(JobPlan.phases(JobKind.ERASE)).containsExactly(
                new Phase(Walk.TARGETS, Relation.FOLLOW), new Phase(Walk.SOURCES, Relation.FOLLOW),
                new Phase(Walk.TARGETS, Relation.BLOCK), new Phase(Walk.SOURCES, Relation.BLOCK),
                new Phase(Walk.MUTERS, Relation.MUTE),
                new Phase(Walk.TARGETS, Relation.REQUEST), new Phase(Walk.SOURCES, Relation.REQUEST),
                new Phase(Walk.OWN_ROWS, null));
    }

    @Test
    void erase_keepsThePhasesStoredBeforeRequestsCame_atTheirIndexes() {
        // An erasure stored before follow requests existed resumes at its stored index: the first five are the same
        // walks, and index 5 (then the own rows) now starts the request walks, which end in the own rows again.
        assertThat(JobPlan.phases(JobKind.ERASE).subList(0, 5)).containsExactly(
                new Phase(Walk.TARGETS, Relation.FOLLOW), new Phase(Walk.SOURCES, Relation.FOLLOW),
                new Phase(Walk.TARGETS, Relation.BLOCK), new Phase(Walk.SOURCES, Relation.BLOCK),
                new Phase(Walk.MUTERS, Relation.MUTE));
        assertThat(JobPlan.phases(JobKind.ERASE).getLast()).isEqualTo(new Phase(Walk.OWN_ROWS, null));
    }

    @Test
    void after_resumesPastThePosition_whetherOrNotTheListStillHoldsIt() {
        long[] ids = {3, 7, 9, 20};

        assertThat(JobPlan.after(ids, 0)).containsExactly(3, 7, 9, 20);
        assertThat(JobPlan.after(ids, 7)).containsExactly(9, 20);
        assertThat(JobPlan.after(ids, 8)).containsExactly(9, 20); // 8 was done, then left the list
        assertThat(JobPlan.after(ids, 20)).isEmpty();
        assertThat(JobPlan.after(new long[0], 5)).isEmpty();
    }
}
