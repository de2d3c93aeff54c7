package dev.socialgraph.reconciler.scan;

/** Lifecycle of a full scan. */
public enum ScanState {
    /** Running, or interrupted by a restart (resumed at start-up). */
    RUNNING,
    /** Stopped on request; its progress is kept. */
    CANCELLED,
    /** Every page was scanned. */
    COMPLETED,
    /** Stopped by an error, named in the status. */
    FAILED
}
