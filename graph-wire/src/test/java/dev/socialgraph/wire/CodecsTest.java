package dev.socialgraph.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.common.problem.ProblemType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The codecs both ends of a body use: what one writes, the other reads back unchanged. */
class CodecsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static JsonNode json(String text) {
        return JSON.readTree(text);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void followingAnswer_isTheSameBytesEverywhere_andReadsBack() {
        assertThat(new String(FollowingAnswer.bytes(true), StandardCharsets.US_ASCII)).isEqualTo("{\"following\":true}");
        assertThat(new String(FollowingAnswer.bytes(false), StandardCharsets.US_ASCII))
                .isEqualTo("{\"following\":false}");
        assertThat(FollowingAnswer.read(json("{\"following\":true}"))).isTrue();
        assertThat(FollowingAnswer.read(JSON.readTree(FollowingAnswer.bytes(false)))).isFalse();
        assertThatThrownBy(() -> FollowingAnswer.read(json("{\"following\":\"yes\"}")))
                .isInstanceOfSatisfying(WireFormatException.class, e -> assertThat(e.field()).isEqualTo("following"));
    }

    @Test
    void pairsRequest_encodedByTheGateway_isDecodedByTheCheckService_tokensEscaped() {
        FollowingPairs.Request sent = new FollowingPairs.Request(new long[] {1, Long.MAX_VALUE},
                new long[] {2, 3}, new long[] {0, Long.MAX_VALUE}, new String[] {null, "a\"b\\c"});

        FollowingPairs.Request read = FollowingPairs.decodeRequest(JSON.readTree(FollowingPairs.encodeRequest(sent)), 10);

        assertThat(read.followerIds()).containsExactly(1, Long.MAX_VALUE);
        assertThat(read.followeeIds()).containsExactly(2, 3);
        assertThat(read.viewerIds()).as("no viewer is 0").containsExactly(0, Long.MAX_VALUE);
        assertThat(read.followTokens()).containsExactly(null, "a\"b\\c");
        assertThat(FollowingPairs.encodeRequest(sent).length).as("the longest ids fit the bound with a short token")
                .isLessThan(2 * FollowingPairs.MAX_PAIR_BYTES);
    }

    @Test
    void pairsRequest_badShapes_nameTheMember() {
        String[][] cases = {
                {"[]", "body"}, {"{}", "pairs"}, {"{\"pairs\":[]}", "pairs"},
                {"{\"pairs\":[{\"followerId\":1,\"followeeId\":2},{\"followerId\":1,\"followeeId\":2},"
                        + "{\"followerId\":1,\"followeeId\":2}]}", "pairs"},
                {"{\"pairs\":[7]}", "pairs[0]"},
                {"{\"pairs\":[{\"followeeId\":2}]}", "pairs[0].followerId"},
                {"{\"pairs\":[{\"followerId\":1,\"followeeId\":2,\"followToken\":5}]}", "pairs[0].followToken"},
                {"{\"pairs\":[{\"followerId\":1,\"followeeId\":2,\"viewerId\":true}]}", "pairs[0].viewerId"},
                {"{\"pairs\":[{\"followerId\":1,\"followeeId\":2,\"followToken\":\"" + "x".repeat(65) + "\"}]}",
                        "pairs[0].followToken"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> FollowingPairs.decodeRequest(json(c[0]), 2)).as(c[0])
                    .isInstanceOfSatisfying(WireFormatException.class, e -> assertThat(e.field()).isEqualTo(c[1]));
        }
        assertThatThrownBy(() -> FollowingPairs.decodeRequest(json("{\"pairs\":[{\"followerId\":0,\"followeeId\":2}]}"),
                2)).isInstanceOfSatisfying(InvalidUserIdException.class,
                        e -> assertThat(e.field()).isEqualTo("pairs[0].followerId"));
    }

    @Test
    void pairsAnswer_encodedByTheCheckService_isDecodedByTheGateway() {
        byte[] problem = bytes("{\"type\":\"https://socialgraph.dev/problems/timeout\",\"title\":\"Gateway Timeout\","
                + "\"status\":504,\"detail\":\"d\"}");
        byte[] answer = FollowingPairs.encodeAnswer(new byte[][] {FollowingAnswer.bytes(true), problem,
                FollowingAnswer.bytes(false)});

        List<FollowingPairs.Result> results = FollowingPairs.decodeAnswer(answer, 3);

        assertThat(results.get(0)).isEqualTo(new FollowingPairs.Following(true));
        assertThat(results.get(1)).isInstanceOfSatisfying(FollowingPairs.Problem.class, p -> {
            assertThat(p.status()).isEqualTo(504);
            assertThat(p.members()).containsEntry("detail", "d");
        });
        assertThat(results.get(2)).isEqualTo(new FollowingPairs.Following(false));
    }

    @Test
    void pairsAnswer_ofTheWrongCountOrShape_isRefused() {
        for (String body : new String[] {"not json", "{\"results\":[{\"following\":true}]}",
                "{\"results\":[{\"following\":true},{\"x\":1}]}", "{\"results\":[{\"following\":true},{\"status\":200}]}"}) {
            assertThatThrownBy(() -> FollowingPairs.decodeAnswer(bytes(body), 2)).as(body)
                    .isInstanceOfSatisfying(WireFormatException.class, e -> assertThat(e.field()).isEqualTo("results"));
        }
    }

    @Test
    void problemDocument_readsAnyObject_andNothingElse() {
        ProblemDocument problem = ProblemDocument.parse(bytes("{\"type\":\"https://socialgraph.dev/problems/"
                + "shard-unavailable\",\"title\":\"Service Unavailable\",\"status\":503,\"detail\":\"down\","
                + "\"instance\":\"/v1/users/1/counts\",\"parameter\":\"id\"}")).orElseThrow();

        assertThat(problem.problemType(500)).isEqualTo(ProblemType.SHARD_UNAVAILABLE);
        assertThat(problem.status()).isEqualTo(503);
        assertThat(problem.detail()).isEqualTo("down");
        assertThat(problem.title()).isEqualTo("Service Unavailable");
        assertThat(problem.instance()).isEqualTo("/v1/users/1/counts");
        assertThat(problem.parameter()).isEqualTo("id");

        ProblemDocument foreign = ProblemDocument.parse(bytes("{\"type\":\"about:blank\",\"status\":\"x\"}"))
                .orElseThrow();
        assertThat(foreign.problemType(429)).isEqualTo(ProblemType.RATE_LIMITED);
        assertThat(foreign.status()).isZero();
        assertThat(foreign.problemType(200)).isEqualTo(ProblemType.INTERNAL_ERROR);
        for (String none : new String[] {"", "[1]", "\"text\"", "<html>"}) {
            assertThat(ProblemDocument.parse(bytes(none))).as(none).isEmpty();
        }
        assertThat(ProblemDocument.parse(null)).isEmpty();
    }
}
