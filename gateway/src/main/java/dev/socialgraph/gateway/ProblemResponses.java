package dev.socialgraph.gateway;

import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.web.ProblemJson;
import dev.socialgraph.web.ReactiveProblems;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Writes RFC 9457 {@code application/problem+json} bodies for errors the gateway itself produces: the one place
 * their shape is defined, used by every layer that answers an error (web filters, Spring Security, the error
 * handler, and graph-web's {@link dev.socialgraph.web.MalformedRequests} below Spring for requests Netty or the HTTP
 * adapter refuse), encoded by graph-web's {@link ProblemJson} and written by its {@link ReactiveProblems} like the
 * reactive services' problems.
 */
@Component
class ProblemResponses {

    /**
     * Completes the exchange with a problem.
     *
     * @param parameter the request part at fault (a path variable, a header), or {@code null}
     */
    Mono<Void> write(ServerWebExchange exchange, HttpStatus status, String title, String detail, String parameter) {
        return write(exchange, ProblemType.forStatus(status.value()), detail, parameter);
    }

    /**
     * Completes the exchange with a problem of a given type (its status and title).
     *
     * @param type      what happened, from the fleet's one vocabulary
     * @param parameter the request part at fault (a path variable, a header), or {@code null}
     */
    Mono<Void> write(ServerWebExchange exchange, ProblemType type, String detail, String parameter) {
        HttpStatus status = HttpStatus.valueOf(type.status());
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.empty();
        }
        if (status == HttpStatus.UNAUTHORIZED) {
            response.getHeaders().set("WWW-Authenticate", "Bearer");
        }
        if (status == HttpStatus.SERVICE_UNAVAILABLE) {
            response.getHeaders().set("Retry-After", dev.socialgraph.web.ProblemMapping.RETRY_AFTER_SECONDS);
        }
        return ReactiveProblems.write(exchange, status.value(),
                ProblemJson.of(type, detail, exchange.getRequest().getPath().value(), parameter));
    }
}
