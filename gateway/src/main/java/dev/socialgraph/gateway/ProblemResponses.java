package dev.socialgraph.gateway;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes RFC 9457 {@code application/problem+json} bodies for errors the gateway itself produces: the one place
 * their shape is defined, used by every layer that answers an error (web filters, Spring Security, the error
 * handler, and {@link MalformedRequests} below Spring for requests Netty or the HTTP adapter refuse).
 */
@Component
class ProblemResponses {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * The problem document as UTF-8 JSON: {@code type} (always {@code about:blank}), {@code title}, {@code status},
     * {@code detail}, and {@code instance} and {@code parameter} when not {@code null}.
     *
     * @param status    the HTTP status code
     * @param instance  the request path, or {@code null} when it is unknown (the request line could not be read)
     * @param parameter the request part at fault (a path variable, a header, {@code body}), or {@code null}
     */
    static byte[] json(int status, String title, String detail, String instance, String parameter) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "about:blank");
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        if (instance != null) {
            body.put("instance", instance);
        }
        if (parameter != null) {
            body.put("parameter", parameter);
        }
        return JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Completes the exchange with a problem.
     *
     * @param parameter the request part at fault (a path variable, a header), or {@code null}
     */
    Mono<Void> write(ServerWebExchange exchange, HttpStatus status, String title, String detail, String parameter) {
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.empty();
        }
        response.setStatusCode(status);
        response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        if (status == HttpStatus.UNAUTHORIZED) {
            response.getHeaders().set("WWW-Authenticate", "Bearer");
        }
        if (status == HttpStatus.SERVICE_UNAVAILABLE) {
            response.getHeaders().set("Retry-After", "1");
        }
        DataBuffer buffer = response.bufferFactory().wrap(
                json(status.value(), title, detail, exchange.getRequest().getPath().value(), parameter));
        return response.writeWith(Mono.just(buffer));
    }
}
