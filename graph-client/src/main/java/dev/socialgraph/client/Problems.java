package dev.socialgraph.client;

import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.wire.ProblemDocument;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a non-2xx answer into the {@link GraphClientException} a caller sees: the RFC 9457 problem body's
 * {@code type}, {@code title}, {@code detail} and {@code parameter} when the body is a JSON object, the
 * {@code Retry-After} header, and the status. Tolerant by design: the body may be empty, not JSON, or name a type
 * outside the fleet's vocabulary ({@code about:blank}, an older service's URN), and the type then defaults to
 * {@link ProblemType#forStatus} of the status. The body is read by graph-wire's {@link ProblemDocument}, the one
 * parser of problems the gateway uses too. Pure; no I/O.
 */
final class Problems {

    /** What an answer without a problem document says: nothing, so its type is its status'. */
    private static final ProblemDocument NONE = new ProblemDocument(Map.of());
    /** Characters of a body that is not a problem kept in the message, enough to recognise a proxy's error page. */
    private static final int EXCERPT = 200;

    private Problems() {
    }

    /**
     * The exception for one answer.
     *
     * @param request    {@code METHOD uri}, for the message
     * @param status     the answer's status, not 2xx
     * @param body       its body, possibly empty
     * @param retryAfter its {@code Retry-After} header, or {@code null}
     * @param now        when it arrived
     * @return a {@link RequestRejectedException} (4xx but 429), {@link RateLimitedException} (429),
     *         {@link UnavailableException} (503) or a plain {@link GraphClientException} (anything else)
     */
    static GraphClientException of(String request, int status, byte[] body, String retryAfter, Instant now) {
        Optional<ProblemDocument> document = ProblemDocument.parse(body);
        ProblemDocument problem = document.orElse(NONE);
        ProblemType type = problem.problemType(status);
        String parameter = problem.parameter();
        Duration wait = RetryAfter.parse(retryAfter, now).orElse(null);
        String message = message(request, status, type, problem, document.isEmpty() ? body : null, parameter);
        if (status == 429) {
            return new RateLimitedException(type, parameter, wait, message);
        }
        if (status == 503) {
            return new UnavailableException(status, type, parameter, wait, message, null);
        }
        if (status >= 400 && status < 500) {
            return new RequestRejectedException(status, type, parameter, wait, message);
        }
        return new GraphClientException(status, type, parameter, wait, message, null);
    }

    /** No instance answered: {@link UnavailableException} with {@link GraphClientException#NO_RESPONSE}. */
    static UnavailableException noResponse(String message, Throwable cause) {
        return new UnavailableException(GraphClientException.NO_RESPONSE, ProblemType.SERVICE_UNAVAILABLE, null, null,
                message, cause);
    }

    /** A 2xx answer that is not the service's JSON: a fault between the client and the service, or a bug. */
    static GraphClientException unreadable(String message, Throwable cause) {
        return new GraphClientException(200, ProblemType.INTERNAL_ERROR, null, null, message, cause);
    }

    /** {@code excerpt} is the body when it is no problem document, else {@code null}. */
    private static String message(String request, int status, ProblemType type, ProblemDocument problem,
                                  byte[] excerpt, String parameter) {
        StringBuilder s = new StringBuilder(request).append(": HTTP ").append(status).append(' ').append(type.slug());
        if (parameter != null) {
            s.append(" (").append(parameter).append(')');
        }
        String detail = problem.detail();
        String title = problem.title();
        if (detail != null) {
            s.append(": ").append(detail);
        } else if (title != null) {
            s.append(": ").append(title);
        } else if (excerpt != null && excerpt.length > 0) {
            s.append(": ").append(new String(excerpt, 0, Math.min(excerpt.length, EXCERPT), StandardCharsets.UTF_8));
        }
        return s.toString();
    }
}
