package dev.socialgraph.gateway;

import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.wire.PublicApi;
import java.net.URI;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.ReactiveLoadBalancerClientFilter;
import org.springframework.cloud.gateway.filter.RouteToRequestUrlFilter;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Sends a public read to the service's internal API: the URL the gateway proxies to gets {@code /internal} in
 * front of its path ({@code /v1/users/5/counts?x=1} becomes {@code /internal/v1/users/5/counts?x=1}), query and
 * encoding kept as the client sent them.
 *
 * <p>Why the URL and not the request: Spring Cloud Gateway's {@code rewritePath} applies a regular expression and
 * builds a new request, which copies every request header, on each request; this filter replaces the one exchange
 * attribute the proxying filter reads ({@link ServerWebExchangeUtils#GATEWAY_REQUEST_URL_ATTR}). It runs after
 * {@link ReactiveLoadBalancerClientFilter}, which builds that URL from the chosen instance's address and the
 * request's own path (not from the attribute {@link RouteToRequestUrlFilter} set), and picks the instance from the
 * request's {@code /v1/users/{id}} (ShardAffineLoadBalancer reads either form). The route's path predicate must
 * admit only paths under {@code /v1/}; {@link PathGuard} has refused dot segments and encoded slashes before any
 * route, so the rewritten path cannot leave {@code /internal/v1}.
 */
final class InternalPath implements GatewayFilter, Ordered {

    /** The one instance: the filter has no state. */
    static final InternalPath FILTER = new InternalPath();

    /** Right after {@link ReactiveLoadBalancerClientFilter} (10150), long before the proxying filter (last). */
    static final int ORDER = ReactiveLoadBalancerClientFilter.LOAD_BALANCER_CLIENT_FILTER_ORDER + 1;

    private static final String PUBLIC = PublicApi.PREFIX + "/";
    private static final String INTERNAL = InternalApi.MIRROR_PREFIX;

    private InternalPath() {
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        URI url = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_REQUEST_URL_ATTR);
        if (url != null) {
            exchange.getAttributes().put(ServerWebExchangeUtils.GATEWAY_REQUEST_URL_ATTR, internal(url));
        }
        return chain.filter(exchange);
    }

    /**
     * The internal form of a public URL.
     *
     * @param url an absolute URL whose raw path starts with {@code /v1/}, e.g. {@code http://10.0.0.7:8081/v1/users/5/counts}
     * @return the same URL with {@code /internal} in front of its path
     * @throws IllegalArgumentException when the path does not start with {@code /v1/} (a route that should not use
     *                                  this filter)
     */
    static URI internal(URI url) {
        String query = url.getRawQuery();
        return URI.create(url.getScheme() + "://" + url.getRawAuthority() + internal(url.getRawPath())
                + (query == null ? "" : "?" + query));
    }

    /**
     * The internal form of a public path: the one rule, for the routes' URLs and for the lean reads
     * ({@link LeanReadHandler}), which send no URL through Spring Cloud Gateway.
     *
     * @param rawPath a raw path starting with {@code /v1/}, e.g. {@code /v1/users/5/counts}
     * @return the same path with {@code /internal} in front, e.g. {@code /internal/v1/users/5/counts}
     * @throws IllegalArgumentException when the path does not start with {@code /v1/}
     */
    static String internal(String rawPath) {
        if (rawPath == null || !rawPath.startsWith(PUBLIC)) {
            throw new IllegalArgumentException("not a public API path: " + rawPath);
        }
        return INTERNAL + rawPath;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
