package dev.socialgraph.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.outbox.OutboxEntry;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.Transactions;
import dev.socialgraph.testsupport.TestShards;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Block and mute events through the real consumer: the blocked user's blocked-by row, the removal of the blocked
 * user's follow of the blocker on its own following database (with the unfollow's outbox row), a block lifted
 * before its event arrived, mutes that leave the follower side alone, and follow requests kept on the protected
 * account's side apart from its followers.
 */
@SpringBootTest(classes = CdcConsumerApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
@DirtiesContext
class BlocksIT {

    private static final TestShards SHARDS = TestShards.create("cdc_blocks");
    private static final CdcHarness KAFKA = new CdcHarness("cdc-blocks");
    private static final long T0 = 1_700_000_000_000L;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        KAFKA.properties(SHARDS).forEach((k, v) -> registry.add(k, () -> v));
    }

    @AfterAll
    static void close() {
        KAFKA.close();
        SHARDS.close();
    }

    @Autowired
    ShardDataSources dataSources;

    private final FollowingRepository follows = new FollowingRepository();
    private final FollowingRepository blocks = new FollowingRepository(Relation.BLOCK);
    private final OutboxRepository outbox = new OutboxRepository();

    /** Logical shards 5 and 200: the first and the second database of each group. */
    private static long firstDb(int n) {
        return 256L * (1_000 + n) + 5;
    }

    private static long secondDb(int n) {
        return 256L * (1_000 + n) + 200;
    }

    @Test
    void aBlockEvent_removesTheBlockedUsersFollow_onItsOwnDatabase_andFillsBlockedBy() throws Exception {
        long blocker = firstDb(1);
        long blocked = secondDb(1);
        long other = firstDb(2);
        write(follows, blocked, blocker, other);
        write(blocks, blocker, blocked);
        writeAt(follows, secondDb(2), T0 + 10, blocker); // a follow after the block, while it stands: removed too

        KAFKA.publish(FollowEvent.of(FollowEvent.Type.BLOCK, blocker, blocked, T0, 1, T0));
        write(blocks, blocker, blocked, secondDb(2));
        KAFKA.publish(FollowEvent.of(FollowEvent.Type.BLOCK, blocker, secondDb(2), T0, 2, T0));
        KAFKA.awaitCaughtUp();

        assertThat(find(follows, secondDb(2)).orElseThrow().followingIds()).isEmpty();
        FollowingRow row = find(follows, blocked).orElseThrow();
        assertThat(row.followingIds()).containsExactly(other);
        assertThat(row.version()).isEqualTo(2);
        assertThat(outboxOf(blocked)).singleElement().satisfies(e -> {
            assertThat(e.type()).isEqualTo(FollowEvent.Type.UNFOLLOW);
            assertThat(e.followeeId()).isEqualTo(blocker);
            assertThat(e.version()).isEqualTo(2);
        });
        assertThat(followerRow(Relation.BLOCK, blocked).orElseThrow().followerIds()).containsExactly(blocker);
        assertThat(followerRow(Relation.FOLLOW, blocked)).isEmpty();

        KAFKA.publish(FollowEvent.of(FollowEvent.Type.BLOCK, blocker, blocked, T0, 1, T0)); // redelivered
        KAFKA.publish(FollowEvent.of(FollowEvent.Type.UNBLOCK, blocker, blocked, T0, 2, T0 + 1));
        KAFKA.awaitCaughtUp();
        assertThat(outboxOf(blocked)).hasSize(1);
        assertThat(followerRow(Relation.BLOCK, blocked).orElseThrow().followerIds()).isEmpty();
    }

    @Test
    void aBlockLiftedBeforeItsEventArrived_stillRemovesTheFollowItFound_butNotALaterOne() throws Exception {
        long blocker = secondDb(3);
        long blocked = firstDb(3);
        long refollowed = firstDb(5);
        writeAt(follows, blocked, T0 - 1, blocker);          // followed before the block: the block removes it
        writeAt(follows, refollowed, T0 + 10, blocker);      // followed after the block was lifted: stays

        KAFKA.publish(FollowEvent.of(FollowEvent.Type.BLOCK, blocker, blocked, T0, 1, T0));
        KAFKA.publish(FollowEvent.of(FollowEvent.Type.BLOCK, blocker, refollowed, T0, 2, T0));
        KAFKA.awaitCaughtUp();

        assertThat(find(follows, blocked).orElseThrow().followingIds()).isEmpty();
        assertThat(find(follows, refollowed).orElseThrow().followingIds()).containsExactly(blocker);
        assertThat(outboxOf(refollowed)).isEmpty();
    }

    @Test
    void muteEvents_leaveTheFollowerSideAndTheFollowsAlone() throws Exception {
        long muter = firstDb(4);
        long muted = secondDb(4);
        write(follows, muted, muter);

        KAFKA.publish(FollowEvent.of(FollowEvent.Type.MUTE, muter, muted, T0, 1, T0));
        KAFKA.awaitCaughtUp();

        assertThat(find(follows, muted).orElseThrow().followingIds()).containsExactly(muter);
        for (Relation relation : Relation.values()) {
            assertThat(followerRow(relation, muted)).isEmpty();
        }
    }

    @Test
    void requestEvents_keepTheProtectedAccountsIncomingRequests_andNeverItsFollowers() throws Exception {
        long requester = firstDb(6);
        long other = secondDb(7);
        long protectedAccount = secondDb(6);

        KAFKA.publish(FollowEvent.of(FollowEvent.Type.REQUEST, requester, protectedAccount, T0, 1, T0));
        KAFKA.publish(FollowEvent.of(FollowEvent.Type.REQUEST, other, protectedAccount, T0 + 5, 1, T0 + 5));
        KAFKA.awaitCaughtUp();

        assertThat(followerRow(Relation.REQUEST, protectedAccount).orElseThrow().followerIds())
                .containsExactly(requester, other);
        assertThat(followerRow(Relation.FOLLOW, protectedAccount)).isEmpty();

        // Accepted: the request ends and the follow begins, both keyed by the protected account.
        KAFKA.publish(FollowEvent.of(FollowEvent.Type.UNREQUEST, requester, protectedAccount, T0, 2, T0 + 10));
        KAFKA.publish(FollowEvent.of(FollowEvent.Type.FOLLOW, requester, protectedAccount, T0 + 10, 1, T0 + 10));
        KAFKA.publish(FollowEvent.of(FollowEvent.Type.REQUEST, other, protectedAccount, T0 + 5, 1, T0 + 5)); // again
        KAFKA.awaitCaughtUp();

        assertThat(followerRow(Relation.REQUEST, protectedAccount).orElseThrow().followerIds()).containsExactly(other);
        assertThat(followerRow(Relation.FOLLOW, protectedAccount).orElseThrow().followerIds())
                .containsExactly(requester);
        assertThat(outboxOf(requester)).isEmpty(); // a request is not a block: nothing is enforced elsewhere
    }

    private void write(FollowingRepository repository, long source, long... targets) throws SQLException {
        writeAt(repository, source, T0, targets);
    }

    private void writeAt(FollowingRepository repository, long source, long at, long... targets) throws SQLException {
        long[] times = new long[targets.length];
        Arrays.fill(times, at);
        long[] sorted = targets.clone();
        Arrays.sort(sorted);
        Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWING, source),
                c -> repository.writeNextVersion(c, repository.lockOrCreate(c, source), sorted, times));
    }

    private Optional<FollowingRow> find(FollowingRepository repository, long source) throws SQLException {
        try (Connection c = dataSources.forUser(ShardGroup.FOLLOWING, source).getConnection()) {
            return repository.find(c, source);
        }
    }

    private Optional<FollowerRow> followerRow(Relation relation, long user) throws SQLException {
        try (Connection c = dataSources.forUser(ShardGroup.FOLLOWER, user).getConnection()) {
            return new FollowerRepository(relation).find(c, user);
        }
    }

    private List<OutboxEntry> outboxOf(long source) throws SQLException {
        try (Connection c = dataSources.forUser(ShardGroup.FOLLOWING, source).getConnection()) {
            return outbox.after(c, 0, 10_000).stream().filter(e -> e.followerId() == source).toList();
        }
    }
}
