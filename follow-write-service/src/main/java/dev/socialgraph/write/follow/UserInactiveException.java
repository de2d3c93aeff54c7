package dev.socialgraph.write.follow;

/**
 * A follow, unfollow, block, unblock, mute or unmute by or of a deactivated or erased user
 * (docs/account-lifecycle.md): refused, nothing written; answered 404 {@code user-inactive} naming the field.
 */
public final class UserInactiveException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long userId;
    private final String field;

    /**
     * @param userId the inactive user
     * @param field  the request field that names them ({@code followerId}, {@code followeeId}, {@code userId},
     *               {@code targetId})
     */
    public UserInactiveException(long userId, String field) {
        super(field + ": user " + userId + " is deactivated or erased");
        this.userId = userId;
        this.field = field;
    }

    /** The inactive user. */
    public long userId() {
        return userId;
    }

    /** The request field that names them. */
    public String field() {
        return field;
    }
}
