package dev.socialgraph.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.outbox.OutboxEntry;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.Transactions;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.sql.SQLException;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Protected accounts and follow requests over HTTP against real shard databases: protection, a follow of a protected
 * account written as a request, acceptance (the request ends and the follow begins in one transaction), decline,
 * withdrawal by the unfollow, a block ending the blocker's request, the bound of pending requests, and bad input that
 * changes nothing. The relay is off: the events are read from the outbox.
 */
@DirtiesContext
@SpringBootTest(classes = FollowWriteServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class FollowRequestsIT {

    private static final TestShards SHARDS = TestShards.create("write_requests");
    private static final RedisServer REDIS = TestServers.redis();
    private static final String REDIS_URI = REDIS.uri(REDIS.freshDatabase());

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.write.redis.uri", () -> REDIS_URI);
        registry.add("graph.write.relay.enabled", () -> false);
    }

    @AfterAll
    static void close() {
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    ShardDataSources dataSources;

    WriteHttp http;
    ShardRows rows;

    @BeforeEach
    void setUp() {
        http = new WriteHttp(port);
        rows = new ShardRows(dataSources);
    }

    /** Logical shard 5 (first following database) and 200 (second), offset by {@code n} so tests do not meet. */
    private static long firstDb(int n) {
        return 256L * (20_000 + n) + 5;
    }

    private static long secondDb(int n) {
        return 256L * (20_000 + n) + 200;
    }

    private WriteHttp.Reply protection(boolean on, long userId) {
        return http.send(on ? "PUT" : "DELETE", "/internal/v1/users/" + userId + "/protection");
    }

    private WriteHttp.Reply answer(boolean accept, Object userId, Object requesterId) {
        return http.send(accept ? "PUT" : "DELETE", "/internal/v1/users/" + userId + "/follow-requests/" + requesterId);
    }

    @Test
    void aFollowOfAProtectedAccount_isARequest_untilAccepted_thenAFollowFromThatMoment() {
        long owner = secondDb(1);
        long requester = firstDb(1);
        WriteHttp.Reply protect = protection(true, owner);
        assertThat(protect.status()).isEqualTo(200);
        assertThat(protect.body().get("protected").asBoolean()).isTrue();
        assertThat(protect.body().get("version").asLong()).isEqualTo(1);

        WriteHttp.Reply asked = http.follow(requester, owner);
        assertThat(asked.status()).isEqualTo(202);
        assertThat(asked.body().get("following").asBoolean()).isFalse();
        assertThat(asked.body().get("requested").asBoolean()).isTrue();
        assertThat(asked.body().get("followedAt").isNull()).isTrue();
        long requestedAt = asked.body().get("requestedAt").asLong();
        assertThat(asked.body().get("followToken").asString()).hasSize(64);
        assertThat(rows.row(Relation.REQUEST, requester).orElseThrow().followingIds()).containsExactly(owner);
        assertThat(rows.followingRow(requester).orElseThrow().followingIds()).isEmpty();

        WriteHttp.Reply again = http.follow(requester, owner);
        assertThat(again.status()).as("asking again").isEqualTo(202);
        assertThat(again.body().get("requestedAt").asLong()).isEqualTo(requestedAt);
        assertThat(rows.outboxOf(requester)).extracting(OutboxEntry::type).containsExactly(FollowEvent.Type.REQUEST);

        WriteHttp.Reply accepted = answer(true, owner, requester);
        assertThat(accepted.status()).isEqualTo(200);
        assertThat(accepted.body().get("followerId").asLong()).isEqualTo(requester);
        assertThat(accepted.body().get("following").asBoolean()).isTrue();
        assertThat(accepted.body().get("requested").asBoolean()).isFalse();
        assertThat(accepted.body().get("followedAt").asLong()).isGreaterThanOrEqualTo(requestedAt);
        assertThat(rows.followingRow(requester).orElseThrow().followingIds()).containsExactly(owner);
        assertThat(rows.row(Relation.REQUEST, requester).orElseThrow().followingIds()).isEmpty();
        assertThat(rows.outboxOf(requester)).extracting(OutboxEntry::type).containsExactly(FollowEvent.Type.REQUEST,
                FollowEvent.Type.UNREQUEST, FollowEvent.Type.FOLLOW);

        assertThat(answer(true, owner, requester).status()).as("accepting again").isEqualTo(200);
        assertThat(http.follow(requester, owner).status()).as("a follower follows again").isEqualTo(200);
        assertThat(rows.outboxOf(requester)).hasSize(3);
    }

    @Test
    void declineAndWithdrawal_endTheRequest_andNoFollowBegins() {
        long owner = firstDb(2);
        long declined = secondDb(2);
        long withdrawing = secondDb(3);
        protection(true, owner);
        http.follow(declined, owner);
        http.follow(withdrawing, owner);

        WriteHttp.Reply decline = answer(false, owner, declined);
        assertThat(decline.status()).isEqualTo(200);
        assertThat(decline.body().get("following").asBoolean()).isFalse();
        assertThat(decline.body().get("requested").asBoolean()).isFalse();
        assertThat(answer(false, owner, declined).status()).as("declining again").isEqualTo(200);
        WriteHttp.Reply withdraw = http.unfollow(withdrawing, owner);
        assertThat(withdraw.status()).isEqualTo(200);
        assertThat(withdraw.body().get("requested").asBoolean()).isFalse();

        for (long requester : new long[] {declined, withdrawing}) {
            assertThat(rows.row(Relation.REQUEST, requester).orElseThrow().followingIds()).isEmpty();
            assertThat(rows.followingRow(requester).orElseThrow().followingIds()).isEmpty();
            assertThat(rows.outboxOf(requester)).extracting(OutboxEntry::type)
                    .containsExactly(FollowEvent.Type.REQUEST, FollowEvent.Type.UNREQUEST);
        }
        WriteHttp.Reply gone = answer(true, owner, declined);
        assertThat(gone.status()).as("accepting what was declined").isEqualTo(404);
        assertThat(gone.body().get("parameter").asString()).isEqualTo("requesterId");
    }

    @Test
    void aFollowerBeforeTheProtection_staysAFollower_andAPublicAccountIsFollowedAtOnce() {
        long owner = secondDb(4);
        long follower = firstDb(4);
        assertThat(http.follow(follower, owner).status()).isEqualTo(200);
        protection(true, owner);

        WriteHttp.Reply again = http.follow(follower, owner);
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body().get("following").asBoolean()).isTrue();

        WriteHttp.Reply unprotect = protection(false, owner);
        assertThat(unprotect.body().get("protected").asBoolean()).isFalse();
        assertThat(unprotect.body().get("version").asLong()).isEqualTo(2);
        long other = firstDb(5);
        assertThat(http.follow(other, owner).status()).isEqualTo(200);
        assertThat(rows.row(Relation.REQUEST, other)).isEmpty();
    }

    @Test
    void aBlockOfTheProtectedAccount_endsTheBlockersRequest() {
        long owner = secondDb(6);
        long requester = firstDb(6);
        protection(true, owner);
        http.follow(requester, owner);

        assertThat(http.relation("blocking", true, requester, owner).status()).isEqualTo(200);

        assertThat(rows.row(Relation.REQUEST, requester).orElseThrow().followingIds()).isEmpty();
        assertThat(rows.outboxOf(requester)).extracting(OutboxEntry::type).containsExactly(FollowEvent.Type.REQUEST,
                FollowEvent.Type.BLOCK, FollowEvent.Type.UNREQUEST);
    }

    @Test
    void acceptingTheRequestOfAUserTheAccountBlocks_endsIt_with409_andNoFollow() {
        long owner = secondDb(10);
        long requester = firstDb(10);
        protection(true, owner);
        http.follow(requester, owner);
        // The owner's block: its event ends the requester's request where it arrives (the consumer, not running here).
        assertThat(http.relation("blocking", true, owner, requester).status()).isEqualTo(200);

        WriteHttp.Reply accepted = answer(true, owner, requester);

        assertThat(accepted.status()).isEqualTo(409);
        assertThat(accepted.body().get("type").asString()).isEqualTo("https://socialgraph.dev/problems/blocking");
        assertThat(rows.row(Relation.REQUEST, requester).orElseThrow().followingIds()).isEmpty();
        assertThat(rows.followingRow(requester).orElseThrow().followingIds()).isEmpty();
        assertThat(rows.outboxOf(requester)).extracting(OutboxEntry::type).containsExactly(FollowEvent.Type.REQUEST,
                FollowEvent.Type.UNREQUEST);
    }

    @Test
    void pendingRequests_areBounded_andTheBoundIsNamed() throws SQLException {
        long owner = secondDb(7);
        long requester = firstDb(7);
        protection(true, owner);
        long[] asked = LongStream.rangeClosed(1, Relation.REQUEST.cap()).map(i -> 5_000_000_000L + i).toArray();
        FollowingRepository requests = new FollowingRepository(Relation.REQUEST);
        Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWING, requester), c -> requests
                .writeNextVersion(c, requests.lockOrCreate(c, requester), asked, new long[asked.length]));

        WriteHttp.Reply over = http.follow(requester, owner);

        assertThat(over.status()).isEqualTo(409);
        assertThat(over.contentType()).startsWith("application/problem+json");
        assertThat(over.body().get("parameter").asString()).isEqualTo("followerId");
        assertThat(over.body().get("limit").asInt()).isEqualTo(5_000);
        FollowingRow row = rows.row(Relation.REQUEST, requester).orElseThrow();
        assertThat(row.followingCount()).isEqualTo(5_000);
        assertThat(row.version()).isEqualTo(1);
        assertThat(rows.outboxOf(requester)).isEmpty();
    }

    @Test
    void badInput_getsAClearProblem_andChangesNothing() {
        long owner = firstDb(8);
        long before = rows.totalRows();

        WriteHttp.Reply self = answer(true, owner, owner);
        assertThat(self.status()).isEqualTo(400);
        assertThat(self.body().get("parameter").asString()).isEqualTo("requesterId");
        WriteHttp.Reply notAnId = answer(false, owner, "0");
        assertThat(notAnId.status()).isEqualTo(400);
        assertThat(notAnId.body().get("parameter").asString()).isEqualTo("requesterId");
        WriteHttp.Reply badUser = http.send("PUT", "/internal/v1/users/x/protection");
        assertThat(badUser.status()).isEqualTo(400);
        assertThat(badUser.body().get("parameter").asString()).isEqualTo("userId");
        WriteHttp.Reply none = answer(true, owner, secondDb(8));
        assertThat(none.status()).isEqualTo(404);
        assertThat(none.body().get("parameter").asString()).isEqualTo("requesterId");
        WriteHttp.Reply nothingToDecline = answer(false, owner, secondDb(9));
        assertThat(nothingToDecline.status()).as("declining what a stranger never asked").isEqualTo(200);
        assertThat(nothingToDecline.body().get("requested").asBoolean()).isFalse();

        assertThat(rows.totalRows()).isEqualTo(before);
        assertThat(rows.outboxOf(secondDb(8))).isEmpty();
        assertThat(rows.outboxOf(secondDb(9))).isEmpty();
        WriteHttp.Reply twice = protection(true, owner);
        assertThat(protection(true, owner).body().get("version").asLong())
                .as("protecting twice").isEqualTo(twice.body().get("version").asLong());
    }
}
