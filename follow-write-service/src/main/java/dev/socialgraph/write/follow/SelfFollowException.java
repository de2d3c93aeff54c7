package dev.socialgraph.write.follow;

/**
 * A user tried to follow or unfollow themselves (DESIGN.md 3 step 1), or to answer a follow request of their own;
 * nothing was written. Answered 400 naming {@link #field()}.
 */
public final class SelfFollowException extends RuntimeException {

    private final String field;

    SelfFollowException(long userId) {
        this(userId, "followeeId", "followerId");
    }

    /**
     * @param field the request field that names the user a second time
     * @param other the request field it repeats
     */
    SelfFollowException(long userId, String field, String other) {
        super(field + " must differ from " + other + ", both are " + userId);
        this.field = field;
    }

    /**
     * The request field that names the user a second time.
     *
     * @return {@code followeeId} for a follow or unfollow, {@code requesterId} for an answer to a request
     */
    public String field() {
        return field;
    }
}
