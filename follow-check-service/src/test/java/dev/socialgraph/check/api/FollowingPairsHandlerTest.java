package dev.socialgraph.check.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.check.follow.Answer;
import dev.socialgraph.check.reads.FakeGraph;
import dev.socialgraph.check.reads.GraphReads;
import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.store.account.AccountState;
import dev.socialgraph.web.BadParameterException;
import dev.socialgraph.wire.FollowingPairs;
import dev.socialgraph.wire.WireFormatException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.mock.web.reactive.function.server.MockServerRequest;
import org.springframework.web.reactive.function.server.EntityResponse;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link FollowingPairsHandler} over the read path's plain fakes ({@link FakeGraph}) and a scheduler that counts
 * what is handed to it: each pair answered as its single check would be, in order; the pairs memory answers on the
 * calling (I/O) thread; a failed pair as its problem document while the others are answered; bad input refused
 * before any layer is asked.
 */
class FollowingPairsHandlerTest {

    static final long A = 10;
    static final long B = 20;
    static final long C = 30;
    static final JsonMapper JSON = JsonMapper.builder().build();
    /** {@code graph.web.max-request-size}'s default, 1 MB. */
    static final long BODY_LIMIT = 1 << 20;
    /** A pair timeout no test that does not hang reaches. */
    static final Duration NEVER = Duration.ofSeconds(30);
    /** The pair timeout of the tests where a pair hangs. */
    static final Duration SHORT = Duration.ofMillis(200);

    final FakeGraph graph = new FakeGraph();
    final AtomicInteger hops = new AtomicInteger();
    final Scheduler blocking = Schedulers.fromExecutor(task -> {
        hops.incrementAndGet();
        task.run();
    });
    final FollowingPairsHandler pairs = new FollowingPairsHandler(graph.reads, 5, BODY_LIMIT, NEVER, blocking);

    FollowingPairsHandlerTest() {
        graph.follows(A, B); // A follows B; B follows nobody; C follows A
        graph.follows(C, A);
        graph.bloom.addAll(List.of(List.of(A, B), List.of(C, A), List.of(B, A)));
    }

    @Test
    void everyPairMemoryAnswers_isAnsweredInOrder_withoutAHop() {
        graph.local.put(A, new long[] {B});
        graph.local.put(B, new long[0]);
        assertThat(answer("{\"pairs\":[{\"followerId\":10,\"followeeId\":20},{\"followerId\":\"20\",\"followeeId\":10},"
                + "{\"followerId\":10,\"followeeId\":99},{\"followerId\":10,\"followeeId\":20,\"followToken\":null}]}"))
                .isEqualTo("{\"results\":[{\"following\":true},{\"following\":false},{\"following\":false},"
                        + "{\"following\":true}]}");
        assertThat(hops).hasValue(0);
        assertThat(graph.shardReads).hasValue(0);
    }

    @Test
    void pairsMemoryCannotAnswer_goToTheBlockingScheduler_oneTaskEach() {
        graph.local.put(A, new long[] {B});
        assertThat(answer("{\"pairs\":[{\"followerId\":30,\"followeeId\":10},{\"followerId\":10,\"followeeId\":20},"
                + "{\"followerId\":20,\"followeeId\":10}]}"))
                .isEqualTo("{\"results\":[{\"following\":true},{\"following\":true},{\"following\":false}]}");
        assertThat(hops).as("C's and B's rows are not in memory").hasValue(2);
        assertThat(graph.shardReads).hasValue(2);
    }

