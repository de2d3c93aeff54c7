package dev.socialgraph.web;

import dev.socialgraph.wire.Headers;
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
     * Completes the exchange with {@code problem}, its status and {@code headers}, completed by
     * {@link ProblemTypes#complete}: a type of the vocabulary, and as {@code instance} the path the caller sent (the
     * gateway's {@link Headers#PUBLIC_PATH}, else the request's path when the problem has none).
     */
    static Mono<Void> write(ServerWebExchange exchange, ProblemDetail problem, HttpHeaders headers) {
        ProblemTypes.complete(problem, exchange.getRequest().getHeaders().getFirst(Headers.PUBLIC_PATH),
                exchange.getRequest().getPath().value());
        exchange.getResponse().getHeaders().addAll(headers);
        return write(exchange, problem.getStatus(), ProblemJson.of(problem));
    }
}
