package dev.socialgraph.reconciler.admin;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/**
 * Body of {@code POST /admin/scans}: the logical shards (of the follower ids) to scan, inclusive. The upper
 * bound ({@code logicalShardCount - 1}) and {@code firstShard <= lastShard} are checked by the scan service.
 */
record StartScanRequest(@NotNull @Min(0) Integer firstShard, @NotNull @Min(0) Integer lastShard) {
}
