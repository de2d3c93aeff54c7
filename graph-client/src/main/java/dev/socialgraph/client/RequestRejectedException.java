package dev.socialgraph.client;

import dev.socialgraph.common.problem.ProblemType;
import java.time.Duration;

/**
 * A 4xx other than 429: the service refused the request as the caller made it, and the same request will be refused
 * again. {@link #type()} says why ({@link ProblemType#INVALID_PARAMETER} with {@link #parameter()} naming the input,
 * {@link ProblemType#BLOCKED} for a follow of a user who blocks the follower, {@link ProblemType#BLOCKING} for a
 * follow of a user the follower blocks, {@link ProblemType#LIMIT_REACHED}, {@link ProblemType#SERVICE_CREDENTIAL} for
 * a missing or wrong service token, ...). Never retried by the client.
 */
public final class RequestRejectedException extends GraphClientException {

    private static final long serialVersionUID = 1L;

    RequestRejectedException(int status, ProblemType type, String parameter, Duration retryAfter, String message) {
        super(status, type, parameter, retryAfter, message, null);
    }
}
