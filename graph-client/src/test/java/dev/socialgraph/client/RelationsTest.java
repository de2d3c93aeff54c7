package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.wire.InternalApi;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Follows, blocks and mutes against a fake transport: which endpoint, the reply, the token kept for reads. */
class RelationsTest {

    private static final String FOLLOW = "{\"followerId\":1,\"followeeId\":2,\"following\":true,\"followedAt\":5,"
            + "\"version\":3,\"followToken\":\"tf\"}";
    private static final String BLOCK = "{\"userId\":1,\"targetId\":2,\"active\":false,\"createdAt\":null,"
            + "\"version\":4,\"followToken\":\"tb\"}";

    @Test
    void eachRelation_addsWithPut_andRemovesWithDelete_onItsOwnEndpoint() {
        FakeTransport transport = new FakeTransport(r -> r.path().contains("/following/") ? FOLLOW : BLOCK);
        Relations relations = new Relations(transport, null);

        for (Relation relation : List.of(Relation.FOLLOW, Relation.BLOCK, Relation.MUTE)) {
            relations.write(relation, true, 1, 2);
            relations.write(relation, false, 1, 2);
        }
        assertThatThrownBy(() -> relations.write(Relation.REQUEST, true, 1, 2))
                .as("a request is made by following a protected account").isInstanceOf(IllegalArgumentException.class);

        assertThat(transport.calls()).allSatisfy(c -> assertThat(c.write()).isTrue())
                .extracting(c -> c.request().method() + " " + c.request().path()).containsExactly(
                        "PUT /internal/v1/users/1/following/2", "DELETE /internal/v1/users/1/following/2",
                        "PUT /internal/v1/users/1/blocking/2", "DELETE /internal/v1/users/1/blocking/2",
                        "PUT /internal/v1/users/1/muting/2", "DELETE /internal/v1/users/1/muting/2");
        assertThat(Relations.endpoint(Relation.MUTE, false)).isEqualTo(InternalApi.UNMUTE);
    }

    @Test
    void theReply_isReadAsAWriteResult() {
        Relations relations = new Relations(new FakeTransport(r -> r.path().contains("/following/") ? FOLLOW : BLOCK),
                null);

        assertThat(relations.write(Relation.FOLLOW, true, 1, 2))
                .isEqualTo(new WriteResult(Relation.FOLLOW, 1, 2, true, Instant.ofEpochMilli(5), 3, "tf"));
        assertThat(relations.write(Relation.BLOCK, false, 1, 2))
                .isEqualTo(new WriteResult(Relation.BLOCK, 1, 2, false, null, 4, "tb"));
    }

    @Test
    void withReadYourWrites_theActorsTokenIsKept() {
        FollowTokenMemory tokens = new FollowTokenMemory(1_000, 100, new AtomicLong()::get);
        new Relations(FakeTransport.answering(FOLLOW), tokens).write(Relation.FOLLOW, true, 1, 2);

        assertThat(tokens.tokenFor(1, null)).isEqualTo("tf");
        assertThat(tokens.tokenFor(2, null)).isNull();
    }

    @Test
    void badIds_areRefusedBeforeAnyRequest_namingTheirRole() {
        FakeTransport transport = FakeTransport.answering(FOLLOW);
        Relations relations = new Relations(transport, null);

        assertThatThrownBy(() -> relations.write(Relation.FOLLOW, true, 0, 2)).hasMessageContaining("follower");
        assertThatThrownBy(() -> relations.write(Relation.MUTE, true, 1, -2)).hasMessageContaining("target");
        assertThat(transport.calls()).isEmpty();
    }
}
