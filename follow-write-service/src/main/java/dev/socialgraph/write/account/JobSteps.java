package dev.socialgraph.write.account;

import dev.socialgraph.cache.FollowingCache;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.account.AccountRowsRepository;
import dev.socialgraph.store.account.AccountStateRepository;
import dev.socialgraph.store.account.CountExclusionRepository;
import dev.socialgraph.store.account.Counted;
import dev.socialgraph.store.account.FollowerSideRemoval;
import dev.socialgraph.store.account.JobKind;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.following.RelationEdges;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.write.account.JobPlan.Phase;
import dev.socialgraph.write.follow.BlockingException;
import dev.socialgraph.write.follow.FollowService;
import dev.socialgraph.write.follow.FollowingLimitException;
import dev.socialgraph.write.follow.RequestNotFoundException;
import dev.socialgraph.write.follow.UserInactiveException;
import dev.socialgraph.write.outbox.OutboxCommits;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.springframework.stereotype.Component;

/**
 * The stores' side of an account job: the lists a phase walks and the change of one edge, each one transaction on
 * the other user's shard (through the shard's fence, as every write), each idempotent: an exclusion is added or
 * removed at most once, a removal of an id that is not there changes nothing. A batch done twice after a crash
 * therefore changes nothing the second time. Thread-safe.
 */
@Component
class JobSteps {

    private static final long[] NONE = {};

    private final ShardDataSources dataSources;
    private final FollowingCache cache;
    private final OutboxCommits commits;
    private final FollowService follows;
    private final CountExclusionRepository exclusions = new CountExclusionRepository();
    private final AccountRowsRepository accountRows = new AccountRowsRepository();
    private final AccountStateRepository states = new AccountStateRepository();
    private final Map<Relation, RelationEdges> edges = new EnumMap<>(Relation.class);
    private final Map<Relation, FollowerSideRemoval> followerSides = new EnumMap<>(Relation.class);

    JobSteps(ShardDataSources dataSources, OutboxRepository outbox, FollowingCache cache, OutboxCommits commits,
             FollowService follows) {
        this.follows = follows;
        this.dataSources = dataSources;
        this.cache = cache;
        this.commits = commits;
        for (Relation relation : Relation.values()) {
            edges.put(relation, new RelationEdges(new FollowingRepository(relation), outbox));
            if (relation.keepsReverse()) {
                followerSides.put(relation, new FollowerSideRemoval(relation));
            }
        }
    }

    /**
     * The ids {@code phase} walks for {@code userId}, ascending and distinct; empty for a phase that walks none. The
     * requests an {@code accept-requests} job walks are none once the account is protected again: the requests made
     * since are the account's to answer, and the job lists them when it starts or resumes.
     */
    long[] list(JobKind kind, Phase phase, long userId) throws SQLException {
        if (kind == JobKind.ACCEPT_REQUESTS && isProtected(userId)) {
            return NONE;
        }
        return switch (phase.walk()) {
            case TARGETS -> dataSources.readUser(ShardGroup.FOLLOWING, userId,
                    c -> edges.get(phase.relation()).rows().find(c, userId).map(FollowingRow::followingIds)
                            .orElse(NONE));
            case SOURCES -> dataSources.readUser(ShardGroup.FOLLOWER, userId,
                    c -> followerSides.get(phase.relation()).followers(c, userId));
            case MUTERS -> muters(userId);
            case OWN_ROWS -> NONE;
        };
    }

    /**
     * Carries out {@code kind}'s change of the edge between {@code userId} (X) and {@code otherId} in {@code phase}.
     *
     * @throws SQLException as the other user's database reported it; nothing of this edge was committed
     */
    void apply(JobKind kind, Phase phase, long userId, long otherId, JobReport report) throws SQLException {
        boolean targets = phase.walk() == JobPlan.Walk.TARGETS;
        // TARGETS: X's row names the other user, whose follower side counts X; else the other user's row names X.
        ShardGroup group = targets ? ShardGroup.FOLLOWER : ShardGroup.FOLLOWING;
        Counted counted = targets ? Counted.FOLLOWERS : Counted.FOLLOWING;
        switch (kind) {
            case DEACTIVATE -> {
                if (dataSources.inUserTransaction(group, otherId,
                        c -> exclusions.exclude(c, otherId, counted, userId))) {
                    report.exclusionAdded();
                }
            }
            case REACTIVATE -> {
                if (dataSources.inUserTransaction(group, otherId,
                        c -> exclusions.include(c, otherId, counted, userId))) {
                    report.exclusionRemoved();
                }
            }
            case ERASE -> {
                if (targets) {
                    eraseFromFollowerSide(phase.relation(), otherId, userId, report);
                } else {
                    eraseFromRow(phase.relation(), otherId, userId, report);
                }
            }
            case ACCEPT_REQUESTS -> accept(userId, otherId, report);
        }
    }

