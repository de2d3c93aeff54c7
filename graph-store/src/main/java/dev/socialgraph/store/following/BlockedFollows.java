package dev.socialgraph.store.following;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * Removes the follows a block forbids: the one way both the event consumer (when a block's event arrives) and the
 * reconciler (when a scan finds a follow under a block) do it. When A blocks B, the block's own transaction removes
 * A's follow of B; B's follow of A lives on B's following shard, often another database, and is removed here, as an
 * unfollow with its outbox row ({@link RelationEdges}), so the follower side, the caches and the check service
 * learn of it through the stream like any unfollow. A's follow of B is checked here too: the reconciler may find one
 * written around the write path. A pending follow request either way goes the same way, after the follow in the same
 * transaction, as an {@code unrequest} (docs/decisions/0064-follow-requests.md).
 *
 * <p>Which follow is removed, in a transaction that locks the follower's following row: one created no later than
 * the block (the block removes it, and a later unblock restores nothing, even when the unblock came first), and any
 * follow while the block still stands, read from the blocker's row after taking the lock. A follow of A by B reads
 * A's block row before and after its own commit ({@code FollowService} of the write service): either a read comes
 * after the block committed (and the follow is refused or undone), or the follow committed before this transaction
 * took the lock (and is removed here). A follow created after the block by a user no longer blocked stays.
 * Idempotent. Stateless and thread-safe.
 */
public final class BlockedFollows {

    private final ShardDataSources dataSources;
    private final RelationEdges follows;
    private final RelationEdges requests;
    private final FollowingRepository blocks = new FollowingRepository(Relation.BLOCK);

    /**
     * @param dataSources the shard databases
     * @param following   follows' rows
     * @param outbox      where the removals are appended
     */
    public BlockedFollows(ShardDataSources dataSources, FollowingRepository following, OutboxRepository outbox) {
        this.dataSources = dataSources;
        this.follows = new RelationEdges(following, outbox);
        this.requests = new RelationEdges(new FollowingRepository(Relation.REQUEST), outbox);
    }

    /**
     * Removes the follows (and pending follow requests) between {@code blockerId} and {@code blockedId} that their
     * block forbids, each direction in its own transaction on its follower's database.
     *
     * @param blockerId positive user id
     * @param blockedId positive user id
     * @param blockedAt epoch ms the block was created
     * @return how many follows were removed, 0..2
     * @throws SQLException as the database reported it; nothing of the failed direction was committed
     */
    public int enforce(long blockerId, long blockedId, long blockedAt) throws SQLException {
        int removed = remove(blockedId, blockerId, blockerId, blockedId, blockedAt) ? 1 : 0;
        return removed + (remove(blockerId, blockedId, blockerId, blockedId, blockedAt) ? 1 : 0);
    }

    private boolean remove(long followerId, long followeeId, long blockerId, long blockedId, long blockedAt)
            throws SQLException {
        return dataSources.inUserTransaction(ShardGroup.FOLLOWING, followerId, c -> {
            boolean removed = forbidden(c, follows, followerId, followeeId, blockerId, blockedId, blockedAt);
            forbidden(c, requests, followerId, followeeId, blockerId, blockedId, blockedAt); // after the follow's lock
            return removed;
        });
    }

    /** Removes {@code sourceId}'s edge of {@code edges}' relation to {@code targetId} if the block forbids it. */
    private boolean forbidden(Connection c, RelationEdges edges, long sourceId, long targetId, long blockerId,
                              long blockedId, long blockedAt) throws SQLException {
        FollowingRow row = edges.rows().lock(c, sourceId).orElse(null);
        int at = row == null ? -1 : Arrays.binarySearch(row.followingIds(), targetId);
        if (at < 0) {
            return false;
        }
        if (row.followedAt()[at] > blockedAt && !stillBlocks(c, sourceId, blockerId, blockedId)) {
            return false; // followed (or asked) again after an unblock
        }
        return edges.remove(c, row, targetId).changed();
    }

    /** Reads the block on the blocker's database: the connection in hand when it is the same one. */
    private boolean stillBlocks(Connection inHand, long inHandUser, long blockerId, long blockedId)
            throws SQLException {
        if (dataSources.forUser(ShardGroup.FOLLOWING, blockerId)
                == dataSources.forUser(ShardGroup.FOLLOWING, inHandUser)) {
            return blocks.contains(inHand, blockerId, blockedId);
        }
        return dataSources.readUser(ShardGroup.FOLLOWING, blockerId, c -> blocks.contains(c, blockerId, blockedId));
    }
}
