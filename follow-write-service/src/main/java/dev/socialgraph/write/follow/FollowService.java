package dev.socialgraph.write.follow;

import dev.socialgraph.cache.FollowingCache;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.account.AccountStateRepository;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.following.RelationEdges;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.write.WriteProperties;
import dev.socialgraph.write.outbox.OutboxCommits;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Arrays;
import org.springframework.stereotype.Service;

/**
 * Follow and unfollow (DESIGN.md 3): the write-through on the follower's following shard, then the cache.
 *
 * <p>Each change is one transaction on the database the shard map names for the follower: lock the
 * following row, insert or remove the followee in the sorted arrays, write them with {@code version + 1}, and
 * append the outbox row carrying that version; commit ({@link RelationEdges}). Two writes of one follower serialize
 * on the row lock, so versions and outbox ids follow commit order per follower. A repeat (already following, not
 * following) writes nothing, appends no outbox row and returns the current state.
 *
 * <p>Blocks stop follows both ways (docs/decisions/0029-blocks-and-mutes.md). A follower who blocks the followee is
 * refused under the row lock ({@link BlockingException}): a block takes the same lock, so the two serialize. A
 * followee who blocks the follower lives on another database: it is read before the transaction (refused with
 * {@link BlockedException}) and read again after the commit; a block that committed in between makes this call undo
 * its own follow and refuse. A block committed after that second read is the consumer's to enforce: its event
 * reaches the consumer after the follow committed, so the consumer sees the follow and removes it.
 *
 * <p>After the commit of a change the relay of the follower's database is nudged ({@link OutboxCommits}), so the
 * event goes to Kafka now rather than after the relay's poll interval.
 *
 * <p>After the commit the change is applied to Redis {@code following:{followerId}}; a Redis failure is counted
 * ({@code graph.write.cache.apply{result=failed}}) and does not fail the write, which is already durable: the
 * consumer applies the same change from the event stream.
 *
 * <p>A follow or unfollow by or of a deactivated or erased user is refused ({@link UserInactiveException},
 * docs/account-lifecycle.md): the followee's state is read on its shard before the transaction (for a follow in the
 * same statement as its block), the follower's inside the transaction after the row lock, which a state change takes
 * too.
 *
 * <p>Thread-safe.
 */
@Service
public class FollowService {

    private final FollowingShards shards;
    private final RelationEdges follows;
    private final FollowingRepository blocks = new FollowingRepository(Relation.BLOCK);
    private final RelationEdges requests;
    private final FollowingCache cache;
    private final WriteMetrics metrics;
    private final Clock clock;
    private final int followingCap;
    private final OutboxCommits commits;

    FollowService(FollowingShards shards, FollowingRepository following, OutboxRepository outbox,
                  FollowingCache cache, WriteMetrics metrics, Clock clock, WriteProperties properties,
                  OutboxCommits commits) {
        this.shards = shards;
        this.follows = new RelationEdges(following, outbox);
        this.requests = new RelationEdges(new FollowingRepository(Relation.REQUEST), outbox);
        this.commits = commits;
        this.cache = cache;
        this.metrics = metrics;
        this.clock = clock;
        this.followingCap = properties.followingCap();
    }

    /**
     * {@code followerId} follows {@code followeeId}. Idempotent: following already leaves the original
     * {@code followedAt} and writes nothing. Of a protected account not followed yet, the follow is a follow request
     * instead ({@link FollowResult#requested()}; docs/decisions/0064-follow-requests.md), written in the follower's
     * row of pending requests after its following row's lock, with a {@code request} event; asking again leaves the
     * original {@code requestedAt}. A protection that commits while this call runs may let one follow through: the
     * protection is read before the follower's transaction, as the followee's state and blocks are.
     *
     * @param followerId the actor, positive
     * @param followeeId the user to follow, positive
     * @return the edge's state after the call
     * @throws SelfFollowException        if the ids are equal
     * @throws BlockingException          if the follower blocks the followee
     * @throws BlockedException           if the followee blocks the follower
     * @throws UserInactiveException      if the follower or the followee is deactivated or erased
     * @throws FollowingLimitException    if the follower already follows {@code graph.write.following-cap} users
     * @throws RelationLimitException     if the follower already has 5,000 pending requests and the followee is
     *                                    protected
     * @throws ShardUnavailableException  if the follower's or the followee's following database cannot be reached
     */
    public FollowResult follow(long followerId, long followeeId) {
        requireDistinct(followerId, followeeId);
        AccountStateRepository.TargetState followee = shards.followee(followeeId, followerId);
        if (!followee.state().isActive()) {
            throw new UserInactiveException(followeeId, "followeeId");
        }
        if (followee.blocks()) {
            refuseBlocked(followerId, followeeId);
        }
        FollowResult result;
        try {
            result = shards.inTransaction(followerId, connection -> {
                FollowingRow row = follows.rows().lockOrCreate(connection, followerId);
                shards.requireActive(connection, followerId, "followerId");
                int at = Arrays.binarySearch(row.followingIds(), followeeId);
                if (at >= 0) {
                    return FollowResult.edge(followerId, followeeId, true, row.followedAt()[at], row.version(),
                            false);
                }
                if (blocks.contains(connection, followerId, followeeId)) {
                    throw new BlockingException(followerId, followeeId);
                }
                if (followee.protectedAccount()) {
                    return request(connection, row, followeeId);
                }
                if (row.followingCount() >= followingCap) {
                    throw new FollowingLimitException(followingCap, row.followingCount());
                }
                return result(followerId, followeeId, follows.add(connection, row, followeeId, clock.millis()));
            });
        } catch (BlockingException | FollowingLimitException | RelationLimitException e) {
            metrics.rejected();
            throw e;
        }
        afterCommit(result);
        if (result.changed() && shards.blocks(followeeId, followerId)) {
            refuseBlocked(followerId, followeeId); // the followee blocked while this follow was being written
        }
        return result;
    }