    /** Each pair with its own token, inactive users and blocks: the same answers as the single check's. */
    @Test
    void eachPair_isAnsweredAsItsSingleCheck() {
        graph.local.put(A, new long[0]); // stale: the follow of B has not arrived
        graph.local.put(C, new long[] {A});
        graph.follows(B, A); // B follows A, and A blocks B: the block's event has not removed the follow yet
        graph.relates(Relation.BLOCK, A, B);
        graph.filterSawBlock(A, B);
        graph.follows(40, B);
        graph.bloom.add(List.of(40L, B));
        graph.inactive.apply(40, AccountState.DEACTIVATED);
        String ofA = graph.tokens.issue(A);
        String ofB = graph.tokens.issue(B);
        CheckProperties properties = new Binder(new MapConfigurationPropertySource(Map.of(
                "graph.check.token-secret", "following-pairs-handler-test-token-secret-0123456789",
                "graph.check.cursor-key", "following-pairs-handler-test-cursor-key-0123456789")))
                .bindOrCreate("graph.check", CheckProperties.class);
        GraphReadHandlers single = new GraphReadHandlers(graph.reads, properties, blocking);

        long[][] asked = {{A, B}, {A, B}, {B, A}, {C, A}, {40, B}, {A, C}, {C, A}};
        String[] tokens = {null, ofA, null, null, null, ofB, ofA};
        StringBuilder body = new StringBuilder("{\"pairs\":[");
        StringBuilder expected = new StringBuilder("{\"results\":[");
        for (int i = 0; i < asked.length; i++) {
            body.append(i == 0 ? "" : ",").append("{\"followerId\":").append(asked[i][0]).append(",\"followeeId\":")
                    .append(asked[i][1]).append(tokens[i] == null ? "" : ",\"followToken\":\"" + tokens[i] + "\"")
                    .append('}');
            expected.append(i == 0 ? "" : ",").append(body(single.isFollowing(check(asked[i][0], asked[i][1],
                    tokens[i])).block()));
        }
        FollowingPairsHandler seven = new FollowingPairsHandler(graph.reads, 7, BODY_LIMIT, NEVER, blocking);
        assertThat(answer(seven, body.append("]}").toString())).isEqualTo(expected.append("]}").toString())
                .isEqualTo("{\"results\":[{\"following\":false},{\"following\":true},{\"following\":false},"
                        + "{\"following\":true},{\"following\":false},{\"following\":false},{\"following\":true}]}");
    }

    /** A protected follower's follows, asked by its viewer: answered to the follower and its followers only. */
    @Test
    void aPairOfAProtectedFollower_isItsViewersProblem_unlessTheViewerMaySee() {
        graph.local.put(A, new long[] {B});
        graph.local.put(B, new long[0]);
        graph.local.put(C, new long[] {A});
        graph.inactive.apply(A, AccountState.ACTIVE, true); // A, who follows B, is protected; C follows A

        String answer = answer("{\"pairs\":[{\"followerId\":10,\"followeeId\":20,\"viewerId\":20},"
                + "{\"followerId\":10,\"followeeId\":20,\"viewerId\":10},"
                + "{\"followerId\":10,\"followeeId\":20,\"viewerId\":30},"
                + "{\"followerId\":10,\"followeeId\":20},{\"followerId\":20,\"followeeId\":10,\"viewerId\":20}]}");

        JsonNode results = JSON.readTree(answer).get("results");
        assertThat(results.get(0).get("status").asInt()).as("B, whom A did not accept").isEqualTo(403);
        assertThat(results.get(0).get("type").asString())
                .isEqualTo("https://socialgraph.dev/problems/protected-account");
        assertThat(results.get(0).get("parameter").asString()).isEqualTo("id");
        assertThat(results.get(0).get("instance").asString()).isEqualTo("/internal/v1/users/10/following/20");
        assertThat(results.get(1).toString()).as("A itself").isEqualTo("{\"following\":true}");
        assertThat(results.get(2).toString()).as("C, A's follower").isEqualTo("{\"following\":true}");
        assertThat(results.get(3).toString()).as("a backend").isEqualTo("{\"following\":true}");
        assertThat(results.get(4).toString()).as("B's own follows are public").isEqualTo("{\"following\":false}");
        assertThat(hops).hasValue(0);
    }

