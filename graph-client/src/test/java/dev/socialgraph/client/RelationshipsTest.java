package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Relationship, counts and suggestions against a fake transport: headers, query, fields hidden from a viewer. */
class RelationshipsTest {

    @Test
    void relationship_sendsTheViewerOnlyWhenThereIsOne_andReadsHiddenFieldsAsEmpty() {
        FakeTransport transport = FakeTransport.answering("{\"following\":true,\"followedBy\":false,"
                + "\"blocking\":false,\"blockedBy\":null}");
        Relationships relationships = new Relationships(transport, null);

        FollowCheckClient.Relationship all = relationships.relationship(1, 2, 0, "t");
        relationships.relationship(1, 2, 9, null);

        assertThat(all.following()).isTrue();
        assertThat(all.blocking()).contains(false);
        assertThat(all.blockedBy()).isEmpty();
        assertThat(all.muting()).isEmpty();
        assertThat(transport.calls()).extracting(c -> c.request().headers()).containsExactly(
                java.util.Map.of(Headers.FOLLOW_TOKEN, "t"), java.util.Map.of(Headers.VIEWER_ID, "9"));
        assertThat(transport.calls()).allSatisfy(c -> {
            assertThat(c.user()).isEqualTo(1);
            assertThat(c.request().path()).isEqualTo(InternalApi.RELATIONSHIP.path(1, 2));
        });
    }

    @Test
    void counts_carryTheUsersRememberedToken() {
        FakeTransport transport = FakeTransport.answering("{\"followers\":3,\"following\":4}");
        FollowTokenMemory tokens = new FollowTokenMemory(1_000_000_000L, 100, () -> 0L);
        tokens.remember(5, "token-of-5");
        Relationships relationships = new Relationships(transport, tokens);

        relationships.counts(5);
        relationships.counts(6);

        assertThat(transport.calls()).extracting(c -> c.request().headers().get(Headers.FOLLOW_TOKEN))
                .containsExactly("token-of-5", null);
    }

    @Test
    void countsAndSuggestions_askTheUsersInstance() {
        FakeTransport transport = new FakeTransport(r -> r.endpoint() == InternalApi.COUNTS
                ? "{\"followers\":3,\"following\":4}"
                : "{\"items\":[{\"userId\":8,\"mutualCount\":2},{\"userId\":9,\"mutualCount\":1}]}");
        Relationships relationships = new Relationships(transport, null);

        assertThat(relationships.counts(5)).isEqualTo(new FollowCheckClient.Counts(3, 4));
        assertThat(relationships.suggestions(5, 2)).isEqualTo(List.of(new FollowCheckClient.Suggestion(8, 2),
                new FollowCheckClient.Suggestion(9, 1)));
        assertThat(transport.calls()).extracting(c -> c.user() + " " + c.request().target())
                .containsExactly("5 /internal/v1/users/5/counts", "5 /internal/v1/users/5/suggestions?limit=2");
    }

    @Test
    void anAnswerWithoutARequiredMember_isUnreadable_namingIt() {
        Relationships relationships = new Relationships(FakeTransport.answering("{\"followers\":3}"), null);

        assertThatThrownBy(() -> relationships.counts(5)).isInstanceOf(GraphClientException.class)
                .hasMessageContaining("'following'");
        assertThatThrownBy(() -> relationships.suggestions(5, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
