package dev.socialgraph.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.Transactions;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import dev.socialgraph.write.outbox.TopicReader;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Every write that commits an outbox row wakes its database's relay: follows, unfollows, blocks, mutes and their
 * removals over HTTP, and an erasure job's removal of the erased user from another user's row. The relays poll once
 * an hour here, so once each has had its first round (which may find a row committed before it), only the nudge of
 * the write can explain its event reaching Kafka during the test.
 */
// Closed after the class: its databases are dropped then, and its relays and pools must not outlive them.
@DirtiesContext
@SpringBootTest(classes = FollowWriteServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OutboxNudgeIT {

    private static final TestShards SHARDS = TestShards.create("write_nudge");
    private static final RedisServer REDIS = TestServers.redis();
    private static final String REDIS_URI = REDIS.uri(REDIS.freshDatabase());
    private static final KafkaServer KAFKA = TestServers.kafka();
    private static final String TOPIC = KAFKA.createTopic("nudge-events", 2);

    private static long nextUser = 1;
    private static boolean firstRoundsOver;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.write.redis.uri", () -> REDIS_URI);
        registry.add("graph.write.topic", () -> TOPIC);
        registry.add("graph.write.relay.bootstrap-servers", KAFKA::bootstrapServers);
        registry.add("graph.write.relay.send-timeout", () -> "2s");
        registry.add("graph.write.relay.poll-interval", () -> "1h");
        registry.add("graph.write.accounts.start-delay", () -> "0s");
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

    WriteHttp http;
    TopicReader reader;

    @BeforeEach
    void setUp() {
        http = new WriteHttp(port);
        reader = new TopicReader(KAFKA.bootstrapServers(), TOPIC);
        if (!firstRoundsOver) {
            // One write per following database; once its event is in Kafka, that relay's first round is over.
            long first = user(0);
            long second = user(1);
            assertThat(http.follow(first, second).status()).isEqualTo(200);
            assertThat(http.follow(second, first).status()).isEqualTo(200);
            awaitEvent(FollowEvent.Type.FOLLOW, first, second);
            awaitEvent(FollowEvent.Type.FOLLOW, second, first);
            firstRoundsOver = true;
        }
    }

    @AfterEach
    void closeReader() {
        reader.close();
    }

    @Test
    void followAndUnfollow_eachReachKafka_thoughTheRelayPollsHourly() {
        long follower = user(1);
        long followee = user(0);

        assertThat(http.follow(follower, followee).status()).isEqualTo(200);
        awaitEvent(FollowEvent.Type.FOLLOW, follower, followee);
        assertThat(http.unfollow(follower, followee).status()).isEqualTo(200);
        awaitEvent(FollowEvent.Type.UNFOLLOW, follower, followee);
    }

    @Test
    void blocksAndMutes_andTheirRemovals_eachReachKafka() {
        long user = user(0);
        long target = user(1);
        assertThat(http.follow(user, target).status()).isEqualTo(200);
        awaitEvent(FollowEvent.Type.FOLLOW, user, target);

        assertThat(http.relation("blocking", true, user, target).status()).isEqualTo(200);
        awaitEvent(FollowEvent.Type.BLOCK, user, target);
        awaitEvent(FollowEvent.Type.UNFOLLOW, user, target); // the block's transaction removed the follow
        assertThat(http.relation("blocking", false, user, target).status()).isEqualTo(200);
        awaitEvent(FollowEvent.Type.UNBLOCK, user, target);
        assertThat(http.relation("muting", true, user, target).status()).isEqualTo(200);
        awaitEvent(FollowEvent.Type.MUTE, user, target);
        assertThat(http.relation("muting", false, user, target).status()).isEqualTo(200);
        awaitEvent(FollowEvent.Type.UNMUTE, user, target);
    }

    @Test
    void erasure_removingTheUserFromAFollowersRow_reachesKafkaAsThatFollowersUnfollow() {
        long erased = user(0);
        long follower = user(1);
        assertThat(http.follow(follower, erased).status()).isEqualTo(200);
        awaitEvent(FollowEvent.Type.FOLLOW, follower, erased);
        // The follower side, as the consumer (not running here) would have written it: the job walks it.
        FollowerRepository followers = new FollowerRepository(Relation.FOLLOW);
        tx(ShardGroup.FOLLOWER, erased, c -> followers.writeNextVersion(c, followers.lockOrCreate(c, erased),
                new long[] {follower}, new long[] {1}, 1, false));

        assertThat(http.send("DELETE", "/internal/v1/admin/users/" + erased).status()).isEqualTo(200);

        awaitEvent(FollowEvent.Type.UNFOLLOW, follower, erased);
    }

    /** A fresh user of the first ({@code database} 0) or second following database. */
    private static long user(int database) {
        return 256L * (nextUser++) + (database == 0 ? 5 : 200);
    }

    private void awaitEvent(FollowEvent.Type type, long source, long target) {
        await().atMost(Duration.ofSeconds(30)).until(() -> reader.poll().stream().map(TopicReader.Received::event)
                .anyMatch(e -> e.type() == type && e.followerId() == source && e.followeeId() == target));
    }

    private <T> T tx(ShardGroup group, long userId, Transactions.Work<T> work) {
        try {
            return Transactions.inTransaction(dataSources.forUser(group, userId), work);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
