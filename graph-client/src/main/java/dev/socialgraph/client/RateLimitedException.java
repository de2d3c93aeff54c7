package dev.socialgraph.client;

import dev.socialgraph.common.problem.ProblemType;
import java.time.Duration;

/**
 * HTTP 429: the caller's rate budget is spent ({@link ProblemType#RATE_LIMITED}); {@link #retryAfter()} says when to
 * try again. Not retried by the client, which would only spend the budget again: waiting is the caller's choice.
 */
public final class RateLimitedException extends GraphClientException {

    private static final long serialVersionUID = 1L;

    RateLimitedException(ProblemType type, String parameter, Duration retryAfter, String message) {
        super(429, type, parameter, retryAfter, message, null);
    }
}
