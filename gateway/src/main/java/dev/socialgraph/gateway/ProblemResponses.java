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

/** Writes RFC 9457 {@code application/problem+json} bodies for errors the gateway itself produces. */
@Component
class ProblemResponses {

    private static final JsonMapper JSON = JsonMapper.builder().build();

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
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "about:blank");
        body.put("title", title);
        body.put("status", status.value());
        body.put("detail", detail);
        body.put("instance", exchange.getRequest().getPath().value());
        if (parameter != null) {
            body.put("parameter", parameter);
        }
        response.setStatusCode(status);
        response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        if (status == HttpStatus.UNAUTHORIZED) {
            response.getHeaders().set("WWW-Authenticate", "Bearer");
        }
        if (status == HttpStatus.SERVICE_UNAVAILABLE) {
            response.getHeaders().set("Retry-After", "1");
        }
        DataBuffer buffer = response.bufferFactory().wrap(JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8));
        return response.writeWith(Mono.just(buffer));
    }
}
