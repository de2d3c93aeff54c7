package dev.socialgraph.web;

import dev.socialgraph.common.problem.ProblemType;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The guard's RFC 9457 answers, written before any controller runs (so not by a service's
 * {@code @RestControllerAdvice} or {@link ProblemWebExceptionHandler}): servlet services write them with
 * {@link #write}, reactive ones with {@link ReactiveProblems#write(org.springframework.web.server.ServerWebExchange,
 * int, byte[])}. Bodies are encoded once: every field is a constant of this module, nothing of the
 * request (and never the presented token) is echoed.
 */
final class Problems {

    /** Problem type of a missing or wrong service credential. */
    static final String CREDENTIAL_TYPE = ProblemType.SERVICE_CREDENTIAL.uriText();
    /** Problem type of a body over {@code graph.web.max-request-size}. */
    static final String BODY_TOO_LARGE_TYPE = ProblemType.BODY_TOO_LARGE.uriText();

    private final int status;
    private final byte[] body;

    private Problems(int status, String type, String title, String detail, String parameter) {
        this.status = status;
        this.body = ("{\"type\":\"" + type + "\",\"title\":\"" + title + "\",\"status\":" + status
                + ",\"detail\":\"" + detail + "\",\"parameter\":\"" + parameter + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    static Problems missingToken() {
        return new Problems(401, CREDENTIAL_TYPE, "Unauthorized",
                "this endpoint needs the service credential in the X-Service-Token header", ServiceTokenFilter.HEADER);
    }

    static Problems wrongToken() {
        return new Problems(401, CREDENTIAL_TYPE, "Unauthorized",
                "the X-Service-Token header does not hold this deployment's service credential",
                ServiceTokenFilter.HEADER);
    }

    static Problems bodyTooLarge(long maxBytes) {
        return new Problems(413, BODY_TOO_LARGE_TYPE, "Content Too Large",
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
