package dev.socialgraph.gateway;

import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.Method;
import dev.socialgraph.wire.PublicApi;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.simple.reactive.SimpleReactiveDiscoveryProperties;
import org.springframework.cloud.client.loadbalancer.reactive.ReactiveLoadBalancer;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.headers.HttpHeadersFilter;
import org.springframework.cloud.loadbalancer.support.LoadBalancerClientFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.reactive.handler.AbstractHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * Every public GET read but the single check ({@link #ENDPOINTS}: the lists of following and followers, the counts, the
 * common following, the followers the viewer knows, the relationship, the suggestions, and a user's own blocks and
 * mutes) served by the gateway's own handler ({@link LeanReadHandler}) instead of Spring Cloud Gateway's routes, with
 * {@code graph.gateway.lean-reads.enabled} (the default); off, the routes proxy them as before.
 *
 * <p>Why: behind a route, each read paid Spring Cloud Gateway's machinery (route lookup, the merged filter chain, a
 * client exchange and several header copies) and Spring Security's whole filter chain, about 670 µs of fleet CPU
 * more than calling the check service directly; a mix of these reads ran at 0.4 of direct. The single check had
 * been given its own entry and handler for the same reason ({@link CheckCoalescing}); these reads get the same
 * entry ({@link SingleCheckEntry}: a token the chain accepted taken from the token cache) and a handler that runs
 * the routes' own filters ({@link RoutesConfiguration#leanReadFilters}) and forwards the request on the same client
 * and connection pool ({@link HttpClientTuning}), with the same outgoing headers ({@link ServiceHeaders}), to the
 * instance the same balancer chooses ({@link ShardAffineLoadBalancer}). Like the single check, they are timed by the
 * entry ({@code graph.gateway.read.requests}, each operation's template its {@code uri} tag) instead of
 * {@code http.server.requests}, and a read the entry authenticates is answered by the handler directly.
 *
 * <p>With {@code graph.gateway.lean-reads.coalesce} (the default) the reads bound for one check instance are
 * coalesced into batch calls ({@link Coalescer}, {@link ReadBatchClient}), as the single check is: one call carries
 * the reads of many callers, so the client exchange, the service's request handling and their system calls are paid
 * once per batch instead of once per read. Meters per check instance, as the check's:
 * {@code graph.gateway.read-coalescer.batches}, {@code .reads}, {@code .refused}, {@code .queued}.
 *
 * <p>{@link LeanReadMapping} finds the handler ahead of every other mapping (Spring Cloud Gateway's
 * {@code RoutePredicateHandlerMapping} has order 1), for the requests the entry marked with {@link #ATTRIBUTE} and
 * left to Spring Security's chain (a token not yet cached); the entry answers the others with the same handler.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "graph.gateway.lean-reads.enabled", matchIfMissing = true)
class LeanReads {

    /** The reads served here, each a GET. */
    static final List<Endpoint> ENDPOINTS = List.of(PublicApi.LIST_FOLLOWING, PublicApi.LIST_FOLLOWERS,
            PublicApi.COUNT_FOLLOWS, PublicApi.LIST_COMMON_FOLLOWING, PublicApi.LIST_KNOWN_FOLLOWERS,
            PublicApi.GET_RELATIONSHIP, PublicApi.SUGGEST_USERS, PublicApi.LIST_USER_BLOCKS, PublicApi.LIST_USER_MUTES,
            PublicApi.LIST_OWN_BLOCKS, PublicApi.LIST_OWN_MUTES);

    /** Exchange attribute naming the read a request is ({@link #match}): its {@link Endpoint}. */
    static final String ATTRIBUTE = LeanReads.class.getName() + ".read";

    private static final String PREFIX = PublicApi.PREFIX + "/";

    /**
     * The read a request is, by its method and raw path (without allocating: asked of every request by the entry).
     * {@link PathGuard} has refused, before, every {@code /v1} path with a segment that is not plain, so the raw path
     * is the path the routes' predicates match.
     *
     * @param request a request
     * @return the one of {@link #ENDPOINTS} it is, or {@code null}
     */
    static Endpoint match(ServerHttpRequest request) {
        if (!HttpMethod.GET.equals(request.getMethod())) {
            return null;
        }
        String path = request.getURI().getRawPath();
        if (path == null || !path.startsWith(PREFIX)) {
            return null;
        }
        for (int i = 0; i < ENDPOINTS.size(); i++) {
            Endpoint read = ENDPOINTS.get(i);
            if (read.matches(Method.GET, path)) {
                return read;
            }
        }
        return null;
    }

    @Bean
    LeanReadMapping leanReadMapping(ProblemResponses problems, RateLimits limits,
                                    @Qualifier("readLimiter") LocalTokenBuckets readLimiter,
                                    RequestIds requestIds, FollowTokenGuard followTokens,
                                    LoadBalancerClientFactory balancers, HttpClient client,
                                    ObjectProvider<HttpHeadersFilter> headerFilters, LeanReadsProperties properties,
                                    GatewayProperties gateway, ServiceHeaders serviceHeaders,
                                    SimpleReactiveDiscoveryProperties discovery, MeterRegistry meters) {
        ReactiveLoadBalancer<ServiceInstance> balancer = balancers.getInstance(LoadBalancing.CHECK_SERVICE);
        if (!(balancer instanceof ShardAffineLoadBalancer shardAffine)) {
            throw new IllegalStateException("the check service's balancer is not the shard-affine one: " + balancer);
        }
        Map<Endpoint, List<GatewayFilter>> filters = RoutesConfiguration.leanReadFilters(
                limits.filter(readLimiter, "reads", 0), problems);
        if (!filters.keySet().equals(Set.copyOf(ENDPOINTS))) {
            throw new IllegalStateException("the lean reads' filters are not those of " + ENDPOINTS + ": "
                    + filters.keySet());
        }
        // The global filters every route runs first, in their order.
        List<GatewayFilter> first = List.of(requestIds::filter, followTokens::filter);
        InstanceCoalescers<ReadBatchClient.Query, ReadBatchClient.Answer> coalescers = null;
        if (properties.coalesce()) {
            coalescers = new InstanceCoalescers<>(
                    instance -> new ReadBatchClient(client, instance.getUri(), serviceHeaders),
                    InstanceCoalescers.Bounds.of(properties.maxInFlight(), properties.maxBatch(),
                            properties.maxQueued(), properties.maxWait(), gateway.responseTimeout()),
                    "graph.gateway.read-coalescer", "reads", "reads", meters,
                    query -> EventLoops.executor(query.exchange()));
            // Every configured instance's coalescer, and so its meters, from the start.
            StaticInstanceListConfiguration.instances(discovery, LoadBalancing.CHECK_SERVICE).forEach(coalescers::apply);
        }
        return new LeanReadMapping(new LeanReadHandler(first, filters, shardAffine, client,
                headerFilters.orderedStream().toList(), coalescers, problems, properties.aloneAsGet()));
    }

    /**
     * Maps the requests {@link SingleCheckEntry} marked as one of {@link #ENDPOINTS} to the {@link LeanReadHandler},
     * ahead of every other mapping, in the application's own web server only (the management server's child context
     * sees its parent's mappings too, and serves no {@code /v1} path).
     */
    static final class LeanReadMapping extends AbstractHandlerMapping {

        private final LeanReadHandler handler;

        LeanReadMapping(LeanReadHandler handler) {
            this.handler = handler;
            setOrder(Ordered.HIGHEST_PRECEDENCE + 1); // after the coalesced check's, which matches none of these
        }

        /** The handler mapped to: {@link SingleCheckEntry} answers a read it authenticates with it directly. */
        LeanReadHandler handler() {
            return handler;
        }

        @Override
        protected Mono<?> getHandlerInternal(ServerWebExchange exchange) {
            if (exchange.getAttribute(ATTRIBUTE) == null || exchange.getApplicationContext() != getApplicationContext()) {
                return Mono.empty();
            }
            return Mono.just(handler);
        }
    }
}
