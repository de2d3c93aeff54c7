package dev.socialgraph.common.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RedisKeysTest {

    @Test
    void keys_carryUserIdAsHashTag() {
        assertThat(RedisKeys.following(42)).isEqualTo("following:{42}");
        assertThat(RedisKeys.followingVersion(42)).isEqualTo("following:{42}:v");
        assertThat(RedisKeys.counts(42)).isEqualTo("counts:{42}");
        assertThat(RedisKeys.suggestions(42)).isEqualTo("suggest:{42}");
        assertThat(RedisKeys.following(Long.MAX_VALUE)).isEqualTo("following:{9223372036854775807}");
    }

    @Test
    void companionKeys_shareHashTag() {
        assertThat(hashTag(RedisKeys.followingVersion(7))).isEqualTo(hashTag(RedisKeys.following(7)));
    }

    @Test
    void sentinel_isNeverAUserId() {
        assertThat(RedisKeys.SENTINEL).isEqualTo(-1L);
        assertThat(RedisKeys.SENTINEL_MEMBER).isEqualTo(Long.toString(RedisKeys.SENTINEL));
    }

    @Test
    void following_whenIdNotPositive_throws() {
        assertThatThrownBy(() -> RedisKeys.following(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("userId must be a positive user id, was 0");
    }

    @Test
    void topics_haveFixedNames() {
        assertThat(Topics.FOLLOW_EVENTS).isEqualTo("follow-events");
        assertThat(Topics.FOLLOW_EVENTS_DLT).isEqualTo("follow-events.DLT");
    }

    /** The part Redis Cluster hashes: between the first '{' and the next '}'. */
    private static String hashTag(String key) {
        int open = key.indexOf('{');
        return key.substring(open + 1, key.indexOf('}', open));
    }
}
