package dev.socialgraph.cdc.cache;

/**
 * Some events' cached sets could neither be updated nor dropped; the events must not be acknowledged, so that
 * their batch is retried (the follower side of a retried batch is a no-op).
 */
public final class CacheUpdateException extends RuntimeException {

    CacheUpdateException(String message, Throwable cause) {
        super(message, cause);
    }
}