    @Test
    void aPairOnADatabaseThatIsDown_isItsProblem_andTheOthersAreAnswered() {
        graph.down.add(C);
        graph.local.put(A, new long[] {B});
        String answer = answer("{\"pairs\":[{\"followerId\":10,\"followeeId\":20},{\"followerId\":30,\"followeeId\":10},"
                + "{\"followerId\":20,\"followeeId\":10}]}");
        JsonNode results = JSON.readTree(answer).get("results");
        assertThat(results.get(0).toString()).isEqualTo("{\"following\":true}");
        assertThat(results.get(2).toString()).isEqualTo("{\"following\":false}");
        JsonNode problem = results.get(1);
        assertThat(problem.get("status").intValue()).isEqualTo(503);
        assertThat(problem.get("type").stringValue()).isEqualTo("https://socialgraph.dev/problems/shard-unavailable");
        assertThat(problem.get("title").stringValue()).isEqualTo("Shard unavailable");
        assertThat(problem.get("detail").stringValue())
                .isEqualTo("the shard database holding this user is unavailable; retry later");
        assertThat(problem.get("instance").stringValue()).isEqualTo("/internal/v1/users/30/following/10");
    }

    /**
     * One pair whose read blocks (a hung database) among pairs memory answers and pairs the shard answers: they get
     * their answers at the deadline, it gets its own 503 shard-unavailable; its late answer changes nothing.
     */
    @Test
    void aPairThatHangs_isItsOwn503AtTheDeadline_andTheOthersAreAnswered() throws Exception {
        long hung = Long.MAX_VALUE;
        graph.bloom.add(List.of(hung, A));
        graph.local.put(A, new long[] {B});
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger lateAnswers = new AtomicInteger();
        GraphReads hanging = delegating((follower, followee, writer) -> {
            if (follower == hung) {
                release.await();
                lateAnswers.incrementAndGet();
                return true;
            }
            return graph.reads.isFollowing(follower, followee, writer, true) == Answer.YES;
        });
        Scheduler threads = Schedulers.newBoundedElastic(4, 100, "pairs-test");
        try {
            FollowingPairsHandler handler = new FollowingPairsHandler(hanging, 5, BODY_LIMIT, SHORT, threads);
            long start = System.nanoTime();
            String answer = answer(handler, "{\"pairs\":[{\"followerId\":10,\"followeeId\":20},"
                    + "{\"followerId\":30,\"followeeId\":10},{\"followerId\":" + hung + ",\"followeeId\":10},"
                    + "{\"followerId\":20,\"followeeId\":10}]}");
            long tookMillis = (System.nanoTime() - start) / 1_000_000;

            assertThat(tookMillis).as("answered at the deadline, not when the read ends").isBetween(150L, 5_000L);
            JsonNode results = JSON.readTree(answer).get("results");
            assertThat(results.get(0).toString()).as("memory").isEqualTo("{\"following\":true}");
            assertThat(results.get(1).toString()).as("the shard").isEqualTo("{\"following\":true}");
            assertThat(results.get(3).toString()).as("the shard").isEqualTo("{\"following\":false}");
            JsonNode timedOut = results.get(2);
            assertThat(timedOut.get("status").intValue()).isEqualTo(503);
            assertThat(timedOut.get("type").stringValue()).isEqualTo("https://socialgraph.dev/problems/shard-unavailable");
            assertThat(timedOut.get("title").stringValue()).isEqualTo("Service Unavailable");
            assertThat(timedOut.get("detail").stringValue())
                    .isEqualTo("the check of this pair did not finish within 200 ms; retry later");
            assertThat(timedOut.get("instance").stringValue())
                    .isEqualTo("/internal/v1/users/" + hung + "/following/10");
            assertThat(timedOut.toString().length()).isLessThan(300)
                    .isLessThanOrEqualTo(FollowingPairs.MAX_RESULT_BYTES);

            release.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> lateAnswers.get() == 1);
            assertThat(answer).as("the late answer was dropped").contains("\"status\":503");
        } finally {
            release.countDown();
            threads.dispose();
        }
    }

    /**
     * A pair still waiting for a thread behind a hung one at the deadline gets the overload 503 (no thread was free in
     * time), the hung one its 503; the waiting one is never read afterwards.
     */
    @Test
    void aPairQueuedBehindAHungOne_isTheOverload503_andNotReadAfterTheDeadline() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger reads = new AtomicInteger();
        GraphReads hanging = delegating((follower, followee, writer) -> {
            reads.incrementAndGet();
            if (follower == C) {
                release.await();
            }
            return graph.reads.isFollowing(follower, followee, writer, true) == Answer.YES;
        });
        Scheduler oneThread = Schedulers.newBoundedElastic(1, 100, "pairs-test-one");
        try {
            JsonNode results = JSON.readTree(answer(new FollowingPairsHandler(hanging, 5, BODY_LIMIT, SHORT,
                    oneThread), "{\"pairs\":[{\"followerId\":30,\"followeeId\":10},"
                    + "{\"followerId\":20,\"followeeId\":10}]}")).get("results");

            assertThat(results.get(0).get("status").intValue()).isEqualTo(503);
            assertThat(results.get(0).get("type").stringValue()).isEqualTo("https://socialgraph.dev/problems/shard-unavailable");
            JsonNode waited = results.get(1);
            assertThat(waited.get("status").intValue()).as("queued behind the hung read").isEqualTo(503);
            assertThat(waited.get("type").stringValue())
                    .isEqualTo("https://socialgraph.dev/problems/service-unavailable");
            assertThat(waited.get("title").stringValue()).isEqualTo("Overloaded");
            assertThat(waited.get("instance").stringValue()).isEqualTo("/internal/v1/users/20/following/10");
            release.countDown();
            // The one thread runs the hung read to its end, then the queued task, which finds its pair answered and
            // reads nothing, then this one.
            assertThat(Mono.fromCallable(reads::get).subscribeOn(oneThread).block(Duration.ofSeconds(10)))
                    .isEqualTo(1);
        } finally {
            release.countDown();
            oneThread.dispose();
        }
    }

    /** A blocking read of one pair, which may wait. */
    @FunctionalInterface
    interface BlockingRead {
        boolean isFollowing(long follower, long followee, long writer) throws InterruptedException;
    }

    /** The graph's reads, but each pair memory cannot answer read by {@code read}. */
    private GraphReads delegating(BlockingRead read) {
        return new GraphReads(graph.checker, graph.relations, graph.accounts, null, null) {
            @Override
            public int isFollowing(long followerId, long followeeId, long writer, boolean mayBlock) {
                if (!mayBlock) {
                    return graph.reads.isFollowing(followerId, followeeId, writer, false);
                }
                try {
                    return Answer.of(read.isFollowing(followerId, followeeId, writer));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    @Test
    void noThreadFree_isTheOverloadProblem_forThePairsMemoryCannotAnswer() {
        graph.local.put(A, new long[] {B});
        FollowingPairsHandler full = new FollowingPairsHandler(graph.reads, 5, BODY_LIMIT, NEVER,
                Schedulers.fromExecutor(task -> {
                    throw new RejectedExecutionException("queue full");
                }));
        JsonNode results = JSON.readTree(answer(full, "{\"pairs\":[{\"followerId\":30,\"followeeId\":10},"
                + "{\"followerId\":10,\"followeeId\":20}]}")).get("results");
        assertThat(results.get(0).get("status").intValue()).isEqualTo(503);
        assertThat(results.get(0).get("type").stringValue())
                .isEqualTo("https://socialgraph.dev/problems/service-unavailable");
        assertThat(results.get(0).get("title").stringValue()).isEqualTo("Overloaded");
        assertThat(results.get(1).toString()).isEqualTo("{\"following\":true}");
    }

    @Test
    void aBug_isThe500Problem_withoutInternals() {
        GraphReads broken = new GraphReads(graph.checker, graph.relations, graph.accounts, null, null) {
            @Override
            public int isFollowing(long followerId, long followeeId, long writer, boolean mayBlock) {
                if (!mayBlock) {
                    return super.isFollowing(followerId, followeeId, writer, false);
                }
                throw new IllegalStateException("secret internals");
            }
        };
        JsonNode result = JSON.readTree(answer(new FollowingPairsHandler(broken, 5, BODY_LIMIT, NEVER, blocking),
                "{\"pairs\":[{\"followerId\":30,\"followeeId\":10}]}")).get("results").get(0);
        assertThat(result.get("status").intValue()).isEqualTo(500);
        assertThat(result.get("type").stringValue()).isEqualTo("https://socialgraph.dev/problems/internal-error");
        assertThat(result.toString()).doesNotContain("secret");
    }

    /** The gateway reads an answer by {@link FollowingPairs#answerBytes}: no pair's problem may pass its share. */
    @Test
    void everyProblemAPairCanGet_fitsTheResultBound_withTheLongestIds() {
        long max = Long.MAX_VALUE;
        graph.down.add(max);
        graph.bloom.add(List.of(max, max - 1));
        String pair = "{\"pairs\":[{\"followerId\":" + max + ",\"followeeId\":" + (max - 1) + "}]}";
        GraphReads broken = new GraphReads(graph.checker, graph.relations, graph.accounts, null, null) {
            @Override
            public int isFollowing(long followerId, long followeeId, long writer, boolean mayBlock) {
                if (!mayBlock) {
                    return super.isFollowing(followerId, followeeId, writer, false);
                }
                throw new IllegalStateException("a bug");
            }
        };
        List<String> problems = List.of(
                answer(pairs, pair),
                answer(new FollowingPairsHandler(graph.reads, 5, BODY_LIMIT, NEVER, Schedulers.fromExecutor(task -> {
                    throw new RejectedExecutionException("queue full");
                })), pair),
                answer(new FollowingPairsHandler(broken, 5, BODY_LIMIT, NEVER, blocking), pair));
        for (String answer : problems) {
            JsonNode result = JSON.readTree(answer).get("results").get(0);
            assertThat(result.get("instance").stringValue()).isEqualTo("/internal/v1/users/" + max + "/following/"
                    + (max - 1));
            assertThat(result.toString().getBytes(StandardCharsets.UTF_8).length).as(answer)
                    .isLessThan(300).isLessThanOrEqualTo(FollowingPairs.MAX_RESULT_BYTES);
        }
        assertThat(problems).extracting(a -> JSON.readTree(a).get("results").get(0).get("status").intValue())
                .containsExactly(503, 503, 500);
    }

    /** A full batch answered 413 would fail every caller in it: a batch-max the body cannot hold stops start-up. */
    @Test
    void aBatchMaxWhosePairsMayNotFitTheBodyLimit_stopsStartUp() {
        assertThat(FollowingPairs.requestBytes(1000)).as("the default batch-max").isEqualTo(500_011)
                .isLessThan(BODY_LIMIT);
        new FollowingPairsHandler(graph.reads, 2097, BODY_LIMIT, NEVER, blocking); // 1,048,511 bytes
        assertThatThrownBy(() -> new FollowingPairsHandler(graph.reads, 2098, BODY_LIMIT, NEVER, blocking))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("graph.check.batch-max (2098) pairs take up to 1049011 bytes (499 a pair), more than "
                        + "graph.web.max-request-size (1048576 bytes): lower the one or raise the other");
    }

    @Test
    void badInput_isRefusedNamingTheField_beforeAnyLayerIsAsked() {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("[1,2]", "body");
        cases.put("{}", "pairs");
        cases.put("{\"pairs\":{}}", "pairs");
        cases.put("{\"pairs\":[]}", "pairs");
        cases.put("{\"pairs\":[" + "{\"followerId\":1,\"followeeId\":2},".repeat(5) + "{\"followerId\":1,"
                + "\"followeeId\":2}]}", "pairs");
        cases.put("{\"pairs\":[{\"followerId\":1,\"followeeId\":2},7]}", "pairs[1]");
        cases.put("{\"pairs\":[{\"followerId\":1,\"followeeId\":2},{\"followeeId\":2}]}", "pairs[1].followerId");
        cases.put("{\"pairs\":[{\"followerId\":1,\"followeeId\":2},{\"followerId\":0,\"followeeId\":2}]}",
                "pairs[1].followerId");
        cases.put("{\"pairs\":[{\"followerId\":1.5,\"followeeId\":2}]}", "pairs[0].followerId");
        cases.put("{\"pairs\":[{\"followerId\":1,\"followeeId\":\"x\"}]}", "pairs[0].followeeId");
        cases.put("{\"pairs\":[{\"followerId\":1,\"followeeId\":99999999999999999999}]}", "pairs[0].followeeId");
        cases.put("{\"pairs\":[{\"followerId\":1,\"followeeId\":2},{\"followerId\":3,\"followeeId\":4,"
                + "\"followToken\":5}]}", "pairs[1].followToken");
        cases.put("{\"pairs\":[{\"followerId\":1,\"followeeId\":2,\"followToken\":\"" + "A".repeat(64) + "\"},"
                + "{\"followerId\":3,\"followeeId\":4,\"followToken\":\"" + "A".repeat(65) + "\"}]}",
                "pairs[1].followToken");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            assertThat(refused(() -> pairs.check(post(c.getKey())).block())).as(c.getKey()).isEqualTo(c.getValue());
        }
        assertThat(refused(() -> pairs.check(MockServerRequest.builder().body(Mono.empty())).block()))
                .isEqualTo("body");
        MockServerRequest strings = MockServerRequest.builder()
                .uri(URI.create("http://localhost/internal/v1/following/pairs?stringify_ids=yes"))
                .queryParam("stringify_ids", "yes")
                .body(Mono.just(JSON.readTree("{\"pairs\":[{\"followerId\":1,\"followeeId\":2}]}")));
        assertThat(refused(() -> pairs.check(strings).block())).isEqualTo("stringify_ids");
        assertThat(hops).hasValue(0);
        assertThat(graph.shardReads).hasValue(0);
        assertThat(graph.registry.get("graph.check.latency").timers()).as("no layer answered anything")
                .allMatch(timer -> timer.count() == 0);
    }

    private static String refused(Runnable call) {
        try {
            call.run();
        } catch (BadParameterException e) {
            return e.parameter();
        } catch (WireFormatException e) {
            return e.field();
        } catch (InvalidUserIdException e) {
            return e.field();
        }
        throw new AssertionError("not refused");
    }

    private String answer(String json) {
        return answer(pairs, json);
    }

    private static String answer(FollowingPairsHandler handler, String json) {
        return body(handler.check(post(json)).block());
    }

    private static MockServerRequest post(String json) {
        return MockServerRequest.builder().body(Mono.just(JSON.readTree(json)));
    }

    private static MockServerRequest check(long follower, long followee, String token) {
        MockServerRequest.Builder request = MockServerRequest.builder().pathVariable("id", String.valueOf(follower))
                .pathVariable("targetId", String.valueOf(followee));
        return token == null ? request.build() : request.header("X-Follow-Token", token).build();
    }

    private static String body(ServerResponse response) {
        assertThat(response.statusCode().value()).isEqualTo(200);
        return new String((byte[]) ((EntityResponse<?>) response).entity(), StandardCharsets.UTF_8);
    }
}
