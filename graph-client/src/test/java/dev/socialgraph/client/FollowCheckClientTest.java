package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.common.shard.ShardAffinity;
import java.io.IOException;
import java.net.URI;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client against three fake check instances on local ports: routing, fail-over of a dead, hung or
 * unavailable instance to the next in rendezvous order, no retry of a 4xx, the service and follow tokens, batches.
 */
class FollowCheckClientTest {

    private static final List<String> IDS = List.of("check-0", "check-1", "check-2");
    private static final String TOKEN = "svc-secret-123";
    /** Follower {@code f} follows {@code f + 1000} and {@code f + 2000}, for f in 1..300. */
    private static final Set<String> EDGES = edges();

    private final Map<String, FakeCheckInstance> instances = new LinkedHashMap<>();
    private FollowCheckClient client;

    private static Set<String> edges() {
        Set<String> e = new java.util.HashSet<>();
        for (long f = 1; f <= 300; f++) {
            e.add(f + "->" + (f + 1000));
            e.add(f + "->" + (f + 2000));
        }
        return e;
    }

    @BeforeEach
    void start() throws IOException {
        for (String id : IDS) {
            instances.put(id, new FakeCheckInstance(id, EDGES));
        }
        client = client(builder());
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        instances.values().forEach(FakeCheckInstance::close);
    }

    private FollowCheckClient.Builder builder() {
        FollowCheckClient.Builder b = FollowCheckClient.builder().serviceToken(TOKEN);
        instances.forEach((id, instance) -> b.instance(id, instance.baseUri()));
        return b;
    }

    private FollowCheckClient client(FollowCheckClient.Builder b) {
        if (client != null) {
            client.close();
        }
        client = b.build();
        return client;
    }

    private FakeCheckInstance owner(long user) {
        return instances.get(ShardAffinity.owner((int) (user % 256), IDS));
    }

    /** The instance that owns {@code user}'s shard once {@code gone} has left the list. */
    private FakeCheckInstance ownerWithout(long user, String gone) {
        List<String> rest = new ArrayList<>(IDS);
        rest.remove(gone);
        return instances.get(ShardAffinity.owner((int) (user % 256), rest));
    }

    private int hits() {
        return instances.values().stream().mapToInt(i -> i.received().size()).sum();
    }

    @Test
    void isFollowing_asksTheOwnerOfTheFollowersShard_withTheServiceToken() {
        for (long follower = 1; follower <= 300; follower++) {
            FakeCheckInstance owner = owner(follower);
            int before = owner.received().size();

            assertThat(client.isFollowing(follower, follower + 1000)).isTrue();
            assertThat(client.isFollowing(follower, follower + 3000)).isFalse();

            List<FakeCheckInstance.Received> got = owner.received().subList(before, owner.received().size());
            assertThat(got).hasSize(2);
            assertThat(got.get(0).path()).isEqualTo("/internal/v1/users/" + follower + "/following/" + (follower + 1000));
            assertThat(got.get(0).serviceToken()).isEqualTo(TOKEN);
            assertThat(got.get(0).followToken()).isNull();
        }
        assertThat(hits()).isEqualTo(600);
        for (FakeCheckInstance instance : instances.values()) {
            assertThat(instance.received()).as(instance.id).isNotEmpty();
        }
    }

    @Test
    void isFollowing_sendsTheFollowToken() {
        assertThat(client.isFollowing(5, 1005, "follow-token-of-5")).isTrue();
        assertThat(owner(5).received().getFirst().followToken()).isEqualTo("follow-token-of-5");
    }

    @Test
    void withoutAServiceToken_noHeaderIsSent() {
        FollowCheckClient.Builder b = FollowCheckClient.builder();
        instances.forEach((id, instance) -> b.instance(id, instance.baseUri()));
        client(b).isFollowing(5, 1005);
        assertThat(owner(5).received().getFirst().serviceToken()).isNull();
    }

