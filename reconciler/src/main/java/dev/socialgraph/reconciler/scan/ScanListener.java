package dev.socialgraph.reconciler.scan;

import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.FollowingRow;
import java.util.List;

/**
 * Extension point: sees every following row a full scan reads (phase {@link ScanPhase#FOLLOWING}), after the
 * shard-range filter. The bloom snapshot rebuild (DESIGN.md 5 step 1) is meant to plug in here as a Spring bean,
 * so a snapshot and a reconciliation share one pass over the following group; its format is defined elsewhere.
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
