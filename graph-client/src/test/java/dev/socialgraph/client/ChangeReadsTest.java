package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.client.FollowChanges.ChangeFilter;
import dev.socialgraph.client.FollowChanges.ChangeListener;
import dev.socialgraph.wire.Changes;
import java.net.URI;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The change stream's reads against a fake transport: each read's endpoint, instance choice and query, the page's
 * shape, and every bad argument refused before a request (here and through the facade).
 */
class ChangeReadsTest {

    static final String PAGE = "{\"events\":[{\"eventId\":\"e1\",\"cursor\":\"c1\",\"kind\":\"follow\",\"actorId\":1,"
            + "\"targetId\":2,\"occurredAt\":1700000000000,\"version\":3}],\"cursor\":\"c9\"}";

    @Test
    void eachRead_asksItsEndpoint_wholeStreamOnAnyInstance_ownStreamOnTheOwnersInstance() {
        FakeTransport transport = new FakeTransport(r -> r.path().endsWith("/head") ? "{\"cursor\":\"h1\"}" : PAGE);
        ChangeReads reads = new ChangeReads(transport);

        assertThat(reads.head()).isEqualTo("h1");
        Changes.Page page = reads.page(0, "c0", ChangeFilter.ALL.withKinds("block", "follow").withUsers(7, 2), 50, 10);
        reads.page(5, null, null, 100, 0);

        assertThat(page).isEqualTo(new Changes.Page(
                List.of(new Changes.Event("e1", "c1", "follow", 1, 2, 1_700_000_000_000L, 3)), "c9"));
        assertThat(transport.calls())
                .extracting(c -> c.user() + " " + c.request().method() + " " + c.request().target())
                .containsExactly(
                        "0 GET /internal/v1/changes/head",
                        "0 GET /internal/v1/changes?cursor=c0&kinds=follow,block&users=2,7&limit=50&wait=10",
                        "5 GET /internal/v1/users/5/changes?limit=100&wait=0");
        assertThat(transport.calls()).extracting(c -> c.request().patience()).containsExactly(
                ChangeReads.CATCH_UP, Duration.ofSeconds(10).plus(ChangeReads.CATCH_UP), ChangeReads.CATCH_UP);
    }

    @Test
    void query_percentEncodesTheOpaqueCursor() {
        assertThat(ChangeReads.query("a+b/c= d&e", ChangeFilter.ALL, 1, 30))
                .isEqualTo("cursor=a%2Bb%2Fc%3D+d%26e&limit=1&wait=30");
    }

    @Test
    void anAnswerThatIsNoPageOrCursor_isUnreadable() {
        for (String answer : new String[] {"[]", "{\"cursor\":\"c\"}", "{\"events\":[{}],\"cursor\":\"c\"}",
                "{\"events\":[],\"cursor\":7}", "not json"}) {
            ChangeReads reads = new ChangeReads(FakeTransport.answering(answer));

            assertThatThrownBy(() -> reads.page(0, null, null, 10, 0)).as(answer)
                    .isInstanceOfSatisfying(GraphClientException.class, e -> assertThat(e.status()).isEqualTo(200));
        }
        assertThatThrownBy(() -> new ChangeReads(FakeTransport.answering("{}")).head())
                .isInstanceOfSatisfying(GraphClientException.class, e -> assertThat(e.status()).isEqualTo(200));
    }

    @Test
    void aLimitOrWaitOutOfBounds_aBlankCursorOrABadOwner_isRefusedBeforeAnyRequest() {
        FakeTransport transport = FakeTransport.answering(PAGE);
        ChangeReads reads = new ChangeReads(transport);

        assertThatThrownBy(() -> reads.page(0, null, null, 0, 0)).hasMessageContaining("limit");
        assertThatThrownBy(() -> reads.page(0, null, null, 1001, 0)).hasMessageContaining("limit");
        assertThatThrownBy(() -> reads.page(0, null, null, 10, -1)).hasMessageContaining("wait");
        assertThatThrownBy(() -> reads.page(0, null, null, 10, 31)).hasMessageContaining("wait");
        assertThatThrownBy(() -> reads.page(0, " ", null, 10, 0)).hasMessageContaining("cursor");
        assertThatThrownBy(() -> ChangeReads.requireOwner(0)).hasMessageContaining("user");
        assertThat(transport.calls()).isEmpty();
        reads.page(0, null, null, 1, 0);
        reads.page(0, null, null, 1000, 30);
        assertThat(transport.calls()).hasSize(2);
    }

    @Test
    void throughTheFacade_badArgumentsThrowIllegalArgumentException_beforeAnyRequest() {
        ChangeListener ignoring = new ChangeListener() {
            @Override
            public void onEvent(Changes.Event event, String cursor) {
            }

            @Override
            public void onError(RuntimeException failure) {
            }
        };
        // Port 9 (discard) on loopback: nothing answers there, so a request that did go out would fail otherwise.
        try (FollowCheckClient client = FollowCheckClient.builder()
                .instance("check-0", URI.create("http://127.0.0.1:9")).build()) {
            assertThatThrownBy(() -> client.changes(null, null, 0, 0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.changes(null, null, 1001, 0))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.changes(null, null, 10, 31)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.ownChanges(1, null, null, 10, -1))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.ownChanges(0, null, null, 10, 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("user");
            assertThatThrownBy(() -> client.watchChanges("", null, ignoring))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.watchOwnChanges(-1, null, null, ignoring))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.watchChanges(null, null, null)).isInstanceOf(NullPointerException.class);
        }
    }

    @Test
    void aFilter_refusesUnknownKindsBadIdsAndTooManyUsers_andKeepsTheDocumentedOrder() {
        assertThatThrownBy(() -> ChangeFilter.ALL.withKinds("like")).hasMessageContaining("like");
        assertThatThrownBy(() -> ChangeFilter.ALL.withUsers(1, 0)).hasMessageContaining("users");
        assertThatThrownBy(() -> ChangeFilter.ALL.withUsers(LongStream.rangeClosed(1, 1001).toArray()))
                .hasMessageContaining("1000");
        assertThatThrownBy(() -> new ChangeFilter(Collections.singleton(null), Set.of()))
                .isInstanceOf(NullPointerException.class);

        ChangeFilter filter = ChangeFilter.ALL.withUsers(9, 3, 9).withKinds("unmute", "follow");
        assertThat(filter.kinds()).containsExactly("follow", "unmute");
        assertThat(filter.users()).containsExactly(3L, 9L);
        assertThat(filter).isEqualTo(new ChangeFilter(Set.of("unmute", "follow"), Set.of(3L, 9L)));
        assertThat(ChangeFilter.ALL.withUsers(LongStream.rangeClosed(1, 1000).toArray()).users()
                .stream().map(String::valueOf).collect(Collectors.joining(",")))
                .startsWith("1,2,3").endsWith(",1000");
    }
}