    /**
     * {@code followerId} stops following {@code followeeId}. Idempotent: not following writes nothing. The outbox
     * row carries the removed edge's {@code followedAt} (docs/decisions/0003-events.md).
     *
     * @param followerId the actor, positive
     * @param followeeId the user to unfollow, positive
     * @return the edge's state after the call ({@code following == false}, {@code followedAt == null})
     * @throws SelfFollowException       if the ids are equal
     * @throws UserInactiveException     if the follower or the followee is deactivated or erased
     * @throws ShardUnavailableException if the follower's database cannot be reached
     */
    public FollowResult unfollow(long followerId, long followeeId) {
        requireDistinct(followerId, followeeId);
        shards.requireActiveTarget(followeeId, "followeeId");
        Withdrawal removed = shards.inTransaction(followerId, connection -> {
            RelationEdges.Edit follow = follows.remove(connection, followerId, followeeId,
                    () -> shards.requireActive(connection, followerId, "followerId"));
            return new Withdrawal(follow, requests.remove(connection, followerId, followeeId, () -> { }));
        });
        FollowResult result = FollowResult.edge(followerId, followeeId, false, null, removed.follow().row().version(),
                removed.follow().changed() || removed.request().changed());
        if (removed.request().changed() && !removed.follow().changed()) {
            requestEnded(followerId); // a withdrawn request: no follow changed
            return result;
        }
        if (removed.request().changed()) {
            metrics.request(false, true);
        }
        afterCommit(result);
        return result;
    }

    /** What an unfollow's transaction removed: the follow, and a pending request of the same followee. */
    private record Withdrawal(RelationEdges.Edit follow, RelationEdges.Edit request) {
    }

    /**
     * {@code protectedId} accepts {@code requesterId}'s follow request: in one transaction on the requester's following
     * shard the request ends ({@code unrequest} event) and the follow begins at this moment ({@code follow} event), so
     * the follower side, counts and caches learn it as any follow. Idempotent: accepting a request already accepted
     * (the requester follows) writes nothing and answers the follow.
     *
     * @param protectedId the account asked, positive (the caller)
     * @param requesterId the requester, positive
     * @return the follow's state after the call ({@code following} true)
     * @throws SelfFollowException        if the ids are equal
     * @throws RequestNotFoundException   if no request of {@code requesterId} to {@code protectedId} is pending and
     *                                    no follow exists
     * @throws UserInactiveException      if either user is deactivated or erased
     * @throws BlockingException          if {@code protectedId} blocks the requester: the request ends, no follow
     *                                    begins
     * @throws FollowingLimitException    if the requester already follows {@code graph.write.following-cap} users
     * @throws ShardUnavailableException  if either user's following database cannot be reached
     */
    public FollowResult accept(long protectedId, long requesterId) {
        requireDistinctRequester(protectedId, requesterId);
        AccountStateRepository.TargetState account = shards.followee(protectedId, requesterId);
        if (!account.state().isActive()) {
            throw new UserInactiveException(protectedId, "userId");
        }
        if (account.blocks()) {
            // The block's event ends this request where it arrives; a request it has not reached yet ends here.
            decline(protectedId, requesterId);
            metrics.rejected();
            throw new BlockingException(protectedId, requesterId);
        }
        Acceptance accepted;
        try {
            accepted = shards.inTransaction(requesterId, connection -> {
                FollowingRow row = follows.rows().lockOrCreate(connection, requesterId);
                shards.requireActive(connection, requesterId, "requesterId");
                RelationEdges.Edit request = requests.remove(connection, requesterId, protectedId, () -> { });
                int at = Arrays.binarySearch(row.followingIds(), protectedId);
                if (at >= 0) { // accepted before; a request left from a public spell of the account ends too
                    return new Acceptance(FollowResult.edge(requesterId, protectedId, true, row.followedAt()[at],
                            row.version(), request.changed()), false);
                }
                if (!request.changed()) {
                    throw new RequestNotFoundException(requesterId, protectedId);
                }
                if (row.followingCount() >= followingCap) {
                    throw new FollowingLimitException(followingCap, row.followingCount());
                }
                return new Acceptance(result(requesterId, protectedId,
                        follows.add(connection, row, protectedId, clock.millis())), true);
            });
        } catch (RequestNotFoundException | FollowingLimitException e) {
            metrics.rejected();
            throw e;
        }
        FollowResult result = accepted.result();
        if (accepted.followBegan()) {
            metrics.request(false, true);
            afterCommit(result);
        } else if (result.changed()) {
            requestEnded(requesterId); // the follow was there: only the stale request ended
        } else {
            metrics.result(result);
        }
        return result;
    }

