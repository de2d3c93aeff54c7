package dev.socialgraph.client;

import dev.socialgraph.common.problem.ProblemType;
import java.time.Duration;
import java.util.Optional;

/**
 * A call of {@link FollowCheckClient} that got no usable answer, with what the service said about it: the HTTP
 * {@link #status()}, the RFC 9457 problem {@link #type()} ({@code https://socialgraph.dev/problems/<slug>}, see
 * {@link ProblemType}), the bad input's name ({@link #parameter()}, the problem's {@code parameter} member) and
 * {@code Retry-After} ({@link #retryAfter()}).
 *
 * <p>Subclasses sort the cases a caller acts on differently:
 * <ul>
 *   <li>{@link RequestRejectedException}: a 4xx other than 429, the caller's request is wrong (a bad id, a follow the
 *       target's block forbids, a cap reached, a missing service token); retrying the same request does not help;</li>
 *   <li>{@link RateLimitedException}: 429, try again after {@link #retryAfter()};</li>
 *   <li>{@link UnavailableException}: 503, or no answer at all ({@link #NO_RESPONSE}): every attempt failed to
 *       connect, timed out or met an unavailable instance or shard database;</li>
 *   <li>this class itself: any other status (500, 502, 504, an unexpected 3xx) or a 2xx answer that was not the
 *       service's JSON.</li>
 * </ul>
 *
 * <p>The type comes from the problem body when it names one of {@link ProblemType}'s URIs; an answer without a
 * body, with {@code about:blank} or with a type outside the vocabulary gets {@link ProblemType#forStatus} of its
 * status, so {@link #type()} never depends on the service sending types. Unchecked: a caller usually degrades
 * (hides a button, skips a notification) rather than handles each cause.
 */
public sealed class GraphClientException extends RuntimeException
        permits RequestRejectedException, RateLimitedException, UnavailableException {

    private static final long serialVersionUID = 1L;

    /** {@link #status()} when no HTTP answer came (connection failure, timeout, interruption). */
    public static final int NO_RESPONSE = 0;

    private final int status;
    private final ProblemType type;
    private final String parameter;
    private final Duration retryAfter;

    GraphClientException(int status, ProblemType type, String parameter, Duration retryAfter, String message,
                         Throwable cause) {
        super(message, cause);
        this.status = status;
        this.type = type;
        this.parameter = parameter;
        this.retryAfter = retryAfter;
    }

    /**
     * The HTTP status of the last attempt's answer: a 4xx when the request was refused, 429 when rate limited, 503
     * when the last instance tried (or the user's shard database behind it) was unavailable, {@code 200} when a
     * successful answer could not be read, or {@link #NO_RESPONSE} when no instance answered at all.
     *
     * @return the status, or {@link #NO_RESPONSE}
     */
    public int status() {
        return status;
    }

    /**
     * What happened, from the problem body's {@code type}, else the status' default type
     * ({@link ProblemType#forStatus}); {@link ProblemType#SERVICE_UNAVAILABLE} when no instance answered,
     * {@link ProblemType#INTERNAL_ERROR} for an unreadable answer or a status outside 400..599.
     *
     * @return the problem type, never {@code null}
     */
    public ProblemType type() {
        return type;
    }

    /**
     * The name of the bad input as the service calls it (the problem's {@code parameter} member): a path variable
     * ({@code id}, {@code targetId}, {@code followeeId}), a query parameter ({@code limit}, {@code cursor}), a body
     * member ({@code ids}), or a header ({@code X-Service-Token}).
     *
     * @return the name, or empty when the answer named none
     */
    public Optional<String> parameter() {
        return Optional.ofNullable(parameter);
    }

    /**
     * How long the service asked the caller to wait before trying again ({@code Retry-After}, RFC 9110 section
     * 10.2.3: a number of seconds, or an HTTP date, then counted from when the answer arrived, zero once past).
     *
     * @return the wait, or empty when the answer had no readable {@code Retry-After}
     */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
