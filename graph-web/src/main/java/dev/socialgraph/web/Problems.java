package dev.socialgraph.web;

import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.wire.Headers;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * The guard's RFC 9457 answers, written before any controller runs (so not by a service's
 * {@code @RestControllerAdvice} or {@link ProblemWebExceptionHandler}): servlet services write them with
 * {@link #write}, reactive ones with {@link ReactiveProblems#write(org.springframework.web.server.ServerWebExchange,
 * int, byte[])}. Status, type and title are the {@link ProblemType}'s, the body is {@link ProblemJson}'s, encoded once:
 * every field is a constant of this module, nothing of the request (and never the presented token) is echoed.
 */
final class Problems {

    private final int status;
    private final byte[] body;

    private Problems(ProblemType type, String detail, String parameter) {
        this.status = type.status();
        this.body = ProblemJson.of(type, detail, null, parameter);
    }

    static Problems missingToken() {
        return new Problems(ProblemType.SERVICE_CREDENTIAL,
                "this endpoint needs the service credential in the " + Headers.SERVICE_TOKEN + " header",
                Headers.SERVICE_TOKEN);
    }

    static Problems wrongToken() {
        return new Problems(ProblemType.SERVICE_CREDENTIAL,
                "the " + Headers.SERVICE_TOKEN + " header does not hold this deployment's service credential",
                Headers.SERVICE_TOKEN);
    }

    static Problems bodyTooLarge(long maxBytes) {
        return new Problems(ProblemType.BODY_TOO_LARGE,
                "the request body is larger than " + maxBytes + " bytes (graph.web.max-request-size)", "body");
    }

    /** The HTTP status. */
    int status() {
        return status;
    }

    /** The encoded problem document; callers must not change it. */
    byte[] body() {
        return body;
    }

    /** Writes this problem as the whole response. */
    void write(HttpServletResponse response) throws IOException {
        response.setStatus(status);
        response.setContentType("application/problem+json");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }
}
