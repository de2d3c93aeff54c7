package dev.socialgraph.store.account;

/** What a job of {@code account_jobs} carries out; {@link #wireName()} is the {@code kind} column and the API's. */
public enum JobKind {

    /** Hide the user's follows from other users' counts. */
    DEACTIVATE("deactivate"),
    /** Undo what a deactivation did to other users' counts. */
    REACTIVATE("reactivate"),
    /** Delete every row that names the user. */
    ERASE("erase"),
    /**
     * Accept every follow request pending when the account was made public again (docs/decisions/0064-follow-requests.md).
     */
    ACCEPT_REQUESTS("accept-requests");

    private final String wireName;

    JobKind(String wireName) {
        this.wireName = wireName;
    }

    /** {@code deactivate}, {@code reactivate}, {@code erase} or {@code accept-requests}. */
    public String wireName() {
        return wireName;
    }

    /** The kind a column value names; {@link IllegalArgumentException} for any other. */
    public static JobKind of(String wireName) {
        for (JobKind kind : values()) {
            if (kind.wireName.equals(wireName)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown job kind " + wireName);
    }
}
