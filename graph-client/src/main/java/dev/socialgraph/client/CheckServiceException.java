package dev.socialgraph.client;

/**
 * A follow check that got no answer: every attempt failed to connect, timed out or met HTTP 503 (the instance is
 * overloaded or not ready), or an instance refused the request (any other non-2xx status, never retried), or the
 * answer was not the check service's JSON.
 *
 * <p>Unchecked: a caller usually degrades (hides a button, skips a notification) rather than handles each cause.
 * {@link #status()} tells the cases apart when it matters.
 */
public final class CheckServiceException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** {@link #status()} when no HTTP answer came (connection failure, timeout, interruption). */
    public static final int NO_RESPONSE = 0;

    private final int status;

    CheckServiceException(int status, String message, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    /**
     * The HTTP status of the last attempt's answer: {@code 503} when the last instance tried was unavailable, a
     * {@code 4xx} when the request was refused (a bad id or batch size on the server's terms, a missing or wrong
     * service token once the services check it), {@code 200} when the body could not be read, or
     * {@link #NO_RESPONSE} when no instance answered at all.
     *
     * @return the status, or {@link #NO_RESPONSE}
     */
    public int status() {
        return status;
    }
}
