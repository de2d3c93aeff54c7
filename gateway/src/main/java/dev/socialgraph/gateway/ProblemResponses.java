package dev.socialgraph.gateway;

import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.web.ProblemJson;
import dev.socialgraph.web.ProblemMapping;
import dev.socialgraph.web.ReactiveProblems;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.ProblemDocument;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
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
            response.getHeaders().set(HttpHeaders.RETRY_AFTER, ProblemMapping.RETRY_AFTER_SECONDS);
        }
        return ReactiveProblems.write(exchange, status.value(),
                ProblemJson.of(type, detail, exchange.getRequest().getPath().value(), parameter));
    }

    /**
     * Completes the exchange with a problem a service answered about this request without it being proxied (a
     * coalesced check's, {@link CoalescedCheckHandler}), as the caller would have got it proxied: the service's
     * members as they are ({@code type}, {@code title}, {@code detail}, {@code parameter}, …), the status given, and
     * as {@code instance} the path the caller sent (what {@code X-Public-Path} makes a proxied request's problem name).
     * A 503 carries {@code Retry-After} as a service's does.
     *
     * @param status     the HTTP status, 400 to 599
     * @param members    the problem document's members; {@code status} and {@code instance} among them are replaced
     * @param retryAfter the service's {@code Retry-After}, or {@code null} (then {@code 1} for a 503)
     */
    Mono<Void> relay(ServerWebExchange exchange, int status, Map<String, ?> members, String retryAfter) {
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.empty();
        }
        ProblemDetail problem = ProblemDetail.forStatus(status);
        for (Map.Entry<String, ?> member : members.entrySet()) {
            Object value = member.getValue();
            switch (member.getKey()) {
                case "type" -> {
                    URI type = value instanceof String text ? uriOrNull(text) : null;
                    if (type != null) {
                        problem.setType(type);
                    }
                }
                case "title" -> problem.setTitle(value instanceof String title ? title : null);
                case "detail" -> problem.setDetail(value instanceof String detail ? detail : null);
                case "status", "instance" -> { }
                default -> problem.setProperty(member.getKey(), value);
            }
        }
        problem.setInstance(uriOrNull(exchange.getRequest().getPath().value()));
        if (retryAfter != null) {
            response.getHeaders().set(HttpHeaders.RETRY_AFTER, retryAfter);
        } else if (status == HttpStatus.SERVICE_UNAVAILABLE.value()) {
            response.getHeaders().set(HttpHeaders.RETRY_AFTER, ProblemMapping.RETRY_AFTER_SECONDS);
        }
        return ReactiveProblems.write(exchange, status, ProblemJson.of(problem));
    }

    /**
     * Completes the exchange with a service's error answer about this request that was not proxied (a batch call's
     * answer other than 200, or one read's result in a batch): a problem document as this caller's ({@link #relay}),
     * anything else as it came, with its {@code Content-Type} and {@code Retry-After}; both with the instance's
     * {@code X-Served-By}.
     *
     * @param status      the answer's HTTP status
     * @param contentType its {@code Content-Type}, or {@code null}
     * @param retryAfter  its {@code Retry-After}, or {@code null}
     * @param servedBy    its {@code X-Served-By}, or {@code null}
     * @param body        its body
     */
    Mono<Void> relayAnswer(ServerWebExchange exchange, int status, String contentType, String retryAfter,
                           String servedBy, byte[] body) {
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.empty();
        }
        if (servedBy != null) {
            response.getHeaders().set(Headers.SERVED_BY, servedBy);
        }
        ProblemDocument problem = ProblemDocument.parse(body).orElse(null);
        if (problem != null) {
            return relay(exchange, status, problem.members(), retryAfter);
        }
        response.setStatusCode(HttpStatusCode.valueOf(status));
        if (contentType != null) {
            response.getHeaders().set(HttpHeaders.CONTENT_TYPE, contentType);
        }
        if (retryAfter != null) {
            response.getHeaders().set(HttpHeaders.RETRY_AFTER, retryAfter);
        }
        response.getHeaders().setContentLength(body.length);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
    }

    private static URI uriOrNull(String text) {
        try {
            return new URI(text);
        } catch (URISyntaxException e) {
            return null; // then the status' default type, or no instance: as a service leaves out what it cannot name
        }
    }
}
