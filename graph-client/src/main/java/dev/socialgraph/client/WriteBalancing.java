package dev.socialgraph.client;

/**
 * How {@link FollowCheckClient} spreads writes over the write instances ({@link FollowCheckClient.Builder#writeInstance}).
 * The write service is not shard-affine: every instance writes every user (the shard map routes the transaction), so
 * the choice is only about load and fail-over. Either way a connection failure, a timeout or 503 moves the write to
 * the next instance in the list, up to {@link FollowCheckClient.Builder#maxAttempts} attempts.
 */
public enum WriteBalancing {

    /** Each write starts at the next instance in turn (a counter shared by all threads), spreading the load evenly. */
    ROUND_ROBIN,

    /**
     * Every write starts at the first instance, the next ones only take over when it fails: for a primary and its
     * stand-by, or to keep one keep-alive pool warm.
     */
    FIRST_AVAILABLE
}
