package dev.socialgraph.web;

import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.server.MethodNotAllowedException;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebInputException;
import org.springframework.web.server.UnsupportedMediaTypeStatusException;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * The reactive services' counterpart of {@link ProblemAdvice}: every error a handler or WebFlux raises becomes
 * {@code application/problem+json}, for annotated controllers and functional endpoints alike. What an answer says is
 * {@link ProblemMapping}'s wherever the servlet services answer the same error; this class adds WebFlux's own cases
 * and writes the answer below the codecs ({@link ReactiveProblems}).
 * <ul>
 *   <li>the graph's own exceptions as {@link ProblemMapping} maps them (bad input 400 naming it, an unavailable
 *       shard 503 with {@code Retry-After: 1});</li>
 *   <li>a body that cannot be read or decoded: 400 naming {@code body}, or the property Jackson's path names; one
 *       larger than a decoder holds in memory: 413 naming {@code body};</li>
 *   <li>an unsupported {@code Content-Type}: 415 naming {@code Content-Type};</li>
 *   <li>a full queue of blocking work ({@link RejectedExecutionException}): 503 with {@code Retry-After: 1};</li>
 *   <li>WebFlux's other statuses (404 no such resource, 405 with {@code Allow}, 406, ...): that status;</li>
 *   <li>any other exception: a bug, logged with its stack trace and answered 500 without internals.</li>
 * </ul>
 * Ordered before Spring Boot's {@code DefaultErrorWebExceptionHandler} (-1), whose HTML and JSON error pages it
 * replaces. Registered by {@link ReactiveServiceGuardAutoConfiguration}.
 */
public final class ProblemWebExceptionHandler implements WebExceptionHandler, Ordered {

    private static final Logger log = LoggerFactory.getLogger(ProblemWebExceptionHandler.class);

    /** Before Spring Boot's error handler (-1). */
    static final int ORDER = -2;

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable error) {
        if (exchange.getResponse().isCommitted()) {
            return Mono.error(error); // half an answer is out: only closing the connection is left
        }
        ResponseEntity<ProblemDetail> answer;
        try (ExchangeLogContext ids = ExchangeLogContext.open(exchange)) { // what mapping logs names the request
            answer = ProblemMapping.of(error);
            if (answer == null) {
                answer = framework(error);
            }
        }
        return ReactiveProblems.write(exchange, answer.getBody(), answer.getHeaders());
    }

    private static ResponseEntity<ProblemDetail> framework(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof DataBufferLimitException) {
                // A decoder's in-memory limit (spring.codec.max-in-memory-size): the body is too large to read.
                return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE).body(ProblemMapping.problem(
                        HttpStatus.CONTENT_TOO_LARGE, "the request body is too large to be read", "body"));
            }
        }
        return switch (error) {
            case UnsupportedMediaTypeStatusException e -> ProblemMapping.unsupportedMediaType();
            case ServerWebInputException e when e.getStatusCode().value() == 400 -> ProblemMapping.unreadableBody(e);
            case MethodNotAllowedException e -> ResponseEntity.status(HttpStatus.METHOD_NOT_ALLOWED)
                    .allow(e.getSupportedMethods().toArray(new org.springframework.http.HttpMethod[0]))
                    .body(ProblemMapping.problem(HttpStatus.METHOD_NOT_ALLOWED,
                            "method " + e.getHttpMethod() + " is not supported here", null));
            case ResponseStatusException e -> statusOnly(e.getStatusCode(), e.getReason());
            case RejectedExecutionException e -> {
                log.debug("Overloaded: {}", e.getMessage());
                yield ProblemMapping.overloaded();
            }
            default -> ProblemMapping.unexpected(error, log);
        };
    }

    private static ResponseEntity<ProblemDetail> statusOnly(HttpStatusCode status, String reason) {
        String detail = status.value() == 404 ? "no such resource" : reason;
        return ResponseEntity.status(status).body(ProblemMapping.problem(status, detail, null));
    }
}
