package dev.socialgraph.client;

import dev.socialgraph.common.problem.ProblemType;
import java.time.Duration;

/**
 * No instance could serve the call: the last attempt was answered 503 ({@link #status()} 503;
 * {@link ProblemType#SHARD_UNAVAILABLE} when the user's shard database is down, {@link ProblemType#SERVICE_UNAVAILABLE}
 * when the instance is overloaded or starting; usually with {@link #retryAfter()}), or no instance answered at all
 * ({@link #status()} {@link #NO_RESPONSE}: refused or reset connections, timeouts; the cause is the last
 * {@link java.io.IOException}). Thrown only after the client's own attempts ({@code maxAttempts}) are spent.
 * Nothing was written on a 503; after no answer, a write may or may not have taken effect (writes are idempotent,
 * so repeating it is safe).
 */
public final class UnavailableException extends GraphClientException {

    private static final long serialVersionUID = 1L;

    UnavailableException(int status, ProblemType type, String parameter, Duration retryAfter, String message,
                         Throwable cause) {
        super(status, type, parameter, retryAfter, message, cause);
    }
}
