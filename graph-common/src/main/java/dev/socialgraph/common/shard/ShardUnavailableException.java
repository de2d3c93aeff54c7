package dev.socialgraph.common.shard;

/**
 * The shard database that holds a user's rows cannot be used now (connection refused or closed, pool timeout, server
 * shutting down or read-only, statement cancelled by a timeout: what graph-store's {@code SqlErrors} classifies as
 * unavailable). Nothing is known to have been written. Every service answers it the same way, 503 problem+json with
 * {@code Retry-After}, for the users routed to that database only (DESIGN.md 7).
 */
public final class ShardUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message which database, for whose user, e.g. {@code following database graph_following_0 is unavailable}
     * @param cause   the driver's or the pool's exception
     */
    public ShardUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
