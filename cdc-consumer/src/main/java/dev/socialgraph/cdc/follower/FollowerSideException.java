package dev.socialgraph.cdc.follower;

/**
 * Some followees of a batch could not be applied (database down, transaction failed); the batch must be retried
 * and its offsets not committed. The first failure is the cause, later ones are suppressed.
 */
public final class FollowerSideException extends RuntimeException {

    FollowerSideException(String message, Throwable cause) {
        super(message, cause);
    }
}
