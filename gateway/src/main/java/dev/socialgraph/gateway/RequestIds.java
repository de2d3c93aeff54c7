package dev.socialgraph.gateway;

import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import reactor.core.publisher.Mono;

/**
 * {@code X-Request-Id}: kept when the client sends a sane one, generated otherwise; passed to the service and
 * returned to the client, and logged at DEBUG with the route.
 */
@Component
class RequestIds implements GlobalFilter, Ordered {

    static final String HEADER = "X-Request-Id";
    private static final Logger log = LoggerFactory.getLogger(RequestIds.class);

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        String id = exchange.getRequest().getHeaders().getFirst(HEADER);
        if (id == null || id.isEmpty() || id.length() > 128 || !id.chars().allMatch(c -> c > 32 && c < 127)) {
            id = UUID.randomUUID().toString();
        }
        String requestId = id;
        exchange.getResponse().getHeaders().set(HEADER, requestId);
        log.debug("request {} {} {}", requestId, exchange.getRequest().getMethod(), exchange.getRequest().getPath());
        return chain.filter(exchange.mutate().request(r -> r.headers(h -> h.set(HEADER, requestId))).build());
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