    @Test
    void aDeadInstance_isFailedOverToTheNextInRendezvousOrder_andAnswersCorrectly() {
        String dead = "check-1";
        // Warm keep-alive connections to every instance, then kill one: pooled and new connections both fail.
        for (long follower = 1; follower <= 300; follower++) {
            client.isFollowing(follower, follower + 1000);
        }
        instances.get(dead).kill();
        int failedOver = 0;
        for (long follower = 1; follower <= 300; follower++) {
            FakeCheckInstance expected = owner(follower).id.equals(dead) ? ownerWithout(follower, dead) : owner(follower);
            assertThat(client.instanceFor(follower, owner(follower).id.equals(dead) ? 1 : 0)).isEqualTo(expected.id);
            int before = expected.received().size();

            assertThat(client.isFollowing(follower, follower + 2000)).as("follower %d", follower).isTrue();
            assertThat(client.isFollowing(follower, follower + 2001)).isFalse();

            assertThat(expected.received().size() - before).as("follower %d on %s", follower, expected.id)
                    .isEqualTo(2);
            failedOver += owner(follower).id.equals(dead) ? 1 : 0;
        }
        assertThat(failedOver).isPositive();
    }

    @Test
    void aHungInstance_timesOutAndIsFailedOver() {
        client(builder().requestTimeout(Duration.ofMillis(200)));
        long follower = 7;
        FakeCheckInstance owner = owner(follower);
        owner.hang();

        assertThat(client.isFollowing(follower, 1007)).isTrue();

        assertThat(owner.received()).hasSize(1);
        assertThat(ownerWithout(follower, owner.id).received()).hasSize(1);
    }

    @Test
    void everyInstanceHung_throwsAfterMaxAttempts_withTheTimeout() {
        client(builder().requestTimeout(Duration.ofMillis(100)).maxAttempts(3));
        instances.values().forEach(FakeCheckInstance::hang);

        assertThatThrownBy(() -> client.isFollowing(9, 1009))
                .isInstanceOfSatisfying(UnavailableException.class, e -> {
                    assertThat(e.status()).isEqualTo(GraphClientException.NO_RESPONSE);
                    assertThat(e.type()).isEqualTo(ProblemType.SERVICE_UNAVAILABLE);
                })
                .hasMessageContaining("after 3 attempt(s)")
                .hasCauseInstanceOf(SocketTimeoutException.class);
        assertThat(hits()).isEqualTo(3); // one per instance, in rendezvous order
    }

    @Test
    void sequentialCalls_reuseOneKeepAliveConnection() {
        FakeCheckInstance owner = owner(7);
        for (int i = 0; i < 20; i++) {
            assertThat(client.isFollowing(7, 1007)).isTrue();
        }

        assertThat(owner.received()).hasSize(20);
        assertThat(owner.received().stream().map(FakeCheckInstance.Received::clientPort).distinct()).hasSize(1);
    }

    @Test
    void allConnectionsToAnInstanceBusy_theNextCallWaitsForOne_andFailsOverAfterTheConnectTimeout() {
        client(builder().maxConnectionsPerInstance(1).connectTimeout(Duration.ofMillis(200))
                .requestTimeout(Duration.ofSeconds(30)).maxAttempts(2));
        long follower = 11;
        FakeCheckInstance owner = owner(follower);
        owner.hang();
        Thread holder = Thread.ofVirtual().start(() -> {
            try {
                client.isFollowing(follower, follower + 1000);
            } catch (GraphClientException expected) {
                // ended by the client's close after the test; only its hold on the owner's one connection matters
            }
        });
        Awaitility.await().until(() -> owner.received().size() == 1);

        // The owner's one connection is held by the hung call, so this one never reaches the owner: it waits for the
        // connection, gives up after the connect timeout and is answered by the next instance.
        assertThat(client.isFollowing(follower, follower + 1000)).isTrue();
        assertThat(ownerWithout(follower, owner.id).received()).hasSize(1);
        assertThat(owner.received()).hasSize(1);
        assertThat(holder.isAlive()).isTrue();
    }

    @Test
    void everyInstanceDead_throwsNoResponse() {
        instances.values().forEach(FakeCheckInstance::kill);

        assertThatThrownBy(() -> client.counts(11))
                .isInstanceOfSatisfying(UnavailableException.class,
                        e -> assertThat(e.status()).isEqualTo(GraphClientException.NO_RESPONSE))
                .hasCauseInstanceOf(IOException.class);
    }

    @Test
    void http503_isRetriedOnTheNextInstance() {
        long follower = 12;
        owner(follower).answerWith(503);

        assertThat(client.isFollowing(follower, 1012)).isTrue();
        assertThat(ownerWithout(follower, owner(follower).id).received()).hasSize(1);
    }

