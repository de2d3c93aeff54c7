package dev.socialgraph.reconciler.scan;

/** Where a full scan is. */
public enum ScanPhase {
    /** Walking following rows (follower-id order): finds missing follower entries. */
    FOLLOWING,
    /** Walking follower rows (followee-id order): finds stale entries, duplicates and wrong counts. */
    FOLLOWER,
    /** Nothing left to scan. */
    DONE
}
