package dev.socialgraph.loadgen;

/**
 * One request of a workload, independent of the system that answers it.
 *
 * @param kind  what is asked
 * @param user  the acting or viewed user: the follower of a check or write, the owner of a list or counts
 * @param other the followee of a check or write; 0 for lists and counts
 * @param ids   the candidate followees of a batch check; empty otherwise
 */
record Operation(Kind kind, long user, long other, long[] ids) {

    private static final long[] NONE = new long[0];

    static Operation of(Kind kind, long user, long other) {
        return new Operation(kind, user, other, NONE);
    }

    /** The request kinds; every target maps them onto its own API or queries. */
    enum Kind {
        /** Does {@code user} follow {@code other}? */
        CHECK(false),
        /** Which of {@code ids} does {@code user} follow? */
        BATCH_CHECK(false),
        /** The first page (50, newest first where the target can) of whom {@code user} follows. */
        FOLLOWING_PAGE(false),
        /** The first page (50, newest first) of {@code user}'s followers. */
        FOLLOWERS_PAGE(false),
        /** {@code user}'s follower and following counts. */
        COUNTS(false),
        /** {@code user} follows {@code other}. */
        FOLLOW(true),
        /** {@code user} unfollows {@code other}. */
        UNFOLLOW(true),
        /** Which of {@code ids} does {@code user} block, is blocked by, or mute? (the feed's hidden-authors check) */
        HIDDEN(false),
        /** {@code user} blocks {@code other}. */
        BLOCK(true),
        /** {@code user} unblocks {@code other}. */
        UNBLOCK(true);

        private final boolean write;

        Kind(boolean write) {
            this.write = write;
        }

        boolean isWrite() {
            return write;
        }

        /** Whether the request is the user's own: through the gateway it is sent with the user's token. */
        boolean actsAsUser() {
            return write || this == HIDDEN;
        }
    }
}
