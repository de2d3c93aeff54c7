package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.gateway.FollowPairsClient.Answer;
import dev.socialgraph.gateway.FollowPairsClient.BatchProblem;
import dev.socialgraph.gateway.FollowPairsClient.Following;
import dev.socialgraph.gateway.FollowPairsClient.Pair;
import dev.socialgraph.gateway.FollowPairsClient.Problem;
import dev.socialgraph.wire.FollowingPairs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import reactor.core.publisher.Flux;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The batch check's body and the reading of its answers, without a server. */
class FollowPairsClientTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void encode_putsEachPairsOwnViewerAndToken_inItsOwnObject_escaped_andNoneWhereThereIsNone() {
        List<Pair> batch = List.of(new Pair(1, 2, 0, null, null), new Pair(3, 4, 3, "tok-3", null),
                new Pair(9_223_372_036_854_775_807L, 5, 8, "a\"b\\c\u0001é", null), new Pair(6, 7, 0, "", null));

        JsonNode body = JSON.readTree(FollowPairsClient.encode(batch));

        JsonNode pairs = body.get("pairs");
        assertThat(body.size()).isEqualTo(1);
        assertThat(pairs.size()).isEqualTo(4);
        assertThat(pairs.get(0).toString()).isEqualTo("{\"followerId\":1,\"followeeId\":2}");
        assertThat(pairs.get(1).get("followToken").asString()).isEqualTo("tok-3");
        assertThat(pairs.get(1).get("viewerId").longValue()).isEqualTo(3);
        assertThat(pairs.get(2).get("viewerId").longValue()).isEqualTo(8);
        assertThat(pairs.get(2).get("followerId").longValue()).isEqualTo(Long.MAX_VALUE);
        assertThat(pairs.get(2).get("followToken").asString()).isEqualTo("a\"b\\c\u0001é");
        assertThat(pairs.get(3).get("followToken").asString()).as("an empty header is passed on as sent").isEmpty();
    }

    /**
     * The check service starts only when its body limit holds {@link FollowingPairs#requestBytes} of its batch-max:
     * every batch the gateway writes must be within it, whatever its callers' headers held.
     */
    @Test
    void encode_ofTheLongestPairsTheGatewayLetsThrough_isWithinTheBound_andAFullBatchFitsOneMegabyte() {
        String worst = "\u0001".repeat(FollowTokens.MAX_LENGTH); // 6 bytes each in JSON
        String real = "A".repeat(FollowTokens.MAX_LENGTH);
        List<Pair> longest = new ArrayList<>();
        List<Pair> realistic = new ArrayList<>();
        for (int i = 0; i < 1000; i++) { // the largest max-batch
            longest.add(new Pair(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, worst, null));
            realistic.add(new Pair(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, real, null));
        }

        assertThat(FollowPairsClient.encode(longest.subList(0, 1))).hasSize(FollowingPairs.MAX_PAIR_BYTES + 12);
        assertThat(FollowPairsClient.encode(longest)).hasSize((int) FollowingPairs.requestBytes(1000));
        assertThat(FollowingPairs.requestBytes(1000)).isEqualTo(500_011).isLessThan(1 << 20);
        assertThat(FollowPairsClient.encode(realistic).length).isEqualTo(12 + 1000 * 179 + 999);
    }

    @Test
    void decode_givesEachPairItsResult_inOrder_withTheInstanceThatAnswered() {
        byte[] body = utf8("{\"results\":[{\"following\":true},{\"following\":false},"
                + "{\"type\":\"https://socialgraph.dev/problems/shard-unavailable\",\"title\":\"Shard unavailable\","
                + "\"status\":503,\"detail\":\"the shard database holding this user is unavailable; retry later\"}]}");

        List<Answer> answers = FollowPairsClient.decode(200, "application/json", null, "check-a", body, 3);

        assertThat(answers).hasSize(3);
        assertThat(answers.get(0)).isEqualTo(new Following(true, "check-a"));
        assertThat(answers.get(1)).isEqualTo(new Following(false, "check-a"));
        assertThat(answers.get(2)).isInstanceOfSatisfying(Problem.class, problem -> {
            assertThat(problem.status()).isEqualTo(503);
            assertThat(problem.servedBy()).isEqualTo("check-a");
            assertThat(problem.members()).containsEntry("title", "Shard unavailable")
                    .containsEntry("type", "https://socialgraph.dev/problems/shard-unavailable");
        });
    }

    @Test
    void decode_ofAnErrorStatus_isTheWholeBatchsProblem_withWhatItCarried() {
        byte[] body = utf8("{\"type\":\"https://socialgraph.dev/problems/invalid-parameter\",\"status\":400}");

        assertThatThrownBy(() -> FollowPairsClient.decode(400, "application/problem+json", "2", "check-b", body, 1))
                .isInstanceOfSatisfying(BatchProblem.class, problem -> {
                    assertThat(problem.status()).isEqualTo(400);
                    assertThat(problem.contentType()).isEqualTo("application/problem+json");
                    assertThat(problem.retryAfter()).isEqualTo("2");
                    assertThat(problem.servedBy()).isEqualTo("check-b");
                    assertThat(problem.body()).isEqualTo(body);
                });
    }

    @Test
    void decode_ofAnAnswerThatIsNotOneResultPerPair_fails() {
        for (String body : new String[] {"{\"results\":[{\"following\":true}]}", "{\"results\":{}}", "not json", "",
                "{\"results\":[{\"following\":\"yes\"},{\"following\":true}]}",
                "{\"results\":[{\"status\":200},{\"following\":true}]}", "{\"results\":[1,2]}"}) {
            assertThatThrownBy(() -> FollowPairsClient.decode(200, "application/json", null, null, utf8(body), 2))
                    .as(body).isInstanceOf(FollowPairsClient.UnusableAnswer.class);
        }
    }

    /**
     * The answer is read up to the most its pairs can take, never whole: a check service (or anything answering in its
     * place) that sends more fails the batch, by its declared length before a byte is read, else as the count passes.
     */
    @Test
    void read_ofAnAnswerOverTheBatchsBound_failsWithoutHoldingIt() {
        long limit = FollowingPairs.answerBytes(2);
        assertThat(limit).isEqualTo(14 + 2 * 1024 + 1);
        byte[] chunk = new byte[1000];
        AtomicInteger subscribed = new AtomicInteger();
        AtomicInteger chunksRead = new AtomicInteger();
        Flux<ByteBuf> endless = Flux.<ByteBuf>generate(sink -> sink.next(Unpooled.wrappedBuffer(chunk)))
                .doOnSubscribe(s -> subscribed.incrementAndGet()).doOnNext(b -> chunksRead.incrementAndGet());

        assertThatThrownBy(() -> FollowPairsClient.read(endless, -1, limit).block())
                .isInstanceOf(FollowPairsClient.AnswerTooLarge.class)
                .hasMessage("the batch call's answer is too large: at least 3000 bytes, over the 2063 bytes its"
                        + " items can take");
        assertThat(chunksRead).as("the third chunk passes the bound; nothing after it is asked").hasValue(3);

        assertThatThrownBy(() -> FollowPairsClient.read(endless, 1_000_000, limit).block())
                .isInstanceOf(FollowPairsClient.AnswerTooLarge.class).hasMessageContaining("1000000 bytes declared");
        assertThat(subscribed).as("a declared length over the bound is refused unread").hasValue(1);
    }

    @Test
    void anUnusableAnswer_isAnsweredAsAServiceThatFailed_503() {
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/v1/users/1/following/2"));

        new GatewayErrors(new ProblemResponses()).handle(exchange, new FollowPairsClient.AnswerTooLarge("x", 1)).block();

        assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
        assertThat(exchange.getResponse().getHeaders().getFirst("Retry-After")).isEqualTo("1");
        JsonNode problem = JSON.readTree(exchange.getResponse().getBodyAsString().block());
        assertThat(problem.get("type").asString()).isEqualTo("https://socialgraph.dev/problems/service-unavailable");
        assertThat(problem.get("detail").asString())
                .isEqualTo("the service behind this route gave an answer the gateway cannot use");
    }

    @Test
    void read_ofAnAnswerWithinTheBound_isItsBytes_inAnyChunks() {
        byte[] answer = utf8("{\"results\":[{\"following\":true},{\"following\":false}]}");
        Flux<ByteBuf> chunks = Flux.just(Unpooled.wrappedBuffer(answer, 0, 5), Unpooled.wrappedBuffer(answer, 5,
                answer.length - 5));

        assertThat(FollowPairsClient.read(chunks, -1, FollowingPairs.answerBytes(2)).block()).isEqualTo(answer);
        assertThat(FollowPairsClient.read(chunks, answer.length, answer.length).block()).isEqualTo(answer);
        assertThat(FollowPairsClient.read(Flux.empty(), 0, 10).block()).isEmpty();
        byte[] exact = new byte[(int) FollowingPairs.answerBytes(1)];
        assertThat(FollowPairsClient.read(Flux.just(Unpooled.wrappedBuffer(exact)), -1, exact.length).block())
                .hasSize(exact.length);
    }

    @Test
    void theBatchesAreSentToTheInstancesPairsPath() {
        FollowPairsClient client = new FollowPairsClient(null, URI.create("http://10.0.0.7:8081"), null);
        assertThat(client.uri()).isEqualTo("http://10.0.0.7:8081/internal/v1/following/pairs");
        assertThat(new FollowPairsClient(null, URI.create("http://check-0.pods:8081/"), null).uri())
                .isEqualTo("http://check-0.pods:8081/internal/v1/following/pairs");
    }
}
