package dev.socialgraph.web;

import java.net.URI;
import java.net.URISyntaxException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Writes {@code application/problem+json} answers on a Reactor Netty server below the codecs (from web filters and
 * exception handlers, which have no message writers), encoded by {@link ProblemJson}: the reactive services' guard
 * and problem mapping, and the gateway's own problems.
 */
public final class ReactiveProblems {

    private ReactiveProblems() {
    }

    /**
     * Completes the exchange with {@code body}, unless the response is already committed.
     *
     * @param status an HTTP status code
     * @param body   an encoded problem document ({@link ProblemJson})
     * @return completion of the write; empty when the response was already committed
     */
    public static Mono<Void> write(ServerWebExchange exchange, int status, byte[] body) {
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.empty();
        }
        response.setStatusCode(HttpStatusCode.valueOf(status));
        response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        response.getHeaders().setContentLength(body.length);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
    }

    /**
     * Completes the exchange with {@code problem}, its status and {@code headers}; {@code instance} is the request's
     * path when the problem has none and the path is a valid URI reference.
     */
    static Mono<Void> write(ServerWebExchange exchange, ProblemDetail problem, HttpHeaders headers) {
        if (problem.getInstance() == null) {
            String path = exchange.getRequest().getPath().value();
            try {
                problem.setInstance(new URI(path));
            } catch (URISyntaxException e) {
                // Not a valid URI reference: leave instance out rather than fail the error answer.
            }
        }
        exchange.getResponse().getHeaders().addAll(headers);
        return write(exchange, problem.getStatus(), ProblemJson.of(problem));
    }
}
