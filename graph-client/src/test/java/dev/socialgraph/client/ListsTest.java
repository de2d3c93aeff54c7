package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The paged lists against a fake transport: each list's endpoint and owner, the query, the page's shape. */
class ListsTest {

    private static final String PAGE = "{\"items\":[{\"userId\":7,\"followedAt\":1000,\"createdAt\":2000}],"
            + "\"nextCursor\":\"c2\"}";

    @Test
    void eachList_asksItsEndpoint_onItsOwnersInstance() {
        FakeTransport transport = FakeTransport.answering(PAGE);
        Lists lists = new Lists(transport, null);

        Page<FollowCheckClient.Followed> following = lists.follows(InternalApi.FOLLOWING, 3, 10, null);
        lists.follows(InternalApi.FOLLOWERS, 3, 10, "c1");
        Page<FollowCheckClient.Related> blocking = lists.relations(InternalApi.BLOCKING, 4, 10, null);
        lists.relations(InternalApi.MUTING, 4, 10, null);
        Page<Long> common = lists.commonFollowing(5, 6, 10, null);
        Page<FollowCheckClient.Followed> known = lists.knownFollowers(8, 9, 10, "c1");

        assertThat(known.items()).containsExactly(new FollowCheckClient.Followed(7, Instant.ofEpochMilli(1000)));
        assertThat(following).isEqualTo(new Page<>(
                java.util.List.of(new FollowCheckClient.Followed(7, Instant.ofEpochMilli(1000))), "c2"));
        assertThat(blocking.items()).containsExactly(new FollowCheckClient.Related(7, Instant.ofEpochMilli(2000)));
        assertThat(common.items()).containsExactly(7L);
        assertThat(transport.calls())
                .extracting(c -> c.user() + " " + c.request().method() + " " + c.request().target())
                .containsExactly(
                        "3 GET /internal/v1/users/3/following?limit=10",
                        "3 GET /internal/v1/users/3/followers?limit=10&cursor=c1",
                        "4 GET /internal/v1/users/4/blocking?limit=10",
                        "4 GET /internal/v1/users/4/muting?limit=10",
                        "5 GET /internal/v1/users/5/common-following/6?limit=10",
                        "9 GET /internal/v1/users/9/followers/known?limit=10&cursor=c1");
    }

    @Test
    void withRememberedTokens_theFollowingListAndCommonFollowingCarryTheirRowOwnersToken_theFollowersListNone() {
        FakeTransport transport = FakeTransport.answering(PAGE);
        FollowTokenMemory tokens = new FollowTokenMemory(1_000_000_000L, 100, () -> 0L);
        tokens.remember(3, "token-of-3");
        tokens.remember(5, "token-of-5");
        Lists lists = new Lists(transport, tokens);

        lists.follows(InternalApi.FOLLOWING, 3, 10, null);
        lists.follows(InternalApi.FOLLOWERS, 3, 10, null);
        lists.commonFollowing(5, 6, 10, null);
        lists.commonFollowing(6, 5, 10, null);
        lists.follows(InternalApi.FOLLOWING, 4, 10, null);
        lists.knownFollowers(5, 6, 10, null);
        lists.knownFollowers(6, 5, 10, null);

        assertThat(transport.calls()).extracting(c -> c.request().headers().get(Headers.FOLLOW_TOKEN))
                .containsExactly("token-of-3", null, "token-of-5", null, null, "token-of-5", null);
    }

    @Test
    void query_percentEncodesTheOpaqueCursor() {
        assertThat(Lists.query(2, null)).isEqualTo("limit=2");
        assertThat(Lists.query(5, "a+b/c= d&e")).isEqualTo("limit=5&cursor=a%2Bb%2Fc%3D+d%26e");
    }

    @Test
    void aPageWithoutAnItemsArray_isUnreadable() {
        for (String answer : new String[] {"{\"nextCursor\":null}", "{\"items\":{}}", "{\"items\":[{}]}"}) {
            Lists lists = new Lists(FakeTransport.answering(answer), null);

            assertThatThrownBy(() -> lists.follows(InternalApi.FOLLOWING, 3, 10, null)).as(answer)
                    .isInstanceOfSatisfying(GraphClientException.class, e -> assertThat(e.status()).isEqualTo(200));
        }
    }

    @Test
    void aLimitBelowOneOrABadId_isRefusedBeforeAnyRequest() {
        FakeTransport transport = FakeTransport.answering(PAGE);
        Lists lists = new Lists(transport, null);

        assertThatThrownBy(() -> lists.follows(InternalApi.FOLLOWING, 3, 0, null)).hasMessageContaining("limit");
        assertThatThrownBy(() -> lists.relations(InternalApi.MUTING, -3, 5, null)).hasMessageContaining("user");
        assertThatThrownBy(() -> lists.commonFollowing(1, 0, 5, null)).hasMessageContaining("b");
        assertThat(transport.calls()).isEmpty();
    }
}
