package dev.socialgraph.gateway;

import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.web.server.autoconfigure.ServerProperties;
import org.springframework.cloud.gateway.config.HttpClientCustomizer;
import org.springframework.cloud.gateway.config.HttpClientFactory;
import org.springframework.cloud.gateway.config.HttpClientProperties;
import org.springframework.cloud.gateway.config.HttpClientSslConfigurer;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.filter.headers.HttpHeadersFilter;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.netty.resources.ConnectionProvider;

/**
 * Settings of the Reactor Netty client that proxies to the services, beyond what
 * {@code spring.cloud.gateway.server.webflux.httpclient.*} sets (connect timeout, idle time of pooled connections).
 *
 * <p>Response timeout: Spring Cloud Gateway's own {@code httpclient.response-timeout} wraps every proxied response in
 * {@code Flux.timeout}, which schedules and cancels a task on Reactor's shared {@code parallel} scheduler per
 * request; in the gateway's profile those threads used about as much CPU as the gateway's event loops. Reactor Netty's
 * {@code HttpClient.responseTimeout} does the same job with a read-timeout handler on the connection's own event
 * loop. The one difference: it bounds the silence between reads of a response (and before its first byte) rather
 * than the whole response, which for the services' small JSON answers is the same thing. A timeout surfaces as
 * Netty's {@code ReadTimeoutException}, which {@link GatewayErrors} answers with 504 problem+json.
 *
 * <p>Connection pool: a fixed pool per service instance bounded by {@code graph.gateway.service-pool.*}
 * ({@link GatewayProperties.ServicePool}). Spring Cloud Gateway's default is an elastic pool (no bound on
 * connections, so a slow service collects one connection per waiting request), and its {@code fixed} type leaves
 * the queue of requests waiting for a connection unbounded; neither can be set to what is wanted here, so the pool is
 * built in {@link #buildConnectionProvider}. Its other settings ({@code pool.name}, {@code max-idle-time},
 * {@code max-life-time}, {@code eviction-interval}, {@code metrics}, {@code leasing-strategy}) still come from
 * {@code httpclient.pool.*}; {@code pool.type}, {@code max-connections} and {@code acquire-timeout} are not read.
 * An exhausted pool ({@code PoolAcquirePendingLimitException}, {@code PoolAcquireTimeoutException}) is answered
 * 503 with {@code Retry-After} by {@link GatewayErrors}.
 */
@Configuration(proxyBeanMethods = false)
class HttpClientTuning {

    @Bean
    HttpClientCustomizer responseTimeout(GatewayProperties properties) {
        return client -> client.responseTimeout(properties.responseTimeout());
    }

    /**
     * The change stream's proxying, on a pool of its own ({@link StreamRoutingFilter}). Declared as a
     * {@link GlobalFilter}, not as the routing filter it extends, so that nothing looking for Spring Cloud Gateway's
     * routing filter by type takes it for that one.
     */
    @Bean
    GlobalFilter streamRoutingFilter(GatewayProperties gateway, HttpClientProperties properties,
                                     ObjectProvider<List<HttpHeadersFilter>> headersFilters) {
        return new StreamRoutingFilter(StreamRoutingFilter.client(gateway.changes(), properties), headersFilters,
                properties);
    }

    /** Replaces Spring Cloud Gateway's factory of the proxying client (its bean is conditional on a missing one). */
    @Bean
    HttpClientFactory gatewayHttpClientFactory(HttpClientProperties properties, ServerProperties server,
                                               List<HttpClientCustomizer> customizers, HttpClientSslConfigurer ssl,
                                               GatewayProperties gateway) {
        return new BoundedPoolFactory(properties, server, ssl, customizers, gateway.servicePool());
    }

    /** Spring Cloud Gateway's client factory with a bounded connection pool. */
    static final class BoundedPoolFactory extends HttpClientFactory {

        private final GatewayProperties.ServicePool bounds;

        BoundedPoolFactory(HttpClientProperties properties, ServerProperties server, HttpClientSslConfigurer ssl,
                           List<HttpClientCustomizer> customizers, GatewayProperties.ServicePool bounds) {
            super(properties, server, ssl, customizers);
            this.bounds = bounds;
        }

        @Override
        protected ConnectionProvider buildConnectionProvider(HttpClientProperties properties) {
            return pool(properties.getPool(), bounds);
        }
    }

    /** A fixed pool per remote address with {@code bounds}, and the rest of {@code pool}'s settings. */
    static ConnectionProvider pool(HttpClientProperties.Pool pool, GatewayProperties.ServicePool bounds) {
        ConnectionProvider.Builder builder = ConnectionProvider.builder(pool.getName())
                .maxConnections(bounds.maxConnections())
                .pendingAcquireMaxCount(bounds.pendingAcquireMax())
                .pendingAcquireTimeout(bounds.pendingAcquireTimeout())
                .metrics(pool.isMetrics());
        if (pool.getMaxIdleTime() != null) {
            builder.maxIdleTime(pool.getMaxIdleTime());
        }
        if (pool.getMaxLifeTime() != null) {
            builder.maxLifeTime(pool.getMaxLifeTime());
        }
        if (pool.getEvictionInterval() != null) {
            builder.evictInBackground(pool.getEvictionInterval());
        }
        if (pool.getLeasingStrategy() == HttpClientProperties.Pool.LeasingStrategy.LIFO) {
            builder.lifo();
        } else {
            builder.fifo();
        }
        return builder.build();
    }
}
