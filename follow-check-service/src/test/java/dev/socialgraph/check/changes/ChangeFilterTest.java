package dev.socialgraph.check.changes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.event.AccountEvent;
import dev.socialgraph.common.event.FollowEvent;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which events a watcher gets: kinds, users, the own stream, and the states of the users an event names. */
class ChangeFilterTest {

    static final long OWNER = 7;

    static FollowEvent edge(FollowEvent.Type type, long actor, long target) {
        return FollowEvent.of(type, actor, target, 1, 1, 2);
    }

    static AccountEvent account(AccountEvent.Type type, long user) {
        return AccountEvent.of(type, user, 1, 2);
    }

    static ChangeFilter whole(Set<Long> inactive, Set<Long> erased) {
        return new ChangeFilter(Set.of(), new long[0], 0, inactive::contains, erased::contains);
    }

    @Test
    void anErasedUser_isNamedByNothingButTheirEraseEvent() {
        ChangeFilter filter = whole(Set.of(5L), Set.of(5L));

        assertThat(filter.test(account(AccountEvent.Type.ERASE, 5))).isTrue();
        assertThat(filter.test(account(AccountEvent.Type.DEACTIVATE, 5))).isFalse();
        assertThat(filter.test(account(AccountEvent.Type.REACTIVATE, 5))).isFalse();
        assertThat(filter.test(edge(FollowEvent.Type.FOLLOW, 5, 6))).isFalse();
        assertThat(filter.test(edge(FollowEvent.Type.UNFOLLOW, 6, 5))).isFalse();
    }

    @Test
    void aDeactivatedUser_hasTheirAccountEventsServed_butNoEdgeEvent() {
        ChangeFilter filter = whole(Set.of(5L), Set.of());

        assertThat(filter.test(account(AccountEvent.Type.DEACTIVATE, 5))).isTrue();
        assertThat(filter.test(account(AccountEvent.Type.REACTIVATE, 5))).as("an older reactivation").isTrue();
        assertThat(filter.test(edge(FollowEvent.Type.BLOCK, 5, 6))).isFalse();
        assertThat(filter.test(edge(FollowEvent.Type.FOLLOW, 6, 5))).isFalse();
        assertThat(filter.test(edge(FollowEvent.Type.FOLLOW, 6, 8))).isTrue();
    }

    @Test
    void theOwnStream_holdsTheOwnersAccountChanges_andNoOneElses() {
        ChangeFilter own = new ChangeFilter(Set.of(), new long[0], OWNER, id -> false, id -> false);

        assertThat(own.test(account(AccountEvent.Type.DEACTIVATE, OWNER))).isTrue();
        assertThat(own.test(account(AccountEvent.Type.DEACTIVATE, 8))).isFalse();
        assertThat(own.test(edge(FollowEvent.Type.FOLLOW, 8, OWNER))).isTrue();
        assertThat(own.test(edge(FollowEvent.Type.BLOCK, 8, OWNER))).as("another's block of the owner").isFalse();
        assertThat(own.test(edge(FollowEvent.Type.MUTE, OWNER, 8))).isTrue();
    }

    @Test
    void theOwnStream_holdsTheRequestsToTheOwner_andTheOwnersOwn_butNoOneElses() {
        ChangeFilter own = new ChangeFilter(Set.of("request", "unrequest"), new long[0], OWNER, id -> false,
                id -> false);

        assertThat(own.test(edge(FollowEvent.Type.REQUEST, 8, OWNER))).as("a request to the owner").isTrue();
        assertThat(own.test(edge(FollowEvent.Type.UNREQUEST, OWNER, 8))).as("the owner's own").isTrue();
        assertThat(own.test(edge(FollowEvent.Type.REQUEST, 8, 9))).as("between others").isFalse();
        assertThat(new ChangeFilter(Set.of("request"), new long[0], OWNER, id -> id == 8, id -> false)
                .test(edge(FollowEvent.Type.REQUEST, 8, OWNER))).as("from an inactive user").isFalse();
    }

    @Test
    void kindsAndUsers_selectAccountEventsByKindAndUser() {
        ChangeFilter filter = new ChangeFilter(Set.of("erase", "follow"), new long[] {3, 5}, 0, id -> false,
                id -> false);

        assertThat(filter.test(account(AccountEvent.Type.ERASE, 5))).isTrue();
        assertThat(filter.test(account(AccountEvent.Type.ERASE, 4))).as("another user").isFalse();
        assertThat(filter.test(account(AccountEvent.Type.DEACTIVATE, 5))).as("another kind").isFalse();
        assertThat(filter.test(edge(FollowEvent.Type.FOLLOW, 9, 3))).as("the target is one of the users").isTrue();
        assertThat(filter.test(edge(FollowEvent.Type.MUTE, 3, 9))).as("another kind").isFalse();
    }
}
