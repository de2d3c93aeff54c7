package dev.socialgraph.client;

import dev.socialgraph.common.problem.ProblemType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Turns a non-2xx answer into the {@link GraphClientException} a caller sees: the RFC 9457 problem body's
 * {@code type}, {@code title}, {@code detail} and {@code parameter} when the body is a JSON object, the
 * {@code Retry-After} header, and the status. Tolerant by design: the body may be empty, not JSON, or name a type
 * outside the fleet's vocabulary ({@code about:blank}, an older service's URN), and the type then defaults to
 * {@link ProblemType#forStatus} of the status. Pure; no I/O.
 */
final class Problems {

    private static final JsonMapper JSON = JsonMapper.builder().build();
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
        JsonNode problem = object(body);
        String typeText = text(problem, "type");
        ProblemType type = ProblemType.fromUri(typeText).orElseGet(() -> status >= 400 && status <= 599
                ? ProblemType.forStatus(status) : ProblemType.INTERNAL_ERROR);
        String parameter = text(problem, ProblemType.PARAMETER);
        Duration wait = RetryAfter.parse(retryAfter, now).orElse(null);
        String message = message(request, status, type, problem, body, parameter);
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

    private static String message(String request, int status, ProblemType type, JsonNode problem, byte[] body,
                                  String parameter) {
        StringBuilder s = new StringBuilder(request).append(": HTTP ").append(status).append(' ').append(type.slug());
        if (parameter != null) {
            s.append(" (").append(parameter).append(')');
        }
        String detail = text(problem, "detail");
        String title = text(problem, "title");
        if (detail != null) {
            s.append(": ").append(detail);
        } else if (title != null) {
            s.append(": ").append(title);
        } else if (problem == null && body.length > 0) {
            s.append(": ").append(new String(body, 0, Math.min(body.length, EXCERPT), StandardCharsets.UTF_8));
        }
        return s.toString();
    }

    /** The body as a JSON object, or {@code null} when it is empty, not JSON, or JSON but not an object. */
    private static JsonNode object(byte[] body) {
        if (body == null || body.length == 0) {
            return null;
        }
        try {
            JsonNode node = JSON.readTree(body);
            return node != null && node.isObject() ? node : null;
        } catch (JacksonException e) {
            return null;
        }
    }

    private static String text(JsonNode object, String field) {
        JsonNode v = object == null ? null : object.get(field);
        return v != null && v.isString() ? v.asString() : null;
    }
}
