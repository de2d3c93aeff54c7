package dev.socialgraph.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.annotation.JsonSerialize;
import tools.jackson.databind.json.JsonMapper;

class UserIdJsonTest {

    record Answer(@JsonSerialize(using = UserIdJson.Id.class) long userId,
                  @JsonSerialize(using = UserIdJson.Ids.class) long[] ids, long followedAt, int count) {
    }

    private static final Answer ANSWER = new Answer(9_007_199_254_740_993L, new long[] {1, Long.MAX_VALUE},
            1_700_000_000_000L, 3);

    @Test
    void byDefault_idsAreNumbers() {
        assertThat(JsonMapper.builder().build().writeValueAsString(ANSWER)).isEqualTo(
                "{\"userId\":9007199254740993,\"ids\":[1,9223372036854775807],\"followedAt\":1700000000000,\"count\":3}");
    }

    @Test
    void asked_everyIdIsAString_andOtherNumbersStayNumbers() {
        assertThat(new String(UserIdJson.write(ANSWER), StandardCharsets.UTF_8)).isEqualTo(
                "{\"userId\":\"9007199254740993\",\"ids\":[\"1\",\"9223372036854775807\"],"
                        + "\"followedAt\":1700000000000,\"count\":3}");
    }

    @Test
    void theParameter_isTrueFalseOrAbsent_anythingElseNamesIt() {
        assertThat(UserIdJson.asStrings(null)).isFalse();
        assertThat(UserIdJson.asStrings("false")).isFalse();
        assertThat(UserIdJson.asStrings("true")).isTrue();
        for (String bad : new String[] {"", "1", "TRUE", "yes"}) {
            assertThatThrownBy(() -> UserIdJson.asStrings(bad)).isInstanceOf(BadParameterException.class)
                    .extracting(e -> ((BadParameterException) e).parameter()).isEqualTo("stringify_ids");
        }
    }
}