    @Test
    void http503_everywhere_throwsThe503AfterMaxAttempts() {
        instances.values().forEach(i -> i.answerWith(503));

        assertThatThrownBy(() -> client.isFollowing(13, 1013))
                .isInstanceOfSatisfying(UnavailableException.class, e -> {
                    assertThat(e.status()).isEqualTo(503);
                    assertThat(e.type()).isEqualTo(ProblemType.SERVICE_UNAVAILABLE);
                });
        assertThat(hits()).isEqualTo(2); // default maxAttempts
    }

    @Test
    void a4xx_isThrownAtOnce_andNeverRetried() {
        for (int status : new int[] {400, 401, 403, 404, 429}) {
            instances.values().forEach(i -> i.answerWith(status));
            int before = hits();

            assertThatThrownBy(() -> client.isFollowing(14, 1014))
                    .isInstanceOf(status == 429 ? RateLimitedException.class : RequestRejectedException.class)
                    .isInstanceOfSatisfying(GraphClientException.class, e -> {
                        assertThat(e.status()).isEqualTo(status);
                        assertThat(e.type()).isEqualTo(ProblemType.forStatus(status));
                    })
                    .hasMessageContaining("HTTP " + status);
            assertThat(hits() - before).as("requests for HTTP %d", status).isEqualTo(1);
        }
    }

    @Test
    void a500_isNotRetried() {
        instances.values().forEach(i -> i.answerWith(500));

        assertThatThrownBy(() -> client.isFollowing(15, 1015))
                .isInstanceOfSatisfying(GraphClientException.class, e -> {
                    assertThat(e.status()).isEqualTo(500);
                    assertThat(e.type()).isEqualTo(ProblemType.INTERNAL_ERROR);
                });
        assertThat(hits()).isEqualTo(1);
    }

    @Test
    void areFollowing_answersInTheCallersOrder_splittingLargeBatches() {
        client(builder().batchSize(3));
        long follower = 20;
        long[] followees = {2020, 5, 1020, 2020, 77, 1020, 3020};

        FollowingBatch answers = client.areFollowing(follower, followees);

        assertThat(answers.toArray()).containsExactly(true, false, true, true, false, true, false);
        assertThat(answers.size()).isEqualTo(7);
        assertThat(answers.id(1)).isEqualTo(5);
        assertThat(answers.isFollowing(2)).isTrue();
        assertThat(answers.follows(2020)).isTrue();
        assertThat(answers.follows(77)).isFalse();
        assertThat(answers.following()).containsExactly(1020, 2020);
        assertThat(answers.notFollowing()).containsExactly(5, 77, 3020);
        List<FakeCheckInstance.Received> got = owner(follower).received();
        assertThat(got).extracting(FakeCheckInstance.Received::body)
                .containsExactly("{\"ids\":[2020,5,1020]}", "{\"ids\":[2020,77,1020]}", "{\"ids\":[3020]}");
        assertThat(got).allSatisfy(r -> {
            assertThat(r.method()).isEqualTo("POST");
            assertThat(r.path()).isEqualTo("/internal/v1/users/20/following/contains");
            assertThat(r.serviceToken()).isEqualTo(TOKEN);
        });
        assertThat(hits()).isEqualTo(3);
    }

