package dev.socialgraph.loadgen;

/**
 * One request of a workload, independent of the system that answers it.
 *
 * @param kind   what is asked
 * @param user   the acting or viewed user: the follower of a check or write, the owner of a list or counts
 * @param other the followee of a check or write, the second user of a common-following list; 0 for lists and counts
 * @param ids    the candidate followees of a batch check; empty otherwise
 * @param limit  a list's page size, 1..1000; 0 for none sent (the API's default, 50)
 * @param cursor the {@code nextCursor} of the list's previous page; {@code null} for the first page
 */
record Operation(Kind kind, long user, long other, long[] ids, int limit, String cursor) {

    private static final long[] NONE = new long[0];

    Operation {
        if (limit < 0 || limit > 1000) {
            throw new IllegalArgumentException("a page size is 1..1000 (0: the default), was " + limit);
        }
    }

    /** An operation with ids and no page size or cursor. */
    Operation(Kind kind, long user, long other, long[] ids) {
        this(kind, user, other, ids, 0, null);
    }

    static Operation of(Kind kind, long user, long other) {
        return new Operation(kind, user, other, NONE);
    }

    /** A first page of {@code limit} items (0: the default) of a list of {@code user} (and {@code other}). */
    static Operation page(Kind kind, long user, long other, int limit) {
        return new Operation(kind, user, other, NONE, limit, null);
    }

    /** The page after the one that answered {@code cursor}, of the same list and size as this one. */
    Operation withCursor(String cursor) {
        return new Operation(kind, user, other, ids, limit, cursor);
    }

    /** The request kinds; every target maps them onto its own API or queries. */
    enum Kind {
        /** Does {@code user} follow {@code other}? */
        CHECK(false),
        /** Which of {@code ids} does {@code user} follow? */
        BATCH_CHECK(false),
        /** A page ({@code limit}, else 50; newest first where the target can) of whom {@code user} follows. */
        FOLLOWING_PAGE(false),
        /** A page ({@code limit}, else 50; newest first) of {@code user}'s followers. */
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
        UNBLOCK(true),
        /** A page ({@code limit}, else 50; ascending by id) of the users both {@code user} and {@code other} follow. */
        COMMON_FOLLOWING(false);

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
