package dev.socialgraph.reconciler.repair;

/**
 * Kinds of disagreement the reconciler finds. The first four are between a follower side and its following side (the
 * source of truth), for follows (follower rows) and blocks alike (blocked-by rows: "follower" is the blocker);
 * {@link #FOLLOW_UNDER_BLOCK} breaks the rule between the two relations.
 */
public enum Divergence {
    /** A following edge has no entry on the follower side (or only one at another time). */
    MISSING_FOLLOWER("missing_follower"),
    /** A follower entry has no following edge with its time. */
    STALE_FOLLOWER("stale_follower"),
    /** {@code follower_count} differs from the number of follower entries. */
    WRONG_COUNT("wrong_count"),
    /** A follower id appears more than once in a row and its celebrity pages. */
    DUPLICATE("duplicate"),
    /**
     * A follow between two users, either way, while a settled block stands between them; counted per follow
     * removed.
     */
    FOLLOW_UNDER_BLOCK("follow_under_block");

    private final String tag;

    Divergence(String tag) {
        this.tag = tag;
    }

    /** The metric tag and JSON name, e.g. {@code missing_follower}. */
    public String tag() {
        return tag;
    }
}
