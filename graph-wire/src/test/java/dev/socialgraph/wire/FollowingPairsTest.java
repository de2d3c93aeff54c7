package dev.socialgraph.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.token.FollowTokens;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FollowingPairsTest {

    @Test
    void maxPairBytes_isTheLongestPair_withThreeLongestIdsAndAFullyEscapedToken() {
        String longest = "{\"followerId\":" + Long.MAX_VALUE + ",\"followeeId\":" + Long.MAX_VALUE
                + ",\"viewerId\":" + Long.MAX_VALUE + ",\"followToken\":\"" + "\\u0001".repeat(FollowTokens.MAX_LENGTH) + "\"}";

        assertThat(FollowingPairs.MAX_PAIR_BYTES).isEqualTo(499)
                .isEqualTo(longest.getBytes(StandardCharsets.UTF_8).length);
    }

    @Test
    void requestAndAnswerBytes_countTheFrameThePairsAndTheCommas() {
        assertThat(FollowingPairs.requestBytes(1)).isEqualTo("{\"pairs\":[]}".length() + 499);
        assertThat(FollowingPairs.requestBytes(1000)).isEqualTo(500_011);
        assertThat(FollowingPairs.answerBytes(1)).isEqualTo("{\"results\":[]}".length() + 1024);
        assertThat(FollowingPairs.answerBytes(64)).isEqualTo(14 + 64 * 1024 + 63);
        assertThat(FollowingPairs.answerBytes(1000)).isEqualTo(1_025_013);
        assertThatThrownBy(() -> FollowingPairs.requestBytes(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FollowingPairs.answerBytes(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
