package dev.socialgraph.cdc.block;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.FollowingRepository;
import dev.socialgraph.store.FollowingRow;
import dev.socialgraph.store.OutboxRepository;
import dev.socialgraph.store.RelationEdges;
import dev.socialgraph.store.ShardDataSources;
import dev.socialgraph.store.Transactions;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * The half of a block its own transaction cannot do: when A blocks B, B's follow of A lives on B's following shard,
 * often another database. For each block event this removes it there, as an unfollow with its outbox row (so the
 * follower side, the caches and the check service learn of it through the stream like any unfollow), in one
 * transaction that locks B's following row.
 *
 * <p>Which follow is removed: one created no later than the block (the block removes it, and a later unblock
 * restores nothing, even when the unblock came before this event), and any follow while the block still stands,
 * read from A's row after taking the lock. A follow of A by B reads A's block row before and after its own commit
 * ({@code FollowService}): either a read comes after the block committed (and the follow is refused or undone), or
 * the follow committed before this transaction took the lock (and is removed here). A follow created after the
 * block by a user no longer blocked stays. Replaying an event is a no-op.
 *
 * <p>Counted in {@code graph.cdc.block.removed-follows}. Thread-safe.
 */
@Component
public class BlockEnforcement {

    private final ShardDataSources dataSources;
    private final RelationEdges follows;
    private final FollowingRepository blocks = new FollowingRepository(Relation.BLOCK);
    private final Counter removed;

    /** Wires the store; {@code following} and {@code outbox} are the shared follow repositories. */
    public BlockEnforcement(ShardDataSources dataSources, FollowingRepository following, OutboxRepository outbox,
                            MeterRegistry registry) {
        this.dataSources = dataSources;
        this.follows = new RelationEdges(following, outbox);
        this.removed = Counter.builder("graph.cdc.block.removed-follows")
                .description("Follows of a blocker by the user it blocks, removed when the block's event arrived")
                .register(registry);
    }

    /**
     * Enforces every block event among {@code events}; other events are ignored.
     *
     * @param events valid events, in stream order
     * @throws SQLException when a database could not be read or written; the caller retries the events (every step
     *                      is idempotent)
     */
    public void apply(List<FollowEvent> events) throws SQLException {
        for (FollowEvent event : events) {
            if (event.type() == FollowEvent.Type.BLOCK) {
                enforce(event.followerId(), event.followeeId(), event.followedAt());
            }
        }
    }

    /**
     * Removes {@code blockedId}'s follow of {@code blockerId} when it is as old as the block or the block stands.
     *
     * @param blockedAt epoch ms the block was created (its event's {@code followedAt})
     * @return whether a follow was removed
     */
    boolean enforce(long blockerId, long blockedId, long blockedAt) throws SQLException {
        boolean changed = Transactions.inTransaction(dataSources.forUser(ShardGroup.FOLLOWING, blockedId), c -> {
            FollowingRow row = follows.rows().lock(c, blockedId).orElse(null);
            int at = row == null ? -1 : Arrays.binarySearch(row.followingIds(), blockerId);
            if (at < 0) {
                return false;
            }
            if (row.followedAt()[at] > blockedAt && !stillBlocks(blockerId, blockedId)) {
                return false; // followed again after an unblock
            }
            return follows.remove(c, row, blockerId).changed();
        });
        if (changed) {
            removed.increment();
        }
        return changed;
    }

    private boolean stillBlocks(long blockerId, long blockedId) throws SQLException {
        try (Connection c = dataSources.forUser(ShardGroup.FOLLOWING, blockerId).getConnection()) {
            return blocks.contains(c, blockerId, blockedId);
        }
    }
}
