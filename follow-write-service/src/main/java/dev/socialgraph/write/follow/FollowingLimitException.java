package dev.socialgraph.write.follow;

/** A follow that would take the follower past the following cap (DESIGN.md 3 step 1); nothing was written. */
public final class FollowingLimitException extends RuntimeException {

    private final int limit;
    private final int followingCount;

    FollowingLimitException(int limit, int followingCount) {
        super("following count " + followingCount + " has reached the limit of " + limit);
        this.limit = limit;
        this.followingCount = followingCount;
    }

    /**
     * The cap.
     *
     * @return the most users one user may follow
     */
    public int limit() {
        return limit;
    }

    /**
     * How many users the follower follows now.
     *
     * @return the current following count, {@code >= limit()}
     */
    public int followingCount() {
        return followingCount;
    }
}
