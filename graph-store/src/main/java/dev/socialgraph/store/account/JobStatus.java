package dev.socialgraph.store.account;

/** Where a job of {@code account_jobs} is; {@link #wireName()} is the {@code status} column and the API's. */
public enum JobStatus {

    /** Written by the state change; no worker took it yet. */
    QUEUED("queued"),
    /** A worker leased it at least once; it may be running or waiting for its lease to expire. */
    RUNNING("running"),
    /** Finished; {@code report} is set. */
    DONE("done");

    private final String wireName;

    JobStatus(String wireName) {
        this.wireName = wireName;
    }

    /** {@code queued}, {@code running} or {@code done}. */
    public String wireName() {
        return wireName;
    }

    /** The status a column value names; {@link IllegalArgumentException} for any other. */
    public static JobStatus of(String wireName) {
        for (JobStatus status : values()) {
            if (status.wireName.equals(wireName)) {
                return status;
            }
        }
        throw new IllegalArgumentException("unknown job status " + wireName);
    }
}
