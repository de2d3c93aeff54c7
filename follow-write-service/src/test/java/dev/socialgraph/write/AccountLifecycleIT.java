package dev.socialgraph.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.cache.FollowingCache;
import dev.socialgraph.common.event.AccountEvent;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.account.CountExclusionRepository;
import dev.socialgraph.store.account.Counted;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.outbox.OutboxEntry;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.Transactions;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
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
import tools.jackson.databind.JsonNode;

/**
 * The account lifecycle over HTTP against real shard databases and Redis: the state changes and their answers, bad
 * input, the refusal of writes by and of an inactive user, and the jobs (count exclusions of a deactivation and their
 * removal, an erasure's removals with their outbox events, celebrity pages, blocks and mutes). The follower side is
 * written here as the event consumer would have written it (the consumer does not run in this test).
 */
@DirtiesContext
@SpringBootTest(classes = FollowWriteServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class AccountLifecycleIT {

    private static final TestShards SHARDS = TestShards.create("write_accounts");
    private static final RedisServer REDIS = TestServers.redis();
    private static final String REDIS_URI = REDIS.uri(REDIS.freshDatabase());

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.write.redis.uri", () -> REDIS_URI);
        registry.add("graph.write.relay.enabled", () -> false);
        registry.add("graph.write.accounts.poll-interval", () -> "50ms");
        registry.add("graph.write.accounts.edges-per-second", () -> "100000");
    }

    @AfterAll
    static void close() {
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    ShardDataSources dataSources;

    @Autowired
    FollowingCache cache;

    @Autowired
    MeterRegistry meters;

    WriteHttp http;
    ShardRows rows;
    private final CountExclusionRepository exclusions = new CountExclusionRepository();

    @BeforeEach
    void setUp() {
        http = new WriteHttp(port);
        rows = new ShardRows(dataSources);
    }

    /** Logical shard 5 (first database of each group) and 200 (second), offset by {@code n} so tests do not meet. */
    private static long firstDb(int n) {
        return 256L * (20_000 + n) + 5;
    }

    private static long secondDb(int n) {
        return 256L * (20_000 + n) + 200;
    }

    private WriteHttp.Reply admin(String method, String path) {
        return http.send(method, "/internal/v1/admin" + path);
    }

    private JsonNode awaitDone(String jobId) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(() -> "done".equals(admin("GET", "/jobs/" + jobId).body().get("status").asString()));
        return admin("GET", "/jobs/" + jobId).body();
    }

    private <T> T tx(ShardGroup group, long userId, Transactions.Work<T> work) {
        try {
            return Transactions.inTransaction(dataSources.forUser(group, userId), work);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void makingAProtectedAccountPublic_acceptsEveryPendingRequest_byItsJob() {
        long owner = secondDb(40);
        long[] requesters = {firstDb(41), secondDb(42), firstDb(43)};
        long inactive = secondDb(44);
        long withdrew = firstDb(45);
        WriteHttp.Reply protect = http.send("PUT", "/internal/v1/users/" + owner + "/protection");
        assertThat(protect.body().get("protected").asBoolean()).isTrue();
        assertThat(protect.body().get("jobId").isNull()).as("a protection starts no job").isTrue();
        for (long requester : requesters) {
            assertThat(http.follow(requester, owner).status()).isEqualTo(202);
        }
        assertThat(http.follow(inactive, owner).status()).isEqualTo(202);
        assertThat(http.follow(withdrew, owner).status()).isEqualTo(202);
        assertThat(http.unfollow(withdrew, owner).status()).isEqualTo(200);
        awaitDone(admin("PUT", "/users/" + inactive + "/deactivation").body().get("jobId").asString());
        // The follower side as the consumer keeps it, the withdrawn request not yet removed from it.
        long[] incoming = LongStream.concat(Arrays.stream(requesters), LongStream.of(inactive, withdrew)).sorted()
                .toArray();
        followerRow(Relation.REQUEST, owner, incoming, new long[incoming.length]);

        WriteHttp.Reply unprotect = http.send("DELETE", "/internal/v1/users/" + owner + "/protection");
        assertThat(unprotect.status()).isEqualTo(200);
        assertThat(unprotect.body().get("protected").asBoolean()).isFalse();
        assertThat(unprotect.body().get("version").asLong()).isEqualTo(2);
        assertThat(unprotect.body().get("jobId").asString()).isEqualTo(owner + "-2");
        assertThat(unprotect.body().get("followToken").asString()).hasSize(64);
        assertThat(http.send("DELETE", "/internal/v1/users/" + owner + "/protection").body().get("version").asLong())
                .as("making it public twice").isEqualTo(2);
        JsonNode job = awaitDone(owner + "-2");

        assertThat(job.get("kind").asString()).isEqualTo("accept-requests");
        assertThat(job.get("done").asLong()).isEqualTo(5);
        for (long requester : requesters) {
            assertThat(rows.followingRow(requester).orElseThrow().followingIds()).containsExactly(owner);
            assertThat(rows.row(Relation.REQUEST, requester).orElseThrow().followingIds()).isEmpty();
            assertThat(rows.outboxOf(requester)).extracting(OutboxEntry::type).containsExactly(
                    FollowEvent.Type.REQUEST, FollowEvent.Type.UNREQUEST, FollowEvent.Type.FOLLOW);
        }
        assertThat(rows.row(Relation.REQUEST, inactive).orElseThrow().followingIds())
                .as("an inactive requester's request ends, no follow begins").isEmpty();
        assertThat(rows.followingRow(inactive).orElseThrow().followingIds()).isEmpty();
        assertThat(rows.outboxOf(withdrew)).as("a withdrawn request is not accepted").extracting(OutboxEntry::type)
                .containsExactly(FollowEvent.Type.REQUEST, FollowEvent.Type.UNREQUEST);
        assertThat(rows.outboxOf(owner)).filteredOn(OutboxEntry::isAccount).extracting(OutboxEntry::account)
                .containsExactly(AccountEvent.Type.PROTECT, AccountEvent.Type.UNPROTECT);
        assertThat(http.follow(secondDb(46), owner).status()).as("a public account is followed at once")
                .isEqualTo(200);
    }

    /** The follower side as the consumer would keep it: {@code followers} in {@code followeeId}'s row. */
    private void followerRow(Relation relation, long followeeId, long[] followers, long[] times) {
        FollowerRepository repository = new FollowerRepository(relation);
        tx(ShardGroup.FOLLOWER, followeeId, c -> repository.writeNextVersion(c, repository.lockOrCreate(c, followeeId),
                followers, times, followers.length, false));
    }

    private long offset(long userId, Counted counted) {
        return tx(counted.group(), userId, c -> exclusions.offset(c, userId, counted));
    }

    private boolean excludes(long userId, Counted counted, long otherId) {
        return tx(counted.group(), userId, c -> exclusions.excludes(c, userId, counted, otherId));
    }

    @Test
    void deactivate_answersTheNewState_andARepeatChangesNothing() {
        long user = firstDb(1);

        WriteHttp.Reply first = admin("PUT", "/users/" + user + "/deactivation");
        WriteHttp.Reply again = admin("PUT", "/users/" + user + "/deactivation");
        WriteHttp.Reply state = admin("GET", "/users/" + user);

        assertThat(first.status()).isEqualTo(200);
        assertThat(first.body().get("userId").asLong()).isEqualTo(user);
        assertThat(first.body().get("state").asString()).isEqualTo("deactivated");
        assertThat(first.body().get("version").asLong()).isEqualTo(1);
        assertThat(first.body().get("changedAt").asLong()).isPositive();
        assertThat(first.body().get("jobId").asString()).isEqualTo(user + "-1");
        assertThat(first.body().get("followToken").asString()).hasSize(64);
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body().get("version").asLong()).isEqualTo(1);
        assertThat(again.body().get("jobId").asString()).isEqualTo(user + "-1");
        assertThat(again.body().get("changedAt").asLong()).isEqualTo(first.body().get("changedAt").asLong());
        assertThat(state.body().get("state").asString()).isEqualTo("deactivated");
        assertThat(rows.count(dataSources.forUser(ShardGroup.FOLLOWING, user),
                "SELECT count(*) FROM account_jobs WHERE user_id = " + user)).isEqualTo(1);
        // The change is one event of follow-events, written with it; the repeat wrote none.
        assertThat(rows.outboxOf(user)).singleElement().satisfies(row -> {
            assertThat(row.account()).isEqualTo(AccountEvent.Type.DEACTIVATE);
            assertThat(row.event()).isEqualTo(AccountEvent.of(AccountEvent.Type.DEACTIVATE, user, 1,
                    row.createdAt().toEpochMilli()));
        });
        awaitDone(user + "-1");
    }

    @Test
    void theStateAnswer_carriesTheFollowToken_asHeaderToo() {
        long user = secondDb(2);
        java.net.http.HttpResponse<String> response = rawPut("/internal/v1/admin/users/" + user + "/deactivation");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("X-Follow-Token").orElseThrow()).hasSize(64)
                .isEqualTo(tools.jackson.databind.json.JsonMapper.builder().build().readTree(response.body())
                        .get("followToken").asString());
    }

    private java.net.http.HttpResponse<String> rawPut(String path) {
        try {
            return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                                    java.net.URI.create("http://127.0.0.1:" + port + path))
                            .header("X-Service-Token", dev.socialgraph.localruntime.ServiceProcess.SERVICE_TOKEN)
                            .PUT(java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void reactivatingAUserNeverChanged_answersActiveVersionZero_andWritesNothing() {
        long user = firstDb(3);
        long before = rows.totalRows();

        WriteHttp.Reply reply = admin("DELETE", "/users/" + user + "/deactivation");

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().get("state").asString()).isEqualTo("active");
        assertThat(reply.body().get("version").asLong()).isZero();
        assertThat(reply.body().get("changedAt").asLong()).isZero();
        assertThat(reply.body().get("jobId").isNull()).isTrue();
        assertThat(rows.totalRows()).isEqualTo(before);
        assertThat(rows.count(dataSources.forUser(ShardGroup.FOLLOWING, user),
                "SELECT count(*) FROM account_states WHERE user_id = " + user)).isZero();
    }

    @Test
    void badInput_answersProblemJsonNamingTheField_andChangesNothing() {
        long before = rows.totalRows();

        for (String bad : List.of("0", "-5", "abc", "007", "99999999999999999999")) {
            WriteHttp.Reply reply = admin("PUT", "/users/" + bad + "/deactivation");
            assertThat(reply.status()).as(bad).isEqualTo(400);
            assertThat(reply.contentType()).startsWith("application/problem+json");
            assertThat(reply.body().get("parameter").asString()).isEqualTo("id");
        }
        assertThat(admin("DELETE", "/users/x").body().get("parameter").asString()).isEqualTo("id");
        assertThat(admin("GET", "/users/0").status()).isEqualTo(400);
        for (String bad : List.of("42", "42-", "-1", "42-0", "a-1", "42-1-2", "042-1")) {
            WriteHttp.Reply reply = admin("GET", "/jobs/" + bad);
            assertThat(reply.status()).as(bad).isEqualTo(400);
            assertThat(reply.body().get("type").asString()).isEqualTo("https://socialgraph.dev/problems/invalid-parameter");
            assertThat(reply.body().get("parameter").asString()).isEqualTo("jobId");
        }
        WriteHttp.Reply unknown = admin("GET", "/jobs/" + firstDb(4) + "-7");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.body().get("type").asString()).isEqualTo("https://socialgraph.dev/problems/not-found");
        assertThat(unknown.body().get("parameter").asString()).isEqualTo("jobId");
        assertThat(rows.totalRows()).isEqualTo(before);
    }

    @Test
    void writesByOrOfAnInactiveUser_areRefused_withNothingWritten() {
        long inactive = firstDb(5);
        long other = secondDb(5);
        assertThat(http.follow(inactive, other).status()).isEqualTo(200);
        assertThat(http.follow(other, inactive).status()).isEqualTo(200);
        assertThat(http.relation("muting", true, other, inactive).status()).isEqualTo(200);
        awaitDone(admin("PUT", "/users/" + inactive + "/deactivation").body().get("jobId").asString());
        long before = rows.totalRows();

        List<WriteHttp.Reply> byInactive = List.of(http.follow(inactive, secondDb(6)), http.unfollow(inactive, other),
                http.relation("blocking", true, inactive, other), http.relation("blocking", false, inactive, other),
                http.relation("muting", true, inactive, other), http.relation("muting", false, inactive, other));
        List<WriteHttp.Reply> ofInactive = List.of(http.follow(secondDb(7), inactive), http.unfollow(other, inactive),
                http.relation("blocking", true, other, inactive), http.relation("blocking", false, other, inactive),
                http.relation("muting", true, other, inactive), http.relation("muting", false, other, inactive));

        for (WriteHttp.Reply reply : byInactive) {
            assertThat(reply.status()).isEqualTo(404);
            assertThat(reply.body().get("type").asString()).isEqualTo("https://socialgraph.dev/problems/user-inactive");
            assertThat(reply.body().get("parameter").asString()).isIn("followerId", "userId");
        }
        for (WriteHttp.Reply reply : ofInactive) {
            assertThat(reply.status()).isEqualTo(404);
            assertThat(reply.body().get("type").asString()).isEqualTo("https://socialgraph.dev/problems/user-inactive");
            assertThat(reply.body().get("parameter").asString()).isIn("followeeId", "targetId");
        }
        assertThat(rows.totalRows()).isEqualTo(before);
        assertThat(rows.followingRow(inactive).orElseThrow().followingIds()).containsExactly(other);
        assertThat(rows.followingRow(other).orElseThrow().followingIds()).containsExactly(inactive);

        admin("DELETE", "/users/" + inactive + "/deactivation");
        assertThat(http.unfollow(inactive, other).status()).isEqualTo(200);
        assertThat(rows.followingRow(inactive).orElseThrow().followingIds()).isEmpty();
    }

    @Test
    void deactivate_excludesTheUserFromEveryCount_andReactivate_putsItBack() {
        long user = firstDb(10);
        long followee1 = firstDb(11);
        long followee2 = secondDb(12);
        long follower1 = secondDb(13);
        long follower2 = firstDb(14);
        http.follow(user, followee1);
        http.follow(user, followee2);
        http.follow(follower1, user);
        http.follow(follower2, user);
        followerRow(Relation.FOLLOW, followee1, new long[] {user}, new long[] {1});
        followerRow(Relation.FOLLOW, followee2, new long[] {user}, new long[] {1});
        followerRow(Relation.FOLLOW, user, new long[] {follower1, follower2}, new long[] {1, 2});

        double edgesBefore = meters.counter("graph.write.accounts.edges", "kind", "deactivate").count();
        JsonNode deactivation = awaitDone(user + "-" + admin("PUT", "/users/" + user + "/deactivation").body()
                .get("version").asLong());
        assertThat(meters.counter("graph.write.accounts.edges", "kind", "deactivate").count() - edgesBefore)
                .as("edges walked, by kind").isEqualTo(4);
        assertThat(meters.counter("graph.write.accounts.jobs", "kind", "deactivate").count()).isPositive();

        assertThat(deactivation.get("kind").asString()).isEqualTo("deactivate");
        assertThat(deactivation.get("done").asLong()).isEqualTo(4);
        assertThat(deactivation.get("total").asLong()).isEqualTo(4);
        assertThat(deactivation.get("startedAt").asLong()).isGreaterThanOrEqualTo(deactivation.get("createdAt").asLong());
        assertThat(deactivation.get("finishedAt").asLong()).isGreaterThanOrEqualTo(deactivation.get("startedAt").asLong());
        assertThat(deactivation.get("report").get("exclusionsAdded").asLong()).isEqualTo(4);
        assertThat(deactivation.get("report").get("edges").get("follow").get("following").asLong()).isEqualTo(2);
        assertThat(deactivation.get("report").get("edges").get("follow").get("followers").asLong()).isEqualTo(2);
        assertThat(offset(followee1, Counted.FOLLOWERS)).isEqualTo(1);
        assertThat(offset(followee2, Counted.FOLLOWERS)).isEqualTo(1);
        assertThat(offset(follower1, Counted.FOLLOWING)).isEqualTo(1);
        assertThat(offset(follower2, Counted.FOLLOWING)).isEqualTo(1);
        assertThat(excludes(followee2, Counted.FOLLOWERS, user)).isTrue();
        assertThat(excludes(follower1, Counted.FOLLOWING, user)).isTrue();
        assertThat(offset(user, Counted.FOLLOWING)).isZero();

        WriteHttp.Reply reactivated = admin("DELETE", "/users/" + user + "/deactivation");
        assertThat(reactivated.body().get("state").asString()).isEqualTo("active");
        assertThat(reactivated.body().get("version").asLong()).isEqualTo(2);
        JsonNode reactivation = awaitDone(reactivated.body().get("jobId").asString());

        assertThat(reactivation.get("kind").asString()).isEqualTo("reactivate");
        assertThat(reactivation.get("report").get("exclusionsRemoved").asLong()).isEqualTo(4);
        assertThat(offset(followee1, Counted.FOLLOWERS)).isZero();
        assertThat(offset(followee2, Counted.FOLLOWERS)).isZero();
        assertThat(offset(follower1, Counted.FOLLOWING)).isZero();
        assertThat(offset(follower2, Counted.FOLLOWING)).isZero();
        assertThat(excludes(followee2, Counted.FOLLOWERS, user)).isFalse();
        // Reactivation shows the edges exactly as they were.
        assertThat(rows.followingRow(user).orElseThrow().followingIds()).containsExactly(followee1, followee2);
    }

    @Test
    void erase_removesTheUserFromEveryRow_withEventsForOtherUsersRows_andKeepsTheTombstone() {
        long user = firstDb(20);
        long celebrity = secondDb(21);
        long blocked = firstDb(22);
        long follower = secondDb(23);
        long blocker = firstDb(24);
        long muter = secondDb(25);
        long bystander = firstDb(26);
        http.follow(user, celebrity);
        http.relation("blocking", true, user, blocked);
        http.relation("muting", true, user, bystander);
        http.follow(follower, user);
        http.follow(follower, bystander);
        http.relation("blocking", true, blocker, user);
        http.relation("muting", true, muter, user);
        // Pending follow requests both ways: the user's to a protected account, and one to the user, now protected.
        long asked = secondDb(27);
        long requester = firstDb(28);
        http.send("PUT", "/internal/v1/users/" + asked + "/protection");
        assertThat(http.follow(user, asked).status()).isEqualTo(202);
        http.send("PUT", "/internal/v1/users/" + user + "/protection");
        assertThat(http.follow(requester, user).status()).isEqualTo(202);
        followerRow(Relation.REQUEST, asked, new long[] {user}, new long[] {1});
        followerRow(Relation.REQUEST, user, new long[] {requester}, new long[] {1});
        // The celebrity's followers live in pages; the user is on the first of two.
        FollowerRepository followers = new FollowerRepository();
        CelebrityPageRepository pages = new CelebrityPageRepository();
        tx(ShardGroup.FOLLOWER, celebrity, c -> {
            followers.writeNextVersion(c, followers.lockOrCreate(c, celebrity), new long[0], new long[0], 4, true);
            pages.upsert(c, new CelebrityPage(celebrity, 0, new long[] {900, user}, new long[] {1, 2}));
            pages.upsert(c, new CelebrityPage(celebrity, 1, new long[] {901, 902}, new long[] {3, 4}));
            return null;
        });
        followerRow(Relation.BLOCK, blocked, new long[] {user}, new long[] {1});
        followerRow(Relation.FOLLOW, user, new long[] {follower}, new long[] {1});
        followerRow(Relation.BLOCK, user, new long[] {blocker}, new long[] {1});
        // Deactivated first: the erasure takes back the deactivation's exclusions too.
        awaitDone(admin("PUT", "/users/" + user + "/deactivation").body().get("jobId").asString());
        assertThat(offset(celebrity, Counted.FOLLOWERS)).isEqualTo(1);
        cache.fill(user, new long[] {celebrity}, 1);
        long followerVersion = rows.followingRow(follower).orElseThrow().version();

        WriteHttp.Reply erased = admin("DELETE", "/users/" + user);
        JsonNode job = awaitDone(erased.body().get("jobId").asString());

        assertThat(erased.body().get("state").asString()).isEqualTo("erased");
        assertThat(erased.body().get("version").asLong()).as("protection, deactivation, erasure").isEqualTo(3);
        assertThat(job.get("kind").asString()).isEqualTo("erase");
        assertThat(job.get("done").asLong()).isEqualTo(7); // celebrity, blocked, follower, blocker, muter, requests
        assertThat(job.get("report").get("exclusionsRemoved").asLong()).isEqualTo(2);
        // Other users' follower sides: the user is gone from the celebrity's page and the blocked user's row.
        List<CelebrityPage> left = tx(ShardGroup.FOLLOWER, celebrity, c -> pages.all(c, celebrity));
        assertThat(left).extracting(CelebrityPage::pageNum).containsExactly(0, 1);
        assertThat(left.getFirst().followerIds()).containsExactly(900);
        FollowerRow celebrityRow = tx(ShardGroup.FOLLOWER, celebrity, c -> followers.find(c, celebrity)).orElseThrow();
        assertThat(celebrityRow.followerCount()).isEqualTo(3);
        assertThat(offset(celebrity, Counted.FOLLOWERS)).isZero();
        assertThat(tx(ShardGroup.FOLLOWER, blocked, c -> new FollowerRepository(Relation.BLOCK).find(c, blocked))
                .orElseThrow().followerIds()).isEmpty();
        // Other users' rows: each removal is the source's own unfollow, unblock or unmute, with its event.
        assertThat(rows.followingRow(follower).orElseThrow().followingIds()).containsExactly(bystander);
        assertThat(offset(follower, Counted.FOLLOWING)).isZero();
        assertThat(rows.row(Relation.BLOCK, blocker).orElseThrow().followingIds()).isEmpty();
        assertThat(rows.row(Relation.MUTE, muter).orElseThrow().followingIds()).isEmpty();
        assertThat(rows.row(Relation.REQUEST, requester).orElseThrow().followingIds()).isEmpty();
        assertThat(rows.outboxOf(requester).getLast().type()).isEqualTo(FollowEvent.Type.UNREQUEST);
        assertThat(tx(ShardGroup.FOLLOWER, asked, c -> new FollowerRepository(Relation.REQUEST).find(c, asked))
                .orElseThrow().followerIds()).as("the protected account's incoming requests").isEmpty();
        assertThat(rows.outboxOf(user)).filteredOn(OutboxEntry::isAccount).extracting(OutboxEntry::account)
                .containsExactly(AccountEvent.Type.PROTECT, AccountEvent.Type.DEACTIVATE, AccountEvent.Type.ERASE);
        OutboxEntry unfollow = rows.outboxOf(follower).getLast();
        assertThat(unfollow.type()).isEqualTo(FollowEvent.Type.UNFOLLOW);
        assertThat(unfollow.followeeId()).isEqualTo(user);
        assertThat(unfollow.version()).isEqualTo(followerVersion + 1);
        assertThat(rows.outboxOf(blocker).getLast().type()).isEqualTo(FollowEvent.Type.UNBLOCK);
        assertThat(rows.outboxOf(muter).getLast().type()).isEqualTo(FollowEvent.Type.UNMUTE);
        assertThat(rows.outboxOf(muter).getLast().followeeId()).isEqualTo(user);
        // The user's own rows, exclusions, offsets and Redis keys are gone; the state row stays.
        for (Relation relation : Relation.values()) {
            assertThat(rows.row(relation, user)).as(relation.wireName()).isEmpty();
        }
        assertThat(rows.count(dataSources.forUser(ShardGroup.FOLLOWER, user),
                "SELECT count(*) FROM follower_adjacency WHERE followee_id = " + user)).isZero();
        assertThat(cache.isFollowing(user, celebrity)).isEqualTo(FollowingCache.MISS);
        assertThat(admin("GET", "/users/" + user).body().get("state").asString()).isEqualTo("erased");
        // Erasing again changes nothing; deactivating or reactivating an erased user is a conflict.
        long before = rows.totalRows();
        WriteHttp.Reply again = admin("DELETE", "/users/" + user);
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body().get("version").asLong()).isEqualTo(3);
        for (String method : List.of("PUT", "DELETE")) {
            WriteHttp.Reply conflict = admin(method, "/users/" + user + "/deactivation");
            assertThat(conflict.status()).isEqualTo(409);
            assertThat(conflict.body().get("type").asString()).isEqualTo("https://socialgraph.dev/problems/conflict");
        }
        assertThat(http.follow(user, celebrity).status()).isEqualTo(404);
        assertThat(rows.totalRows()).isEqualTo(before);
    }
}
