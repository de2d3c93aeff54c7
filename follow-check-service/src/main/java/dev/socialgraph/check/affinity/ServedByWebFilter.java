package dev.socialgraph.check.affinity;

import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Adds {@code X-Served-By: <graph.check.affinity.instance-id>} to every answer of the read API
 * ({@code /internal/v1/users/**}, the pairs check {@link InternalApi#PAIRS} and the batch read
 * {@link InternalApi#READS}), errors included, so that
 * operators and tests can see which instance the gateway's shard-affine routing picked. The gateway passes it
 * through.
 */
@Component
class ServedByWebFilter implements WebFilter, Ordered {

    /** Response header naming the instance that answered. */
    static final String HEADER = Headers.SERVED_BY;

    private static final String READ_API = InternalApi.USERS + "/";

    private final String instanceId;

    ServedByWebFilter(ShardOwnership ownership) {
        this.instanceId = ownership.instanceId();
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE; // ahead of the service guard, so that its 401s name the instance too
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String path = exchange.getRequest().getPath().value();
        if (path.startsWith(READ_API) || InternalApi.PAIRS.matches(path) || InternalApi.READS.matches(path)) {
            exchange.getResponse().getHeaders().set(HEADER, instanceId); // before the body commits the response
        }
        return chain.filter(exchange);
    }
}
