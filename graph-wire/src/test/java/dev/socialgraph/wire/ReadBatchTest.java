package dev.socialgraph.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class ReadBatchTest {

    static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void aRequest_isReadBackAsWritten_withEscapesAndOnlyTheEndpointsHeaders() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(Headers.FOLLOW_TOKEN, "tok\"en\\\u0001");
        headers.put(Headers.VIEWER_ID, "7");
        List<ReadBatch.Read> reads = List.of(
                new ReadBatch.Read("/internal/v1/users/7/relationship/8", "stringify_ids=true", headers),
                new ReadBatch.Read("/internal/v1/users/7/following", null, Map.of()),
                new ReadBatch.Read("/internal/v1/users/7/counts", "a=%22&b", Map.of(Headers.VIEWER_ID, "7")));
        assertThat(ReadBatch.endpoint("/internal/v1/users/7/suggestions")).as("memory never answers it").isNull();

        List<ReadBatch.Read> back = ReadBatch.decodeRequest(JSON.readTree(ReadBatch.encodeRequest(reads)), 32);

        assertThat(back.get(0)).isEqualTo(reads.get(0));
        assertThat(back.get(1)).isEqualTo(reads.get(1));
        assertThat(back.get(2).query()).isEqualTo("a=%22&b");
        assertThat(back.get(2).headers()).as("counts declares no viewer header").isEmpty();
    }

    @Test
    void maxReadBytes_boundsTheLongestReadAGatewayMayWrite() {
        String path = "/internal/v1/users/1/relationship/2";
        String query = "\u0001".repeat(ReadBatch.MAX_TARGET_CHARS - path.length() - 1);
        String value = "\u0001".repeat(ReadBatch.MAX_HEADER_CHARS);
        ReadBatch.Read longest = new ReadBatch.Read(path, query,
                Map.of(Headers.FOLLOW_TOKEN, value, Headers.VIEWER_ID, value));
        assertThat(ReadBatch.fits(longest)).isTrue();

        int bytes = ReadBatch.encodeRequest(List.of(longest)).length - "{\"reads\":[]}".length();

        assertThat(bytes).isLessThanOrEqualTo(ReadBatch.MAX_READ_BYTES);
        assertThat(ReadBatch.requestBytes(32)).as("32 reads fit the services' 1 MB body limit")
                .isLessThan(1024 * 1024);
        assertThat(ReadBatch.fits(new ReadBatch.Read(path, query + "x", Map.of()))).isFalse();
        assertThat(ReadBatch.fits(new ReadBatch.Read(path, null, Map.of(Headers.FOLLOW_TOKEN, value + "x"))))
                .isFalse();
    }

    @Test
    void anAnswer_givesEachBodyBackByteForByte() {
        byte[] list = "{\"items\":[{\"userId\":\"12\",\"followedAt\":5}],\"nextCursor\":\"}{]\\\"\"}"
                .getBytes(StandardCharsets.UTF_8);
        byte[] problem = "{\"type\":\"x\",\"status\":503,\"detail\":\"é\"}".getBytes(StandardCharsets.UTF_8);
        byte[] answer = ReadBatch.encodeAnswer(List.of(new ReadBatch.Result(200, null, list),
                new ReadBatch.Result(503, "1", problem), ReadBatch.DEFERRED_RESULT));

        List<ReadBatch.Result> results = ReadBatch.decodeAnswer(answer, 3);

        assertThat(JSON.readTree(answer).get("results").get(1).get("retryAfter").stringValue()).isEqualTo("1");
        assertThat(results.get(0).status()).isEqualTo(200);
        assertThat(results.get(0).retryAfter()).isNull();
        assertThat(results.get(0).body()).isEqualTo(list);
        assertThat(results.get(1).status()).isEqualTo(503);
        assertThat(results.get(1).retryAfter()).isEqualTo("1");
        assertThat(results.get(1).body()).isEqualTo(problem);
        assertThat(results.get(0).deferred()).isFalse();
        assertThat(results.get(2).deferred()).isTrue();
        assertThat(JSON.readTree(answer).get("results").get(2).toString()).isEqualTo("{\"deferred\":true}");
    }

    @Test
    void anAnswerOfAnotherShape_isAWireFormatErrorNamingResults() {
        byte[] one = ReadBatch.encodeAnswer(List.of(new ReadBatch.Result(200, null, "{}".getBytes())));
        for (byte[] bad : List.of(one, "not json".getBytes(), "{\"results\":[{\"status\":200}]}".getBytes(),
                "{\"results\":[{\"status\":200,\"body\":[]}]}".getBytes(), "{\"other\":[]}".getBytes())) {
            assertThatThrownBy(() -> ReadBatch.decodeAnswer(bad, bad == one ? 2 : 1)).as(new String(bad))
                    .isInstanceOf(WireFormatException.class)
                    .satisfies(e -> assertThat(((WireFormatException) e).field()).isEqualTo("results"));
        }
    }

    @Test
    void aRequestOfAnotherShape_isAWireFormatErrorNamingTheMember() {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("[]", "body");
        cases.put("{\"reads\":{}}", "reads");
        cases.put("{\"reads\":[1]}", "reads[0]");
        cases.put("{\"reads\":[{\"path\":\"/internal/v1/users/1/following/2\"}]}", "reads[0].path");
        cases.put("{\"reads\":[{\"path\":\"/internal/v1/users/1/counts\",\"query\":3}]}", "reads[0].query");
        cases.put("{\"reads\":[{\"path\":\"/internal/v1/users/1/counts\",\"headers\":[]}]}", "reads[0].headers");
        cases.put("{\"reads\":[{\"path\":\"/internal/v1/users/1/counts\"},{\"path\":\"/internal/v1/users/1/counts\"},"
                + "{\"path\":\"/internal/v1/users/1/counts\"}]}", "reads");
        cases.forEach((body, field) -> assertThatThrownBy(() -> ReadBatch.decodeRequest(JSON.readTree(body), 2))
                .as(body).isInstanceOf(WireFormatException.class)
                .satisfies(e -> assertThat(((WireFormatException) e).field()).isEqualTo(field)));
    }
}
