package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
                .isInstanceOfSatisfying(CheckServiceException.class,
                        e -> assertThat(e.status()).isEqualTo(CheckServiceException.NO_RESPONSE))
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
            } catch (CheckServiceException expected) {
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
                .isInstanceOfSatisfying(CheckServiceException.class,
                        e -> assertThat(e.status()).isEqualTo(CheckServiceException.NO_RESPONSE))
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
                .isInstanceOfSatisfying(CheckServiceException.class, e -> assertThat(e.status()).isEqualTo(503));
        assertThat(hits()).isEqualTo(2); // default maxAttempts
    }

    @Test
    void a4xx_isThrownAtOnce_andNeverRetried() {
        for (int status : new int[] {400, 401, 403, 404, 429}) {
            instances.values().forEach(i -> i.answerWith(status));
            int before = hits();

            assertThatThrownBy(() -> client.isFollowing(14, 1014))
                    .isInstanceOfSatisfying(CheckServiceException.class, e -> assertThat(e.status()).isEqualTo(status))
                    .hasMessageContaining("HTTP " + status);
            assertThat(hits() - before).as("requests for HTTP %d", status).isEqualTo(1);
        }
    }

    @Test
    void a500_isNotRetried() {
        instances.values().forEach(i -> i.answerWith(500));

        assertThatThrownBy(() -> client.isFollowing(15, 1015))
                .isInstanceOfSatisfying(CheckServiceException.class, e -> assertThat(e.status()).isEqualTo(500));
        assertThat(hits()).isEqualTo(1);
    }

    @Test
    void areFollowing_answersInTheCallersOrder_splittingLargeBatches() {
        client(builder().batchSize(3));
        long follower = 20;
        long[] followees = {2020, 5, 1020, 2020, 77, 1020, 3020};

        boolean[] answers = client.areFollowing(follower, followees);

        assertThat(answers).containsExactly(true, false, true, true, false, true, false);
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
        assertThat(client.areFollowing(1, new long[0])).isEmpty();
        assertThat(hits()).isZero();
    }

    @Test
    void areFollowing_failsOverADeadInstance() {
        long follower = 21;
        owner(follower).kill();

        assertThat(client.areFollowing(follower, new long[] {1021, 1022, 2021})).containsExactly(true, false, true);
    }

    @Test
    void relationshipAndCounts_readTheServicesAnswers() {
        assertThat(client.relationship(30, 1030)).isEqualTo(new FollowCheckClient.Relationship(true, false));
        assertThat(client.relationship(1030, 30)).isEqualTo(new FollowCheckClient.Relationship(false, true));
        assertThat(client.counts(31)).isEqualTo(new FollowCheckClient.Counts(0, 2));
        assertThat(client.counts(1031)).isEqualTo(new FollowCheckClient.Counts(1, 0));
        assertThat(owner(30).received().getFirst().path()).isEqualTo("/internal/v1/users/30/relationship/1030");
        assertThat(owner(1031).received().getLast().path()).isEqualTo("/internal/v1/users/1031/counts");
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
