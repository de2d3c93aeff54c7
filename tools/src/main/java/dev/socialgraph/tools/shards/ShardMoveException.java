package dev.socialgraph.tools.shards;

/**
 * A shard move stopped before it switched the shard map, or a request that cannot be carried out; the message says
 * which step and what to do. Whatever the move did before is safe to leave (rows copied into a database the map does
 * not route the range to) and a new run with the same arguments starts over (docs/shard-moves.md, "Failures").
 */
public final class ShardMoveException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param message what stopped the move and what to do */
    public ShardMoveException(String message) {
        super(message);
    }

    /**
     * @param message what stopped the move and what to do
     * @param cause   the database error behind it
     */
    public ShardMoveException(String message, Throwable cause) {
        super(message, cause);
    }
}
