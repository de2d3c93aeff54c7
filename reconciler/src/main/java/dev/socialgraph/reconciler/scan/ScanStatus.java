package dev.socialgraph.reconciler.scan;

import dev.socialgraph.reconciler.repair.Divergence;
import java.time.Instant;
import java.util.Map;

/**
 * The persisted state of one full scan.
 *
 * @param id              scan id
 * @param firstShard      first logical shard scanned (following group, i.e. of the follower ids), inclusive
 * @param lastShard       last logical shard, inclusive
 * @param state           lifecycle state
 * @param phase           current phase
 * @param rangeIndex      index of the shard range within the phase's group
 * @param cursor          last row key done in that range (exclusive lower bound of the next page)
 * @param rowsScanned     shard rows read, both groups, follows and blocks
 * @param divergences     divergences found, by kind, every kind present (0 when none)
 * @param repairs         followees whose follower or blocked-by side was rewritten, and blocks whose follows were
 *                        removed
 * @param skippedInFlight follower (blocker) ids left alone because their event may be in flight
 * @param progress        fraction done, 0..1, by shard ranges walked
 * @param error           why the scan failed, else {@code null}
 * @param createdAt       when it was started
 * @param updatedAt       last checkpoint
 */
public record ScanStatus(long id, int firstShard, int lastShard, ScanState state, ScanPhase phase, int rangeIndex,
                         long cursor, long rowsScanned, Map<Divergence, Long> divergences, long repairs,
                         long skippedInFlight, double progress, String error, Instant createdAt, Instant updatedAt) {

    public ScanStatus {
        divergences = Map.copyOf(divergences);
    }
}