    /**
     * X, made public, accepts {@code requesterId}'s pending request as X's own acceptance would
     * ({@link FollowService#accept}: one transaction on the requester's shard, an {@code unrequest} and a
     * {@code follow} event). A request no longer pending (answered, withdrawn, accepted by an earlier run of this
     * batch) changes nothing. A request that cannot become a follow, its requester inactive or at the following cap,
     * ends as a decline would end it, so that no request stays pending to a public account; a request of an inactive
     * X stays, as X's edges stay while X is deactivated.
     */
    private void accept(long userId, long requesterId, JobReport report) throws SQLException {
        try {
            if (follows.accept(userId, requesterId).changed()) {
                report.rowChanged();
            }
        } catch (RequestNotFoundException e) {
            // not pending any more: nothing to do
        } catch (UserInactiveException e) {
            if (e.userId() == requesterId) {
                eraseFromRow(Relation.REQUEST, requesterId, userId, report);
            }
        } catch (FollowingLimitException e) {
            eraseFromRow(Relation.REQUEST, requesterId, userId, report);
        } catch (BlockingException e) {
            // X blocks the requester: the acceptance ended the request, and no follow began
        }
    }

    /**
     * Deletes X's own rows of every relation (following and follower sides, celebrity pages), the exclusions and
     * offsets of X's own counts, and X's Redis keys. Repeating it deletes nothing more.
     *
     * @throws IllegalStateException when Redis failed (the job is retried from this phase)
     */
    void deleteOwnRows(long userId, JobReport report) throws SQLException {
        report.rowsDeleted(dataSources.inUserTransaction(ShardGroup.FOLLOWING, userId,
                c -> accountRows.deleteFollowingRows(c, userId) + exclusions.deleteAll(c, userId, Counted.FOLLOWING)));
        report.rowsDeleted(dataSources.inUserTransaction(ShardGroup.FOLLOWER, userId,
                c -> accountRows.deleteFollowerRows(c, userId) + exclusions.deleteAll(c, userId, Counted.FOLLOWERS)));
        if (!cache.forget(userId)) {
            throw new IllegalStateException("Redis did not delete the keys of erased user " + userId);
        }
    }

    /** X leaves {@code followeeId}'s follower row or page directly, under the row lock, and its exclusion. */
    private void eraseFromFollowerSide(Relation relation, long followeeId, long userId, JobReport report)
            throws SQLException {
        FollowerSideRemoval side = followerSides.get(relation);
        if (side == null) {
            return; // mutes keep no follower side
        }
        boolean[] changed = new boolean[2];
        dataSources.inUserTransaction(ShardGroup.FOLLOWER, followeeId, c -> {
            changed[0] = side.remove(c, followeeId, userId);
            changed[1] = relation == Relation.FOLLOW && exclusions.include(c, followeeId, Counted.FOLLOWERS, userId);
            return null;
        });
        count(changed, report);
    }

    /**
     * X leaves {@code sourceId}'s row as the source's own unfollow, unblock or unmute would: version + 1 and an outbox
     * event, so every cache and the follower side learn it; then the relay is nudged and the source's cache updated.
     */
    private void eraseFromRow(Relation relation, long sourceId, long userId, JobReport report) throws SQLException {
        RelationEdges relationEdges = edges.get(relation);
        boolean[] changed = new boolean[2];
        RelationEdges.Edit edit = dataSources.inUserTransaction(ShardGroup.FOLLOWING, sourceId, c -> {
            RelationEdges.Edit removed = relationEdges.remove(c, sourceId, userId, () -> { });
            changed[0] = removed.changed();
            changed[1] = relation == Relation.FOLLOW && exclusions.include(c, sourceId, Counted.FOLLOWING, userId);
            return removed;
        });
        count(changed, report);
        if (changed[0]) {
            commits.committed(sourceId);
        }
        if (changed[0] && relation == Relation.FOLLOW) {
            // As a normal unfollow does; a failure is repaired by the consumer applying the event.
            cache.apply(new FollowingCache.Change(sourceId, edit.row().version(), false, userId));
        }
    }

    private static void count(boolean[] changed, JobReport report) {
        if (changed[0]) {
            report.rowChanged();
        }
        if (changed[1]) {
            report.exclusionRemoved();
        }
    }

    private boolean isProtected(long userId) throws SQLException {
        return dataSources.readUser(ShardGroup.FOLLOWING, userId, c -> states.find(c, userId)).protectedAccount();
    }

    private long[] muters(long userId) throws SQLException {
        Set<String> seen = new LinkedHashSet<>();
        LongStream.Builder all = LongStream.builder();
        for (ShardRange range : dataSources.shardMap().ranges(ShardGroup.FOLLOWING)) {
            if (!seen.add(range.jdbcUrl())) {
                continue;
            }
            DataSource database = dataSources.forRange(range);
            try (Connection c = database.getConnection()) {
                for (long id : accountRows.muters(c, userId)) {
                    all.add(id);
                }
            }
        }
        long[] ids = all.build().distinct().toArray();
        Arrays.sort(ids);
        return ids;
    }
}
