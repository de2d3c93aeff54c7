package dev.socialgraph.reconciler.scan;

/**
 * Where a full scan is. The phases run in declaration order: follows, then blocks, each the following side first.
 * Persisted in lower case ({@code reconciler_scan.phase}).
 */
public enum ScanPhase {
    /** Walking follow rows (follower-id order): finds missing follower entries. */
    FOLLOWING,
    /** Walking follower rows (followee-id order): finds stale entries, duplicates and wrong counts. */
    FOLLOWER,
    /**
     * Walking block rows (blocker-id order): finds missing blocked-by entries, and follows either way between a
     * blocker and the users it blocks.
     */
    BLOCKING,
    /** Walking blocked-by rows (blocked-id order): finds stale entries, duplicates and wrong counts. */
    BLOCKED_BY,
    /** Nothing left to scan. */
    DONE
}
