package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Every method of {@link FollowCheckClient} against a real fleet: follow-write-service, cdc-consumer and
 * follow-check-service, each its own JVM from its runnable jar ({@link ServiceProcess}), on embedded PostgreSQL
 * shards, Redis and a Kafka broker (test-support). cdc-consumer's celebrity threshold is 10 and its page size 4, so a
 * user with 25 followers is a celebrity whose followers the check service reads from celebrity pages. The services do
 * not answer 429, so a 429 and a 503 with {@code Retry-After} come from a small JDK HTTP server; a real 503 comes
 * from a shard database that refuses connections, last, since it disturbs the fleet.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GraphClientIT {

    static final TestShards SHARDS = TestShards.create("graph_client");
    static final KafkaServer KAFKA = TestServers.kafka();
    static final String TOPIC = KAFKA.createTopic("follow-events", 4);
    static final int CELEBRITY_THRESHOLD = 10;
    static ServiceProcess WRITE;
    static ServiceProcess CDC;
    static ServiceProcess CHECK;
    static FollowCheckClient CLIENT;
    /** Other readers see a write within 2 s (DESIGN.md 1); generous for a loaded test machine. */
    static final Duration CONVERGENCE = Duration.ofSeconds(30);

    static {
        try {
            start();
        } catch (RuntimeException e) {
            stop(); // a failed class initializer runs no @AfterAll: do not leave the JVMs running
            throw e;
        }
    }

    private static void start() {
        FleetProperties fleet = FleetProperties.of(SHARDS, KAFKA, TOPIC);
        Map<String, String> write = fleet.write();
        write.put("graph.write.relay.poll-interval", "50ms");
        WRITE = ServiceProcess.start("follow-write-service", write, Duration.ofSeconds(180));
        Map<String, String> cdc = fleet.common();
        cdc.put("spring.kafka.bootstrap-servers", KAFKA.bootstrapServers());
        cdc.put("graph.cdc.topic", TOPIC);
        cdc.put("graph.cdc.dlt-topic", KAFKA.createTopic(TOPIC + ".DLT", 1));
        cdc.put("graph.cdc.group-id", "cdc-" + TOPIC);
        cdc.put("graph.cdc.redis-uri", fleet.redis());
        cdc.put("graph.cdc.celebrity-threshold", Integer.toString(CELEBRITY_THRESHOLD));
        cdc.put("graph.cdc.page-size", "4");
        CDC = ServiceProcess.start("cdc-consumer", cdc, Duration.ofSeconds(180));
        CHECK = ServiceProcess.start("follow-check-service", fleet.check("check-0", "check-0"),
                Duration.ofSeconds(180));
        // Both services get ServiceProcess' token and the local profile's follow-token secret, the same on both.
        CLIENT = builder().build();
    }

    /** The fleet's client: its check instance, its write instance, the service credential, generous timeouts. */
    static FollowCheckClient.Builder builder() {
        // A service JVM's first answers can take seconds on a loaded test machine (cold JIT, first connections).
        return FollowCheckClient.builder()
                .instance("check-0", URI.create(CHECK.baseUrl()))
                .writeInstance(URI.create(WRITE.baseUrl()))
                .serviceToken(ServiceProcess.SERVICE_TOKEN)
                .connectTimeout(Duration.ofSeconds(5))
                .requestTimeout(Duration.ofSeconds(30));
    }

    @AfterAll
    static void stop() {
        if (CLIENT != null) {
            CLIENT.close();
        }
        for (ServiceProcess service : new ServiceProcess[] {CHECK, CDC, WRITE}) {
            if (service != null) {
                service.close();
            }
        }
        SHARDS.close();
    }

    private static List<Long> ids(List<FollowCheckClient.Followed> items) {
        return items.stream().map(FollowCheckClient.Followed::userId).toList();
    }

    /**
     * 1001 follows 1002..1005; 1002 follows 1003, 1004, 1006; 1003 follows 1004, 1006; 1005 follows then unfollows
     * 1001. So 1001's suggestion is 1006 (followed by two of its followings) and 1001 and 1002 both follow 1003 and
     * 1004.
     */
    @Test
    @Order(1)
    void followsAndReads_everyReadMethod_answersFromTheFleet() {
        long a = 1001, b = 1002, c = 1003, d = 1004, e = 1005, f = 1006;
        Instant before = Instant.now().minusSeconds(60);
        WriteResult first = CLIENT.follow(a, b);
        assertThat(first.relation()).isEqualTo(Relation.FOLLOW);
        assertThat(first.actor()).isEqualTo(a);
        assertThat(first.target()).isEqualTo(b);
        assertThat(first.active()).isTrue();
        assertThat(first.createdAt()).hasValueSatisfying(at -> assertThat(at).isAfter(before));
        assertThat(first.version()).isPositive();
        assertThat(first.followToken()).hasSize(64);
        CLIENT.follow(a, c);
        CLIENT.follow(a, d);
        WriteResult last = CLIENT.follow(a, e);
        assertThat(last.version()).isGreaterThan(first.version());
        for (long[] edge : new long[][] {{b, c}, {b, d}, {b, f}, {c, d}, {c, f}, {e, a}}) {
            CLIENT.follow(edge[0], edge[1]);
        }
        WriteResult unfollow = CLIENT.unfollow(e, a);
        assertThat(unfollow.active()).isFalse();
        assertThat(unfollow.createdAt()).isEmpty();
        assertThat(unfollow.actor()).isEqualTo(e);
        // Idempotent: the repeat replies with the same state.
        assertThat(CLIENT.unfollow(e, a).active()).isFalse();

        // Checks: with the write's token at once (read-your-writes), without it once the follow-events are applied.
        assertThat(CLIENT.isFollowing(a, e, last.followToken())).isTrue();
        assertThat(CLIENT.isFollowing(e, a, unfollow.followToken())).isFalse();
        await().atMost(CONVERGENCE).until(() -> CLIENT.isFollowing(a, e));
        assertThat(CLIENT.isFollowing(a, f)).isFalse();
        FollowingBatch batch = CLIENT.areFollowing(a, new long[] {f, c, b, c}, last.followToken());
        assertThat(batch.toArray()).containsExactly(false, true, true, true);
        assertThat(batch.following()).containsExactly(b, c);
        assertThat(batch.notFollowing()).containsExactly(f);
        assertThat(CLIENT.areFollowing(a, new long[] {e, f}).toArray()).containsExactly(true, false);

        // Following, newest first, two per page: by hand, then as a stream.
        Page<FollowCheckClient.Followed> page1 = CLIENT.following(a, 2, null);
        assertThat(ids(page1.items())).containsExactly(e, d);
        assertThat(page1.hasNext()).isTrue();
        Page<FollowCheckClient.Followed> page2 = CLIENT.following(a, 2, page1.nextCursor());
        assertThat(ids(page2.items())).containsExactly(c, b);
        assertThat(page2.items().getFirst().followedAt()).isAfter(before);
        assertThat(CLIENT.allFollowing(a, 3).map(FollowCheckClient.Followed::userId).toList())
                .containsExactly(e, d, c, b);
        assertThat(CLIENT.allFollowing(a, 1).limit(2).map(FollowCheckClient.Followed::userId).toList())
                .containsExactly(e, d);

        // Followers: the follower side, written by cdc-consumer.
        await().atMost(CONVERGENCE).untilAsserted(() ->
                assertThat(CLIENT.allFollowers(d, 2).map(FollowCheckClient.Followed::userId).toList())
                        .containsExactly(c, b, a));
        Page<FollowCheckClient.Followed> followersOfD = CLIENT.followers(d, 1, null);
        assertThat(ids(followersOfD.items())).containsExactly(c);
        assertThat(ids(CLIENT.followers(d, 5, followersOfD.nextCursor()).items())).containsExactly(b, a);
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(CLIENT.followers(a, 5, null).items()).isEmpty());

        // Counts.
        await().atMost(CONVERGENCE).untilAsserted(() ->
                assertThat(CLIENT.counts(d)).isEqualTo(new FollowCheckClient.Counts(3, 0)));
        await().atMost(CONVERGENCE).untilAsserted(() ->
                assertThat(CLIENT.counts(a)).isEqualTo(new FollowCheckClient.Counts(0, 4)));

        // Common following, ascending by id.
        Page<Long> common = CLIENT.commonFollowing(a, b, 1, null);
        assertThat(common.items()).containsExactly(c);
        assertThat(CLIENT.commonFollowing(a, b, 5, common.nextCursor()).items()).containsExactly(d);
        assertThat(CLIENT.allCommonFollowing(a, b, 1).toList()).containsExactly(c, d);

        // Relationship with every field; as a third user sees it, without the blocks and the mute.
        assertThat(CLIENT.relationship(a, b)).isEqualTo(FollowCheckClient.Relationship.of(true, false, false, false,
                false));
        assertThat(CLIENT.relationship(b, a, null)).isEqualTo(FollowCheckClient.Relationship.of(false, true, false,
                false, false));
        FollowCheckClient.Relationship seenByC = CLIENT.relationshipSeenBy(a, b, c, null);
        assertThat(seenByC.following()).isTrue();
        assertThat(seenByC.blocking()).isEmpty();
        assertThat(seenByC.blockedBy()).isEmpty();
        assertThat(seenByC.muting()).isEmpty();
        FollowCheckClient.Relationship seenByB = CLIENT.relationshipSeenBy(a, b, b, null);
        assertThat(seenByB.blocking()).contains(false);
        assertThat(seenByB.muting()).isEmpty();

        // Suggestions.
        assertThat(CLIENT.suggestions(a, 5)).containsExactly(new FollowCheckClient.Suggestion(f, 2));
        assertThat(CLIENT.suggestions(f, 5)).isEmpty();

        // One check instance: it owns every shard, first and on fail-over.
        assertThat(CLIENT.instanceIds()).containsExactly("check-0");
        assertThat(CLIENT.instanceFor(a, 0)).isEqualTo("check-0");
        assertThat(CLIENT.instanceFor(a, 1)).isEqualTo("check-0");
    }

    /**
     * 2002 follows 2001, then 2001 blocks 2002 (the block's event removes 2002's follow) and mutes 2003 and 2004;
     * then the refused follow, the lists, hidden authors and the relationship, and the undoing writes.
     */
    @Test
    @Order(2)
    void blocksAndMutes_writeAndRead() {
        long a = 2001, b = 2002, c = 2003, d = 2004;
        CLIENT.follow(b, a);
        CLIENT.follow(a, b);
        WriteResult block = CLIENT.block(a, b);
        assertThat(block.relation()).isEqualTo(Relation.BLOCK);
        assertThat(block.actor()).isEqualTo(a);
        assertThat(block.target()).isEqualTo(b);
        assertThat(block.active()).isTrue();
        assertThat(block.createdAt()).isPresent();
        assertThat(block.followToken()).hasSize(64);
        WriteResult muteC = CLIENT.mute(a, c);
        assertThat(muteC.relation()).isEqualTo(Relation.MUTE);
        assertThat(muteC.active()).isTrue();
        WriteResult muteD = CLIENT.mute(a, d);

        // Hidden authors: with the writer's token at once; without, once the events reached the check service.
        long[] authors = {a, b, c, d};
        FollowCheckClient.Hidden hiddenFromA = CLIENT.hidden(a, authors, muteD.followToken());
        assertThat(hiddenFromA.blocking()).containsExactly(b);
        assertThat(hiddenFromA.blockedBy()).isEmpty();
        assertThat(hiddenFromA.muting()).containsExactly(c, d);
        await().atMost(CONVERGENCE).untilAsserted(() -> {
            FollowCheckClient.Hidden fromB = CLIENT.hidden(b, authors);
            assertThat(fromB.blockedBy()).containsExactly(a);
            assertThat(fromB.blocking()).isEmpty();
            assertThat(fromB.muting()).isEmpty();
        });
        assertThat(CLIENT.hidden(d, authors).isEmpty()).isTrue();
        await().atMost(CONVERGENCE).until(() -> !CLIENT.isFollowing(b, a));

        // A follow the block forbids, either way.
        assertThatThrownBy(() -> CLIENT.follow(a, b)).isInstanceOfSatisfying(RequestRejectedException.class, e -> {
            assertThat(e.status()).isEqualTo(409);
            assertThat(e.type()).isEqualTo(ProblemType.BLOCKING);
            assertThat(e.parameter()).contains("followeeId");
        });
        assertThatThrownBy(() -> CLIENT.follow(b, a)).isInstanceOfSatisfying(RequestRejectedException.class, e -> {
            assertThat(e.status()).isEqualTo(403);
            assertThat(e.type()).isEqualTo(ProblemType.BLOCKED);
            assertThat(e.parameter()).contains("followeeId");
        });

        // Block and mute lists, newest first.
        assertThat(CLIENT.blocking(a, 5, null).items()).extracting(FollowCheckClient.Related::userId)
                .containsExactly(b);
        assertThat(CLIENT.blocking(a, 5, null).items().getFirst().createdAt()).isEqualTo(block.since());
        Page<FollowCheckClient.Related> mutes = CLIENT.muting(a, 1, null);
        assertThat(mutes.items()).extracting(FollowCheckClient.Related::userId).containsExactly(d);
        assertThat(CLIENT.muting(a, 1, mutes.nextCursor()).items()).extracting(FollowCheckClient.Related::userId)
                .containsExactly(c);
        assertThat(CLIENT.allMuting(a, 1).map(FollowCheckClient.Related::userId).toList()).containsExactly(d, c);
        assertThat(CLIENT.allBlocking(a, 1).map(FollowCheckClient.Related::userId).toList()).containsExactly(b);
        assertThat(CLIENT.blocking(b, 5, null).items()).isEmpty();

        // The relationship: no follow while the block stands.
        assertThat(CLIENT.relationship(a, b)).isEqualTo(FollowCheckClient.Relationship.of(false, false, true, false,
                false));
        assertThat(CLIENT.relationship(a, c)).isEqualTo(FollowCheckClient.Relationship.of(false, false, false, false,
                true));
        assertThat(CLIENT.relationship(b, a).blocked()).isTrue();
        assertThat(CLIENT.relationship(b, a).blockedBy()).contains(true);

        // Undo.
        WriteResult unblock = CLIENT.unblock(a, b);
        assertThat(unblock.active()).isFalse();
        assertThat(unblock.createdAt()).isEmpty();
        WriteResult unmute = CLIENT.unmute(a, c);
        assertThat(unmute.relation()).isEqualTo(Relation.MUTE);
        assertThat(unmute.active()).isFalse();
        FollowCheckClient.Hidden after = CLIENT.hidden(a, authors, unmute.followToken());
        assertThat(after.blocking()).isEmpty();
        assertThat(after.muting()).containsExactly(d);
        assertThat(CLIENT.allBlocking(a, 5).toList()).isEmpty();
        assertThat(CLIENT.follow(a, b).active()).isTrue();
    }

    /**
     * User 3000 gets 25 followers, past cdc-consumer's threshold of 10, so its followers move into celebrity pages of
     * 4; the stream walks them 7 at a time, newest first, each follower once.
     */
    @Test
    @Order(3)
    void celebrity_followersStream_walksEveryPage() throws Exception {
        long celebrity = 3000;
        List<Long> followers = new ArrayList<>();
        for (long follower = 3001; follower <= 3025; follower++) {
            CLIENT.follow(follower, celebrity);
            followers.add(follower);
        }
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(CLIENT.counts(celebrity).followers()).isEqualTo(25));
        assertThat(celebrityMigrations()).isGreaterThanOrEqualTo(1);

        await().atMost(CONVERGENCE).untilAsserted(() -> {
            List<FollowCheckClient.Followed> walked = CLIENT.allFollowers(celebrity, 7).toList();
            assertThat(walked).extracting(FollowCheckClient.Followed::userId)
                    .containsExactlyInAnyOrderElementsOf(followers);
            for (int i = 1; i < walked.size(); i++) {
                assertThat(walked.get(i).followedAt()).isBeforeOrEqualTo(walked.get(i - 1).followedAt());
            }
        });
        // The same list by hand: four pages of 7, 7, 7, 4; the last without a cursor.
        List<Integer> sizes = new ArrayList<>();
        String cursor = null;
        do {
            Page<FollowCheckClient.Followed> page = CLIENT.followers(celebrity, 7, cursor);
            sizes.add(page.items().size());
            cursor = page.nextCursor();
        } while (cursor != null);
        assertThat(sizes).containsExactly(7, 7, 7, 4);
        assertThat(CLIENT.allFollowers(celebrity, 1000).count()).isEqualTo(25);
    }

    /** {@code graph_cdc_celebrity_migrations_total} of cdc-consumer: follower rows moved into celebrity pages. */
    private static double celebrityMigrations() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(CDC.managementUrl() + "/actuator/prometheus")).build(),
                HttpResponse.BodyHandlers.ofString());
        return r.body().lines().filter(l -> l.startsWith("graph_cdc_celebrity_migrations_total"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    /**
     * With read-your-writes asked for, each write's token goes with the writer's next reads: every fresh follow
     * reads {@code true} and every fresh unfollow {@code false} at once, from the check, the batch check and the
     * relationship, with no token passed by hand.
     */
    @Test
    @Order(4)
    void readYourWrites_aWriteIsSeenByTheWritersNextReads() {
        try (FollowCheckClient client = builder().readYourWrites(true).build()) {
            for (long follower = 4001; follower <= 4010; follower++) {
                long followee = follower + 100;
                client.follow(follower, followee);
                assertThat(client.isFollowing(follower, followee)).as("after follow %d", follower).isTrue();
                assertThat(client.areFollowing(follower, new long[] {followee, 1}).toArray()).containsExactly(true,
                        false);
                assertThat(client.relationship(follower, followee).following()).isTrue();
                client.unfollow(follower, followee);
                assertThat(client.isFollowing(follower, followee)).as("after unfollow %d", follower).isFalse();
                assertThat(client.relationship(follower, followee).following()).isFalse();
            }
        }
    }

    /** The account lifecycle against the real services: the state, its job, and the check service's view. */
    @Test
    @Order(4)
    void accountLifecycle_deactivateReactivateErase_throughTheClient() {
        try (FollowCheckClient client = builder().readYourWrites(true).build()) {
            long user = 4201;
            long fan = 4202;
            client.follow(fan, user);
            AccountState off = client.deactivate(user);
            assertThat(off.state()).isEqualTo(AccountState.State.DEACTIVATED);
            assertThat(client.accountState(user).state()).isEqualTo(AccountState.State.DEACTIVATED);
            await().atMost(Duration.ofSeconds(10)).until(() -> !client.isFollowing(fan, user));
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> client.accountJob(off.jobId()).status() == AccountJob.Status.DONE);
            assertThat(client.accountJob(off.jobId()).kind()).isEqualTo(AccountJob.Kind.DEACTIVATE);

            AccountState on = client.reactivate(user);
            assertThat(on.state()).isEqualTo(AccountState.State.ACTIVE);
            await().atMost(Duration.ofSeconds(10)).until(() -> client.isFollowing(fan, user));

            AccountState erased = client.erase(user);
            assertThat(erased.state()).isEqualTo(AccountState.State.ERASED);
            assertThat(client.erase(user).jobId()).as("erasing twice changes nothing").isEqualTo(erased.jobId());
            await().atMost(Duration.ofSeconds(10)).until(() -> !client.isFollowing(fan, user));
        }
    }

    /**
     * A protected account through the client against the real services: a follow is a request, listed both ways
     * (the incoming side through the cdc-consumer), one accepted, one declined, and the rest accepted by the job that
     * making the account public starts.
     */
    @Test
    @Order(4)
    void protectedAccount_requestsListedAnsweredAndAcceptedByMakingItPublic() {
        long owner = 4301;
        long accepted = 4302;
        long declined = 4303;
        long waiting = 4304;
        Protection on = CLIENT.protect(owner);
        assertThat(on.protectedAccount()).isTrue();
        assertThat(CLIENT.protect(owner).version()).as("protecting twice").isEqualTo(on.version());
        for (long requester : new long[] {accepted, declined, waiting}) {
            WriteResult asked = CLIENT.follow(requester, owner);
            assertThat(asked.requested()).isTrue();
            assertThat(asked.active()).isFalse();
            assertThat(asked.requestedAt()).isNotNull();
        }
        assertThat(CLIENT.followRequests(waiting, false, 10, null).items()).extracting(FollowLists.Related::userId)
                .containsExactly(owner);
        await().atMost(CONVERGENCE).untilAsserted(() -> assertThat(CLIENT.followRequests(owner, true, 10, null)
                .items()).extracting(FollowLists.Related::userId).containsExactlyInAnyOrder(accepted, declined, waiting));
        assertThat(CLIENT.isFollowing(accepted, owner)).as("a request is no follow").isFalse();

        WriteResult follow = CLIENT.acceptFollowRequest(owner, accepted);
        assertThat(follow.active()).isTrue();
        assertThat(follow.actor()).isEqualTo(accepted);
        assertThat(CLIENT.declineFollowRequest(owner, declined).requested()).isFalse();
        assertThatThrownBy(() -> CLIENT.acceptFollowRequest(owner, declined))
                .isInstanceOfSatisfying(RequestRejectedException.class, e -> assertThat(e.status()).isEqualTo(404));
        await().atMost(CONVERGENCE).until(() -> CLIENT.isFollowing(accepted, owner));

        Protection off = CLIENT.unprotect(owner);
        assertThat(off.protectedAccount()).isFalse();
        assertThat(off.jobId()).isEqualTo(owner + "-" + off.version());
        await().atMost(Duration.ofSeconds(60))
                .until(() -> CLIENT.accountJob(off.jobId()).status() == AccountJob.Status.DONE);
        assertThat(CLIENT.accountJob(off.jobId()).kind()).isEqualTo(AccountJob.Kind.ACCEPT_REQUESTS);
        await().atMost(CONVERGENCE).until(() -> CLIENT.isFollowing(waiting, owner));
        assertThat(CLIENT.isFollowing(declined, owner)).as("a declined request is not accepted").isFalse();
        assertThat(CLIENT.followRequests(waiting, false, 10, null).items()).isEmpty();
    }

    /** Writes on a first write instance that refuses connections go to the next one, which answers. */
    @Test
    @Order(5)
    void writes_failOverToTheNextWriteInstance() throws IOException {
        int dead;
        try (var socket = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            dead = socket.getLocalPort(); // closed again: connections to it are refused
        }
        try (FollowCheckClient client = FollowCheckClient.builder()
                .writeInstance(URI.create("http://127.0.0.1:" + dead))
                .writeInstance(URI.create(WRITE.baseUrl()))
                .writeBalancing(WriteBalancing.FIRST_AVAILABLE)
                .serviceToken(ServiceProcess.SERVICE_TOKEN)
                .requestTimeout(Duration.ofSeconds(30))
                .build()) {
            assertThat(client.follow(5001, 5002).active()).isTrue();
            assertThat(client.unfollow(5001, 5002).active()).isFalse();
            assertThatThrownBy(() -> client.isFollowing(5001, 5002)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no check instance");
        }
    }

    /** The services' refusals as typed exceptions with the bad input's name. */
    @Test
    @Order(6)
    void refusals_areTypedProblems_namingTheParameter() {
        assertThatThrownBy(() -> CLIENT.follow(6001, 6001)).isInstanceOfSatisfying(RequestRejectedException.class,
                e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.type()).isEqualTo(ProblemType.INVALID_PARAMETER);
                    assertThat(e.parameter()).contains("followeeId");
                });
        assertThatThrownBy(() -> CLIENT.mute(6001, 6001)).isInstanceOfSatisfying(RequestRejectedException.class,
                e -> assertThat(e.parameter()).contains("targetId"));
        assertThatThrownBy(() -> CLIENT.following(6001, 5000, null))
                .isInstanceOfSatisfying(RequestRejectedException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.parameter()).contains("limit");
                    assertThat(e.retryAfter()).isEmpty();
                });
        assertThatThrownBy(() -> CLIENT.followers(6001, 5, "not-a-cursor"))
                .isInstanceOfSatisfying(RequestRejectedException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.parameter()).contains("cursor");
                });
        try (FollowCheckClient wrongToken = builder().serviceToken("not-the-deployments-service-token-0123456789")
                .build()) {
            // Today's services name this type with a URN outside the vocabulary; then the 401's default type stands.
            assertThatThrownBy(() -> wrongToken.counts(6001)).isInstanceOfSatisfying(RequestRejectedException.class,
                    e -> {
                        assertThat(e.status()).isEqualTo(401);
                        assertThat(e.type()).isIn(ProblemType.SERVICE_CREDENTIAL, ProblemType.UNAUTHORIZED);
                        assertThat(e.parameter()).contains("X-Service-Token");
                    });
            assertThatThrownBy(() -> wrongToken.follow(6001, 6002)).isInstanceOfSatisfying(
                    RequestRejectedException.class, e -> assertThat(e.status()).isEqualTo(401));
        }
    }

    /**
     * 429 and 503 as problem+json with {@code Retry-After} from a small HTTP server standing for an instance: the 429
     * is thrown at once (one request), the 503 after every attempt, each with its wait.
     */
    @Test
    @Order(7)
    void rateLimitedAndUnavailable_carryRetryAfter() throws IOException {
        Instant at = Instant.now().plusSeconds(3600);
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(at.atZone(ZoneOffset.UTC));
        List<String> paths = new java.util.concurrent.CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            paths.add(path);
            boolean limited = path.endsWith("/counts");
            exchange.getResponseHeaders().set("Content-Type", "application/problem+json");
            exchange.getResponseHeaders().set("Retry-After", limited ? "7" : date);
            byte[] body = (limited
                    ? "{\"type\":\"https://socialgraph.dev/problems/rate-limited\",\"title\":\"Too Many Requests\","
                            + "\"status\":429,\"detail\":\"slow down\"}"
                    : "{\"type\":\"https://socialgraph.dev/problems/shard-unavailable\",\"title\":\"Service Unavailable\","
                            + "\"status\":503,\"parameter\":\"id\"}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(limited ? 429 : 503, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        String base = "http://127.0.0.1:" + server.getAddress().getPort();
        try (FollowCheckClient client = FollowCheckClient.builder().instance("check-0", URI.create(base))
                .writeInstance(URI.create(base)).maxAttempts(3).build()) {
            assertThatThrownBy(() -> client.counts(7001)).isInstanceOfSatisfying(RateLimitedException.class, e -> {
                assertThat(e.status()).isEqualTo(429);
                assertThat(e.type()).isEqualTo(ProblemType.RATE_LIMITED);
                assertThat(e.retryAfter()).contains(Duration.ofSeconds(7));
                assertThat(e.parameter()).isEmpty();
            }).hasMessageContaining("slow down");
            assertThat(paths).containsExactly("/internal/v1/users/7001/counts");

            paths.clear();
            assertThatThrownBy(() -> client.isFollowing(7001, 7002)).isInstanceOfSatisfying(UnavailableException.class,
                    e -> {
                        assertThat(e.status()).isEqualTo(503);
                        assertThat(e.type()).isEqualTo(ProblemType.SHARD_UNAVAILABLE);
                        assertThat(e.parameter()).contains("id");
                        assertThat(e.retryAfter()).hasValueSatisfying(wait -> assertThat(wait)
                                .isBetween(Duration.ofMinutes(50), Duration.ofMinutes(60)));
                    });
            assertThat(paths).hasSize(3).containsOnly("/internal/v1/users/7001/following/7002");

            paths.clear();
            assertThatThrownBy(() -> client.follow(7001, 7002)).isInstanceOf(UnavailableException.class);
            assertThat(paths).hasSize(3);
        } finally {
            server.stop(0);
        }
    }

    /**
     * A real 503: the following database of shards 128..255 refuses connections, so reads and writes of users routed
     * there are answered 503 with {@code Retry-After: 1} after every attempt, and users elsewhere are served.
     */
    @Test
    @Order(8)
    void shardDatabaseDown_isUnavailableWithRetryAfter_forItsUsersOnly() throws Exception {
        long routedThere = 256L * 40 + 200;    // shard 200
        long routedElsewhere = 256L * 40 + 20; // shard 20
        CLIENT.follow(routedThere, routedElsewhere);
        CLIENT.follow(routedElsewhere, routedThere);
        String database = SHARDS.shardMap().ranges(ShardGroup.FOLLOWING).get(1).database();
        DataSource admin = TestServers.postgres().dataSource("postgres");
        try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
            st.execute("ALTER DATABASE \"" + database + "\" ALLOW_CONNECTIONS false");
            st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + database + "'");
        }
        try {
            assertThatThrownBy(() -> CLIENT.following(routedThere, 10, null))
                    .isInstanceOfSatisfying(UnavailableException.class, e -> {
                        assertThat(e.status()).isEqualTo(503);
                        assertThat(e.type()).isIn(ProblemType.SHARD_UNAVAILABLE, ProblemType.SERVICE_UNAVAILABLE);
                        assertThat(e.retryAfter()).contains(Duration.ofSeconds(1));
                    });
            assertThatThrownBy(() -> CLIENT.follow(routedThere, routedElsewhere + 1))
                    .isInstanceOfSatisfying(UnavailableException.class, e -> {
                        assertThat(e.status()).isEqualTo(503);
                        assertThat(e.retryAfter()).contains(Duration.ofSeconds(1));
                    });
            assertThat(ids(CLIENT.following(routedElsewhere, 10, null).items())).containsExactly(routedThere);
        } finally {
            try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
                st.execute("ALTER DATABASE \"" + database + "\" ALLOW_CONNECTIONS true");
            }
        }
        await().atMost(CONVERGENCE).ignoreExceptions().untilAsserted(() ->
                assertThat(ids(CLIENT.following(routedThere, 10, null).items())).containsExactly(routedElsewhere));
    }
}
