package dev.socialgraph.reconciler.scan;

import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.following.FollowingRow;
import java.util.List;

/**
 * Extension point: sees every follow row a full scan reads (phase {@link ScanPhase#FOLLOWING}; not the block rows of
 * {@link ScanPhase#BLOCKING}), after the shard-range filter. Bloom snapshots do not use it: {@code reconciler.bloom.SnapshotBuilder} makes its own
 * unthrottled pass, because a snapshot needs the Kafka offsets read right before one uninterrupted scan, and a
 * reconciliation is rate-limited and resumes across restarts (see the README).
 *
 * <p>Delivery is at least once: a page interrupted before its checkpoint is read again on resume. Called on the
 * scan's thread; keep it fast (the scan's rate limit includes it).
 */
public interface ScanListener {

    /**
     * One page of following rows.
     *
     * @param range the following range (physical database) the rows come from
     * @param rows  rows in follower-id order, all within the scan's logical shards
     */
    void onFollowingRows(ShardRange range, List<FollowingRow> rows);
}
