package dev.socialgraph.common.relation;

/**
 * The kinds of directed edge between two users the graph keeps: follows, blocks, mutes and follow requests. They share
 * one storage
 * layout (DESIGN.md 2.2): a row of sorted target ids per source user on the source's shard, the reverse side kept by
 * the event consumer, one outbox and one event stream. {@link #code()} is the {@code relation} column of the
 * shard tables.
 *
 * <p>Rules that differ per relation live here so that every service reads them from one place: how many targets a
 * user may have ({@link #cap()}; FlockDB and Twitter cap follows, blocks and mutes get a larger cap because
 * moderation lists grow from spam waves, and pending requests a smaller one), and whether the consumer keeps the
 * reverse side ({@link #keepsReverse()}: followers for follows, blocked-by for blocks, incoming requests for requests;
 * a mute is private to the muter and has none).
 */
public enum Relation {
    /** Source follows target. */
    FOLLOW(0, "follow", 10_000, true),
    /** Source blocks target: no follow may exist between them either way while it stands. */
    BLOCK(1, "block", 50_000, true),
    /** Source mutes target: the target's posts are hidden from the source only; follows are untouched. */
    MUTE(2, "mute", 50_000, false),
    /**
     * Source asked to follow target, a protected account, and target has not answered: no follow, and no read of
     * follows sees it (docs/decisions/0064-follow-requests.md). The reverse side is target's incoming requests.
     */
    REQUEST(3, "request", 5_000, true);

    private final short code;
    private final String wireName;
    private final int cap;
    private final boolean keepsReverse;

    Relation(int code, String wireName, int cap, boolean keepsReverse) {
        this.code = (short) code;
        this.wireName = wireName;
        this.cap = cap;
        this.keepsReverse = keepsReverse;
    }

    /**
     * The value of the shard tables' {@code relation} column.
     *
     * @return 0 for follows (the column's default, so rows written before relations existed are follows), 1, 2, 3
     */
    public short code() {
        return code;
    }

    /**
     * The relation's name in events and APIs.
     *
     * @return {@code "follow"}, {@code "block"}, {@code "mute"} or {@code "request"}
     */
    public String wireName() {
        return wireName;
    }

    /**
     * The most targets one user may have in this relation; the shard schema enforces the same numbers.
     *
     * @return 10,000 for follows, 50,000 for blocks and mutes, 5,000 for pending requests
     */
    public int cap() {
        return cap;
    }

    /**
     * Whether the event consumer keeps the reverse side (followers of a followee, blockers of a blocked user,
     * requesters of a protected account).
     *
     * @return {@code true} for follows, blocks and requests, {@code false} for mutes
     */
    public boolean keepsReverse() {
        return keepsReverse;
    }

    /**
     * The relation stored under a {@code relation} column value.
     *
     * @param code 0, 1, 2 or 3
     * @return the relation
     * @throws IllegalArgumentException for any other value
     */
    public static Relation ofCode(int code) {
        for (Relation relation : values()) {
            if (relation.code == code) {
                return relation;
            }
        }
        throw new IllegalArgumentException("unknown relation code " + code);
    }
}
