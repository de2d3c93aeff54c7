package dev.socialgraph.write.follow;

/** A user tried to follow or unfollow themselves (DESIGN.md 3 step 1); nothing was written. */
public final class SelfFollowException extends RuntimeException {

    SelfFollowException(long userId) {
        super("followeeId must differ from followerId, both are " + userId);
    }
}
