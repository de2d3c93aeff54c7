package dev.socialgraph.reconciler.repair;

/** Kinds of disagreement between the follower side and the following side (the source of truth). */
public enum Divergence {
    /** A following edge has no entry on the follower side (or only one at another time). */
    MISSING_FOLLOWER("missing_follower"),
    /** A follower entry has no following edge with its time. */
    STALE_FOLLOWER("stale_follower"),
    /** {@code follower_count} differs from the number of follower entries. */
    WRONG_COUNT("wrong_count"),
    /** A follower id appears more than once in a row and its celebrity pages. */
    DUPLICATE("duplicate");

    private final String tag;

    Divergence(String tag) {
        this.tag = tag;
    }

    /** The metric tag and JSON name, e.g. {@code missing_follower}. */
    public String tag() {
        return tag;
    }
}