    /** What an acceptance's transaction did: its answer, and whether the follow began in it. */
    private record Acceptance(FollowResult result, boolean followBegan) {
    }

    /**
     * {@code protectedId} declines {@code requesterId}'s follow request: it ends ({@code unrequest} event) and no
     * follow begins. Idempotent: declining what is not pending writes nothing.
     *
     * @param protectedId the account asked, positive (the caller)
     * @param requesterId the requester, positive
     * @return the state after the call ({@code following} as it is, {@code requested} false)
     * @throws SelfFollowException       if the ids are equal
     * @throws UserInactiveException     if either user is deactivated or erased
     * @throws ShardUnavailableException if either user's following database cannot be reached
     */
    public FollowResult decline(long protectedId, long requesterId) {
        requireDistinctRequester(protectedId, requesterId);
        shards.requireActiveTarget(protectedId, "userId");
        FollowResult result = shards.inTransaction(requesterId, connection -> {
            // Locked, never created: a request's following row exists (the request was written after it), and
            // declining what is not pending writes nothing.
            FollowingRow row = follows.rows().lock(connection, requesterId).orElse(FollowingRow.empty(requesterId));
            shards.requireActive(connection, requesterId, "requesterId");
            RelationEdges.Edit removed = requests.remove(connection, requesterId, protectedId, () -> { });
            int at = Arrays.binarySearch(row.followingIds(), protectedId);
            return FollowResult.edge(requesterId, protectedId, at >= 0, at >= 0 ? row.followedAt()[at] : null,
                    row.version(), removed.changed());
        });
        if (result.changed()) {
            requestEnded(requesterId);
        } else {
            metrics.request(false, false);
        }
        return result;
    }

    /** After a transaction that ended a request and changed no follow: the relay's nudge, and the count. */
    private void requestEnded(long requesterId) {
        commits.committed(requesterId);
        metrics.request(false, true);
    }

    /**
     * Writes {@code followerId}'s request of {@code followeeId}, a protected account the follower does not follow,
     * after the following row's lock ({@code row}): a pending request stays as it was.
     */
    private FollowResult request(Connection connection, FollowingRow row, long followeeId) throws SQLException {
        long followerId = row.followerId();
        FollowingRow pending = requests.rows().lockOrCreate(connection, followerId);
        int at = Arrays.binarySearch(pending.followingIds(), followeeId);
        if (at >= 0) {
            return new FollowResult(followerId, followeeId, false, null, row.version(), false, true,
                    pending.followedAt()[at]);
        }
        if (pending.followingCount() >= Relation.REQUEST.cap()) {
            throw new RelationLimitException(Relation.REQUEST, pending.followingCount());
        }
        RelationEdges.Edit added = requests.add(connection, pending, followeeId, clock.millis());
        return new FollowResult(followerId, followeeId, false, null, row.version(), true, true, added.createdAt());
    }

    /**
     * Refuses a follow of a user who blocks the follower, and removes the follow if one exists: a follow that
     * raced the block, or one an earlier attempt committed but could not check afterwards.
     */
    private void refuseBlocked(long followerId, long followeeId) {
        unfollow(followerId, followeeId);
        metrics.rejected();
        throw new BlockedException(followerId, followeeId);
    }

    private static FollowResult result(long followerId, long followeeId, RelationEdges.Edit edit) {
        return FollowResult.edge(followerId, followeeId, edit.present(), edit.present() ? edit.createdAt() : null,
                edit.row().version(), edit.changed());
    }

    private void requireDistinctRequester(long protectedId, long requesterId) {
        if (protectedId == requesterId) {
            metrics.rejected();
            throw new SelfFollowException(requesterId, "requesterId", "userId");
        }
    }

    private void requireDistinct(long followerId, long followeeId) {
        if (followerId == followeeId) {
            metrics.rejected();
            throw new SelfFollowException(followerId);
        }
    }

    private void afterCommit(FollowResult result) {
        if (result.changed()) {
            commits.committed(result.followerId()); // first: the relay publishes while the cache is updated
        }
        if (result.requested()) {
            metrics.request(result.changed(), false);
            return; // a request changes no following row: nothing for the cache
        }
        metrics.result(result);
        if (result.changed()) {
            metrics.cacheApplied(cache.apply(new FollowingCache.Change(result.followerId(), result.version(),
                    result.following(), result.followeeId())));
        }
    }
}
