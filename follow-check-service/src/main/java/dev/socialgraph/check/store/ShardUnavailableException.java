package dev.socialgraph.check.store;

/**
 * The shard database that holds a user's row cannot be reached (connection refused, pool timeout, server
 * shutting down): the web layer answers 503 for that user only (DESIGN.md 7).
 */
public final class ShardUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    ShardUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
