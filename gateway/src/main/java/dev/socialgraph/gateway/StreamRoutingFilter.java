package dev.socialgraph.gateway;

import io.netty.channel.ChannelOption;
import java.time.Duration;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.gateway.config.HttpClientProperties;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.NettyRoutingFilter;
import org.springframework.cloud.gateway.filter.headers.HttpHeadersFilter;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * Proxies the change stream's routes (those whose metadata holds {@link #METADATA}) on a client of their own:
 * Spring Cloud Gateway's own proxying ({@link NettyRoutingFilter}, whose header filters, status and header copying
 * and streaming of {@code text/event-stream} this inherits), but on a connection pool apart from the reads' and with
 * the longer silence a long-poll or an event stream has. A watcher holds its connection for as long as it watches;
 * on the reads' pool ({@code graph.gateway.service-pool}, 256 per instance) a few hundred watchers would leave no
 * connection for a follow check.
 *
 * <p>It runs just before Spring Cloud Gateway's routing filter, which then finds the exchange routed and does
 * nothing. Every other route goes on to that filter untouched.
 */
final class StreamRoutingFilter extends NettyRoutingFilter {

    /** The route metadata that sends a route here. */
    static final String METADATA = "graph.change-stream";

    /**
     * @param client         the change stream's client ({@link #client})
     * @param headersFilters the gateway's header filters, as Spring Cloud Gateway's routing filter gets them
     * @param properties     Spring Cloud Gateway's client settings
     */
    StreamRoutingFilter(HttpClient client, ObjectProvider<List<HttpHeadersFilter>> headersFilters,
                        HttpClientProperties properties) {
        super(client, headersFilters, properties);
    }

    /**
     * The change stream's client: a pool of {@code maxStreams} connections per instance (waiters at most as many, each
     * at most 1 s, then 503), {@code silence} as the longest quiet between two reads of a response (then 504), and
     * Spring Cloud Gateway's connect timeout.
     *
     * @param settings   {@code graph.gateway.changes}
     * @param properties Spring Cloud Gateway's client settings
     * @return the client
     */
    static HttpClient client(GatewayProperties.Changes settings, HttpClientProperties properties) {
        ConnectionProvider pool = ConnectionProvider.builder("graph-changes")
                .maxConnections(settings.maxStreams())
                .pendingAcquireMaxCount(settings.maxStreams())
                .pendingAcquireTimeout(Duration.ofSeconds(1))
                .maxIdleTime(Duration.ofSeconds(30))
                .build();
        HttpClient client = HttpClient.create(pool).responseTimeout(settings.silence());
        Integer connectTimeout = properties.getConnectTimeout();
        return connectTimeout == null ? client : client.option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeout);
    }

    @Override
    public int getOrder() {
        return NettyRoutingFilter.ORDER - 1;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
        if (route == null || !Boolean.TRUE.equals(route.getMetadata().get(METADATA))) {
            return chain.filter(exchange);
        }
        return super.filter(exchange, chain);
    }
}
