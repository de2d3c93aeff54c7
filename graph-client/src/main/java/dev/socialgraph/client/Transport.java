package dev.socialgraph.client;

/**
 * Where the resources' requests go: {@link HttpTransport} over HTTP, or a plain fake in a test. Each call is one
 * whole call of the caller, with every attempt and fail-over it takes, and answers the body of a 2xx answer.
 */
interface Transport {

    /**
     * Sends a read about {@code user} to the check instance that owns the user's logical shard, then to the next ones
     * in rendezvous order as the retry policy allows.
     *
     * @param user    the user whose shard chooses the instance, positive (checked by the caller)
     * @param request the request
     * @return the body of the 2xx answer
     * @throws GraphClientException  when no instance answered, or one refused the request
     * @throws IllegalStateException when there is no check instance
     */
    byte[] read(long user, Request request);

    /**
     * Sends a read that concerns no user (the change stream's, which every check instance serves alike) to a check
     * instance, each call starting at the next one in turn, then to the following ones as the retry policy allows.
     *
     * @param request the request
     * @return the body of the 2xx answer
     * @throws GraphClientException  when no instance answered, or one refused the request
     * @throws IllegalStateException when there is no check instance
     */
    byte[] readAny(Request request);

    /**
     * Sends a write (or an account operation) to a write instance, then to the next ones as the retry policy allows.
     *
     * @param request the request
     * @return the body of the 2xx answer
     * @throws GraphClientException  when no write instance answered, or one refused the request
     * @throws IllegalStateException when there is no write instance
     */
    byte[] write(Request request);
}