    @Test
    void hidden_goesToTheViewersInstance_inBatches_withTheViewersToken() {
        client(builder().batchSize(2));
        long viewer = 20;

        FollowCheckClient.Hidden hidden = client.hidden(viewer, new long[] {2020, 5, 1020, 2020}, "a-token");

        assertThat(hidden.blocking()).containsExactly(1020, 2020);
        assertThat(hidden.blockedBy()).isEmpty();
        assertThat(hidden.isEmpty()).isFalse();
        assertThat(owner(viewer).received()).hasSize(2).allSatisfy(r -> {
            assertThat(r.path()).isEqualTo("/internal/v1/users/20/hidden");
            assertThat(r.followToken()).isEqualTo("a-token");
            assertThat(r.serviceToken()).isEqualTo(TOKEN);
        });
        assertThatThrownBy(() -> client.hidden(viewer, new long[] {1, 0}, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void areFollowing_ofNothing_sendsNothing() {
        assertThat(client.areFollowing(1, new long[0]).toArray()).isEmpty();
        assertThat(hits()).isZero();
    }

    @Test
    void areFollowing_failsOverADeadInstance() {
        long follower = 21;
        owner(follower).kill();

        assertThat(client.areFollowing(follower, new long[] {1021, 1022, 2021}).toArray())
                .containsExactly(true, false, true);
    }

    @Test
    void relationshipAndCounts_readTheServicesAnswers() {
        assertThat(client.relationship(30, 1030))
                .isEqualTo(FollowCheckClient.Relationship.of(true, false, false, false, false));
        assertThat(client.relationship(1030, 30))
                .isEqualTo(FollowCheckClient.Relationship.of(false, true, false, false, false));
        assertThat(client.counts(31)).isEqualTo(new FollowCheckClient.Counts(0, 2));
        assertThat(client.counts(1031)).isEqualTo(new FollowCheckClient.Counts(1, 0));
        assertThat(owner(30).received().getFirst().path()).isEqualTo("/internal/v1/users/30/relationship/1030");
        assertThat(owner(1031).received().getLast().path()).isEqualTo("/internal/v1/users/1031/counts");
    }

    @Test
    void lists_pageWithLimitAndCursor_andStreamsFollowEveryCursor() {
        long user = 40;
        // 40 follows 1040 and 2040; three more followings make three pages of two.
        FakeCheckInstance owner = owner(user);
        for (long followee = 3041; followee <= 3043; followee++) {
            for (FakeCheckInstance instance : instances.values()) {
                instance.add(user + "->" + followee);
            }
        }

        Page<FollowCheckClient.Followed> first = client.following(user, 2, null);
        assertThat(first.items()).extracting(FollowCheckClient.Followed::userId).containsExactly(3043L, 3042L);
        assertThat(first.items().getFirst().followedAt()).isEqualTo(java.time.Instant.ofEpochMilli(1_700_000_003_043L));
        assertThat(first.next()).contains("2");
        assertThat(client.following(user, 2, first.nextCursor()).items()).extracting(FollowCheckClient.Followed::userId)
                .containsExactly(3041L, 2040L);
        assertThat(client.allFollowing(user, 2).map(FollowCheckClient.Followed::userId).toList())
                .containsExactly(3043L, 3042L, 3041L, 2040L, 1040L);
        assertThat(client.allFollowers(3042, 10).map(FollowCheckClient.Followed::userId).toList())
                .containsExactly(user);
        List<FakeCheckInstance.Received> lists = owner.received().stream()
                .filter(r -> r.method().equals("GET")).toList();
        assertThat(lists).extracting(FakeCheckInstance.Received::query)
                .startsWith("limit=2", "limit=2&cursor=2", "limit=2", "limit=2&cursor=2", "limit=2&cursor=4");
        assertThatThrownBy(() -> client.following(user, 0, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");
    }

    @Test
    void aCursor_isSentPercentEncoded_andARefusedOneNamesIt() {
        assertThatThrownBy(() -> client.following(41, 5, "a+b/c=")).isInstanceOfSatisfying(
                RequestRejectedException.class, e -> assertThat(e.parameter()).contains("cursor"));
        assertThat(owner(41).received().getLast().query()).isEqualTo("limit=5&cursor=a%2Bb%2Fc%3D");
    }

    @Test
    void relationship_readsEveryField_andSendsTheViewer() {
        assertThat(client.relationship(30, 1030, "tok")).isEqualTo(
                FollowCheckClient.Relationship.of(true, false, false, false, false));
        assertThat(owner(30).received().getLast().followToken()).isEqualTo("tok");
        assertThat(owner(30).received().getLast().viewer()).isNull();

        FollowCheckClient.Relationship seenByB = client.relationshipSeenBy(30, 1030, 1030, null);
        assertThat(seenByB.blocking()).contains(false);
        assertThat(seenByB.muting()).isEmpty();
        FollowCheckClient.Relationship seenByOther = client.relationshipSeenBy(30, 1030, 99, null);
        assertThat(seenByOther).isEqualTo(new FollowCheckClient.Relationship(true, false, java.util.Optional.empty(),
                java.util.Optional.empty(), java.util.Optional.empty()));
        assertThat(seenByOther.blocked()).isFalse();
        assertThat(owner(30).received().getLast().viewer()).isEqualTo("99");
    }

    @Test
    void writes_roundRobin_overTheWriteInstances_andFailOverADeadOne() {
        List<FakeCheckInstance> writers = new ArrayList<>(instances.values());
        FollowCheckClient.Builder b = FollowCheckClient.builder().serviceToken(TOKEN);
        writers.forEach(w -> b.writeInstance(w.baseUri()));
        client(b);
        for (int i = 0; i < 6; i++) {
            WriteResult r = client.follow(50, 60 + i);
            assertThat(r.relation()).isEqualTo(dev.socialgraph.common.relation.Relation.FOLLOW);
            assertThat(r.actor()).isEqualTo(50);
            assertThat(r.target()).isEqualTo(60 + i);
            assertThat(r.active()).isTrue();
            assertThat(r.createdAt()).contains(java.time.Instant.ofEpochMilli(1_700_000_000_123L));
        }
        for (FakeCheckInstance w : writers) {
            assertThat(w.received()).as(w.id).hasSize(2).allSatisfy(r -> {
                assertThat(r.method()).isEqualTo("PUT");
                assertThat(r.serviceToken()).isEqualTo(TOKEN);
            });
        }
        writers.get(1).kill();
        for (int i = 0; i < 6; i++) {
            assertThat(client.unfollow(50, 60 + i).active()).isFalse();
        }
        assertThat(writers.get(0).received().size() + writers.get(2).received().size()).isEqualTo(4 + 6);
        assertThatThrownBy(() -> client.counts(50)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void writes_firstAvailable_stayOnTheFirst_untilItFails() {
        List<FakeCheckInstance> writers = new ArrayList<>(instances.values());
        FollowCheckClient.Builder b = FollowCheckClient.builder().writeBalancing(WriteBalancing.FIRST_AVAILABLE);
        writers.forEach(w -> b.writeInstance(w.baseUri()));
        client(b);
        client.block(51, 52);
        client.mute(51, 53);
        assertThat(writers.get(0).received()).extracting(FakeCheckInstance.Received::path)
                .containsExactly("/internal/v1/users/51/blocking/52", "/internal/v1/users/51/muting/53");
        writers.get(0).answerWith(503);
        client.unblock(51, 52);
        assertThat(writers.get(1).received()).extracting(FakeCheckInstance.Received::method).containsExactly("DELETE");
        assertThat(writers.get(2).received()).isEmpty();
    }

    @Test
    void aRefusedWrite_isThrownAtOnce_withItsProblem() {
        FakeCheckInstance writer = instances.get("check-0");
        client(builder().writeInstance(writer.baseUri()));
        writer.answerWith(403, "application/problem+json",
                "{\"type\":\"https://socialgraph.dev/problems/blocked\",\"parameter\":\"followeeId\"}", null);

        assertThatThrownBy(() -> client.follow(70, 71)).isInstanceOfSatisfying(RequestRejectedException.class, e -> {
            assertThat(e.status()).isEqualTo(403);
            assertThat(e.type()).isEqualTo(ProblemType.BLOCKED);
            assertThat(e.parameter()).contains("followeeId");
        });
        assertThat(writer.received()).hasSize(1);
    }

    @Test
    void readYourWrites_sendsTheWritersNewestToken_onItsReads_only() {
        FakeCheckInstance writer = instances.get("check-0");
        client(builder().writeInstance(writer.baseUri()).readYourWrites(true));
        long follower = 80;
        WriteResult first = client.follow(follower, 81);
        WriteResult second = client.follow(follower, 82);
        assertThat(second.followToken()).isNotEqualTo(first.followToken());

        client.isFollowing(follower, 82);
        client.areFollowing(follower, new long[] {81});
        client.relationship(follower, 81);
        client.hidden(follower, new long[] {81});
        client.isFollowing(81, follower); // another actor: no token
        client.isFollowing(follower, 81, "passed"); // the caller's own wins

        List<FakeCheckInstance.Received> reads = owner(follower).received().stream()
                .filter(r -> !r.method().equals("PUT")).toList();
        assertThat(reads).extracting(FakeCheckInstance.Received::followToken)
                .startsWith(second.followToken(), second.followToken(), second.followToken(), second.followToken());
        assertThat(reads.getLast().followToken()).isEqualTo("passed");
        assertThat(owner(81).received().stream().filter(r -> r.path().endsWith("/following/" + follower)))
                .singleElement().satisfies(r -> assertThat(r.followToken()).isNull());
    }

    @Test
    void withoutReadYourWrites_noTokenIsSentUnlessPassed() {
        FakeCheckInstance writer = instances.get("check-0");
        client(builder().writeInstance(writer.baseUri()));
        client.follow(90, 91);
        client.isFollowing(90, 91);
        assertThat(owner(90).received().getLast().followToken()).isNull();
    }

    @Test
    void http429_isRateLimited_notRetried_withRetryAfter() {
        instances.values().forEach(i -> i.answerWith(429, "application/problem+json",
                "{\"type\":\"https://socialgraph.dev/problems/rate-limited\",\"title\":\"Too Many Requests\"}", "3"));

        assertThatThrownBy(() -> client.counts(15)).isInstanceOfSatisfying(RateLimitedException.class, e -> {
            assertThat(e.retryAfter()).contains(Duration.ofSeconds(3));
            assertThat(e.type()).isEqualTo(ProblemType.RATE_LIMITED);
        });
        assertThat(hits()).isEqualTo(1);
    }

    @Test
    void http503_everywhere_keepsTheLastAnswersRetryAfterAndParameter() {
        instances.values().forEach(i -> i.answerWith(503, "application/problem+json",
                "{\"type\":\"https://socialgraph.dev/problems/shard-unavailable\",\"parameter\":\"id\"}", "1"));

        assertThatThrownBy(() -> client.following(16, 10, null)).isInstanceOfSatisfying(UnavailableException.class,
                e -> {
                    assertThat(e.type()).isEqualTo(ProblemType.SHARD_UNAVAILABLE);
                    assertThat(e.parameter()).contains("id");
                    assertThat(e.retryAfter()).contains(Duration.ofSeconds(1));
                });
        assertThat(hits()).isEqualTo(2);
    }

    @Test
    void nonPositiveIds_areRefusedBeforeAnyRequest() {
        assertThatThrownBy(() -> client.isFollowing(0, 5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("follower");
        assertThatThrownBy(() -> client.isFollowing(5, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("followee");
        assertThatThrownBy(() -> client.areFollowing(5, new long[] {3, 0})).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("followees[1]");
        assertThatThrownBy(() -> client.counts(-5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.relationship(1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(hits()).isZero();
    }

    @Test
    void builder_refusesBadSettings() {
        URI uri = URI.create("http://127.0.0.1:1");
        assertThatThrownBy(() -> FollowCheckClient.builder().build()).hasMessageContaining("at least one");
        assertThatThrownBy(() -> FollowCheckClient.builder().writeInstance(uri).writeInstance(uri))
                .hasMessageContaining("added twice");
        assertThatThrownBy(() -> FollowCheckClient.builder().writeInstance(URI.create("ftp://x")))
                .hasMessageContaining("http(s)");
        assertThatThrownBy(() -> FollowCheckClient.builder().instance("a", uri).followTokenTtl(Duration.ZERO).build())
                .hasMessageContaining("followTokenTtl");
        assertThatThrownBy(() -> FollowCheckClient.builder().instance("a", uri).instance("a", uri))
                .hasMessageContaining("'a' added twice");
        assertThatThrownBy(() -> FollowCheckClient.builder().instance(" ", uri)).hasMessageContaining("blank");
        assertThatThrownBy(() -> FollowCheckClient.builder().instance("a", URI.create("ftp://x")))
                .hasMessageContaining("http(s)");
        assertThatThrownBy(() -> FollowCheckClient.builder().instance("a", uri).maxAttempts(0).build())
                .hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> FollowCheckClient.builder().instance("a", uri).requestTimeout(Duration.ZERO).build())
                .hasMessageContaining("requestTimeout");
        assertThatThrownBy(() -> FollowCheckClient.builder().instance("a", uri).maxConnectionsPerInstance(0).build())
                .hasMessageContaining("maxConnectionsPerInstance");
        assertThatThrownBy(() -> FollowCheckClient.builder().instance("a", uri).batchSize(0).build())
                .hasMessageContaining("batchSize");
        assertThatThrownBy(() -> FollowCheckClient.builder().instance("a", uri).serviceToken(" ").build())
                .hasMessageContaining("serviceToken");
        assertThatThrownBy(() -> FollowCheckClient.builder().instance("a", uri).logicalShardCount(0).build())
                .hasMessageContaining("logicalShardCount");
    }
}
