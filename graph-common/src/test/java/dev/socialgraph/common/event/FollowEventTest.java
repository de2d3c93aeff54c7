package dev.socialgraph.common.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FollowEventTest {

    @Test
    void follow_buildsEventIdFromFollowerAndVersion() {
        FollowEvent event = FollowEvent.follow(42, 9, 1_000, 7, 1_001);

        assertThat(event.eventId()).isEqualTo("42-7");
        assertThat(event.type()).isEqualTo(FollowEvent.Type.FOLLOW);
        assertThat(event.isFollow()).isTrue();
        assertThat(event.followerId()).isEqualTo(42);
        assertThat(event.followeeId()).isEqualTo(9);
        assertThat(event.followedAt()).isEqualTo(1_000);
        assertThat(event.version()).isEqualTo(7);
        assertThat(event.occurredAt()).isEqualTo(1_001);
    }

    @Test
    void unfollow_carriesRemovedEdgeTime() {
        FollowEvent event = FollowEvent.unfollow(42, 9, 1_000, 8, 5_000);

        assertThat(event.type()).isEqualTo(FollowEvent.Type.UNFOLLOW);
        assertThat(event.isFollow()).isFalse();
        assertThat(event.eventId()).isEqualTo(FollowEvent.eventId(42, 8)).isEqualTo("42-8");
    }

    @Test
    void constructor_whenFollowerNotPositive_throwsNamingField() {
        assertThatThrownBy(() -> FollowEvent.follow(0, 9, 1, 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("followerId must be a positive user id, was 0");
        assertThatThrownBy(() -> FollowEvent.follow(9, -3, 1, 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("followeeId must be a positive user id, was -3");
    }

    @Test
    void constructor_whenSelfFollow_throws() {
        assertThatThrownBy(() -> FollowEvent.follow(5, 5, 1, 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("followerId and followeeId must differ, both are 5");
    }

    @Test
    void constructor_whenVersionBelowOne_throws() {
        assertThatThrownBy(() -> FollowEvent.follow(1, 2, 1, 0, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("version must be >= 1, was 0");
    }

    @Test
    void constructor_whenNullOrEmpty_throwsIllegalArgument() {
        assertThatThrownBy(() -> new FollowEvent(null, FollowEvent.Type.FOLLOW, 1, 2, 1, 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("eventId must not be null or empty");
        assertThatThrownBy(() -> new FollowEvent("", FollowEvent.Type.FOLLOW, 1, 2, 1, 1, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FollowEvent("1-1", null, 1, 2, 1, 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("type must not be null");
    }
}
