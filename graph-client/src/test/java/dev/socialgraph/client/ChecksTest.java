package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The single and batch checks and hidden authors against a fake transport: requests, answers, batches, tokens. */
class ChecksTest {

    private static final Pattern ID = Pattern.compile("\\d+");

    /** The ids of a {@code {"ids":[..]}} body. */
    private static long[] ids(Request request) {
        Matcher m = ID.matcher(new String(request.body()));
        return m.results().mapToLong(r -> Long.parseLong(r.group())).toArray();
    }

    private static String json(long[] ids) {
        return Arrays.stream(ids).sorted().distinct().mapToObj(Long::toString)
                .collect(Collectors.joining(",", "[", "]"));
    }

    @Test
    void isFollowing_asksTheCheckEndpoint_ofTheFollowersInstance_andReadsEitherAnswer() {
        FakeTransport yes = FakeTransport.answering("{\"following\":true}");
        FakeTransport spaced = FakeTransport.answering("{ \"following\" : false, \"extra\": 1 }");

        assertThat(new Checks(yes, null, 1000).isFollowing(5, 6, null)).isTrue();
        assertThat(new Checks(spaced, null, 1000).isFollowing(5, 6, null)).isFalse();

        assertThat(yes.calls()).singleElement().satisfies(c -> {
            assertThat(c.user()).isEqualTo(5);
            assertThat(c.request().endpoint()).isEqualTo(InternalApi.CHECK);
            assertThat(c.request().path()).isEqualTo(InternalApi.CHECK.path(5, 6));
            assertThat(c.request().headers()).isEmpty();
        });
    }

    @Test
    void isFollowing_anAnswerWithoutABooleanFollowing_isUnreadable() {
        for (String answer : new String[] {"{\"following\":\"yes\"}", "{}", "[true]", "not json"}) {
            Checks checks = new Checks(FakeTransport.answering(answer), null, 1000);

            assertThatThrownBy(() -> checks.isFollowing(5, 6, null)).as(answer)
                    .isExactlyInstanceOf(GraphClientException.class)
                    .isInstanceOfSatisfying(GraphClientException.class, e -> {
                        assertThat(e.status()).isEqualTo(200);
                        assertThat(e.type()).isEqualTo(ProblemType.INTERNAL_ERROR);
                    });
        }
    }

    @Test
    void theRememberedToken_goesWithTheActorsChecks_unlessOneIsPassed() {
        AtomicLong now = new AtomicLong();
        FollowTokenMemory tokens = new FollowTokenMemory(1_000, 100, now::get);
        tokens.remember(5, "token-of-5");
        FakeTransport transport = new FakeTransport(r -> r.endpoint() == InternalApi.CHECK ? "{\"following\":true}"
                : "{\"following\":[],\"blocking\":[],\"blockedBy\":[],\"muting\":[]}");
        Checks checks = new Checks(transport, tokens, 1000);

        checks.isFollowing(5, 6, null);
        checks.areFollowing(5, new long[] {6}, null);
        checks.hidden(5, new long[] {6}, null);
        checks.isFollowing(5, 6, "passed");
        checks.isFollowing(6, 5, null);
        now.set(1_000);
        checks.isFollowing(5, 6, null);

        assertThat(transport.calls()).extracting(c -> c.request().headers().get(Headers.FOLLOW_TOKEN))
                .containsExactly("token-of-5", "token-of-5", "token-of-5", "passed", null, null);
    }

    @Test
    void areFollowing_sendsOneRequestPerBatch_andMergesTheirAnswers() {
        // The fake follows every even id.
        FakeTransport transport = new FakeTransport(r -> "{\"following\":"
                + json(Arrays.stream(ids(r)).filter(id -> id % 2 == 0).toArray()) + "}");

        FollowingBatch batch = new Checks(transport, null, 2).areFollowing(9, new long[] {8, 3, 4, 8, 6}, null);

        assertThat(batch.toArray()).containsExactly(true, false, true, true, true);
        assertThat(batch.following()).containsExactly(4, 6, 8);
        assertThat(transport.calls()).extracting(FakeTransport.Call::body)
                .containsExactly("{\"ids\":[8,3]}", "{\"ids\":[4,8]}", "{\"ids\":[6]}");
        assertThat(transport.calls()).allSatisfy(c -> {
            assertThat(c.user()).isEqualTo(9);
            assertThat(c.request().path()).isEqualTo(InternalApi.CONTAINS.path(9));
        });
    }

    @Test
    void hidden_mergesTheBatchesAnswers_eachAscendingAndOnce() {
        // The fake says the viewer blocks every id, mutes those above 4, and is blocked by none.
        FakeTransport transport = new FakeTransport(r -> "{\"blocking\":" + json(ids(r)) + ",\"blockedBy\":[],"
                + "\"muting\":" + json(Arrays.stream(ids(r)).filter(id -> id > 4).toArray()) + "}");

        FollowCheckClient.Hidden hidden = new Checks(transport, null, 2).hidden(1, new long[] {9, 3, 9, 5, 3}, null);

        assertThat(hidden.blocking()).containsExactly(3, 5, 9);
        assertThat(hidden.blockedBy()).isEmpty();
        assertThat(hidden.muting()).containsExactly(5, 9);
        assertThat(transport.calls()).hasSize(3).allSatisfy(c ->
                assertThat(c.request().endpoint()).isEqualTo(InternalApi.HIDDEN));
    }

    @Test
    void anEmptyBatch_sendsNothing_andBadIdsAreRefusedBeforeAnyRequest() {
        FakeTransport transport = FakeTransport.answering("{}");
        Checks checks = new Checks(transport, null, 1000);

        assertThat(checks.areFollowing(1, new long[0], null).size()).isZero();
        assertThat(checks.hidden(1, new long[0], null).isEmpty()).isTrue();
        assertThatThrownBy(() -> checks.hidden(1, new long[] {2, -2}, null)).hasMessageContaining("authors[1]");
        assertThatThrownBy(() -> checks.isFollowing(1, 0, null)).hasMessageContaining("followee");
        assertThat(transport.calls()).isEmpty();
    }

    @Test
    void union_mergesAscendingArrays_eachIdOnce() {
        assertThat(Checks.union(new long[0], new long[] {3, 3, 9})).containsExactly(3, 9);
        assertThat(Checks.union(new long[] {1, 4, 9}, new long[] {2, 4, 10})).containsExactly(1, 2, 4, 9, 10);
        assertThat(Checks.union(new long[] {5}, new long[0])).containsExactly(5);
        assertThat(Checks.union(new long[0], new long[0])).isEmpty();
    }
}
