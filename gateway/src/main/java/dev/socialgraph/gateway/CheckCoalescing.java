package dev.socialgraph.gateway;

import dev.socialgraph.gateway.FollowPairsClient.Answer;
import dev.socialgraph.gateway.FollowPairsClient.Pair;
import dev.socialgraph.wire.PublicApi;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.simple.reactive.SimpleReactiveDiscoveryProperties;
import org.springframework.cloud.client.loadbalancer.reactive.ReactiveLoadBalancer;
import org.springframework.cloud.loadbalancer.support.LoadBalancerClientFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.handler.AbstractHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * The single follow check {@code GET /v1/users/{id}/following/{targetId}} served by the gateway's own handler
 * ({@link CoalescedCheckHandler}) and coalesced into batch calls per check instance ({@link Coalescer},
 * {@link FollowPairsClient}), with {@code graph.gateway.check-coalescing.enabled} (the default); off, Spring Cloud
 * Gateway's {@code check} route proxies each check, one request per check.
 *
 * <p>Why a handler of our own: behind the route, every check paid Spring Cloud Gateway's proxying machinery (route
 * lookup, its filter chain, a client exchange per request, header copies), several times the check service's own
 * cost per check, and one proxied request per check cannot share it. The handler is found by its own
 * {@link HandlerMapping}, ordered before every other (Spring Cloud Gateway's {@code RoutePredicateHandlerMapping}
 * has order 1, WebFlux's {@code RouterFunctionMapping} -1), so a check never reaches the route lookup. A
 * {@link org.springframework.web.server.WebHandler} rather than a functional endpoint: the steps it shares with the
 * routes ({@link RateLimits}' filter, {@link ProblemResponses}, {@link GatewayErrors}) answer on the exchange, as the
 * routes' filters do, not with a {@code ServerResponse}.
 *
 * <p>Meters, per check instance (tag {@code check_instance}, the instance's id): {@code graph.gateway.coalescer.batches}
 * (batch calls sent), {@code .checks} (checks sent in them: their ratio is the mean batch size),
 * {@code .refused} (checks answered without being sent: too many were waiting, 503, or one waited past
 * {@code max-wait}, 504) and the gauge {@code .queued} (checks waiting).
 *
 * <p>The check's entry ({@link SingleCheckEntry}, which it shares with the other reads): the timer
 * {@code graph.gateway.read.requests} instead of {@code http.server.requests}, and a token already accepted taken from
 * the JWT cache, the check then answered by this handler outside Spring Security's chain and WebFlux's dispatch. Off
 * with the rest: {@code enabled=false} restores the observation and the chain too.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "graph.gateway.check-coalescing.enabled", matchIfMissing = true)
class CheckCoalescing {

    @Bean
    CoalescedCheckMapping coalescedCheckMapping(CheckCoalescingProperties properties, GatewayProperties gateway,
                                                ProblemResponses problems,
                                                RateLimits limits,
                                                @Qualifier("readLimiter") LocalTokenBuckets readLimiter,
                                                LoadBalancerClientFactory balancers,
                                                SimpleReactiveDiscoveryProperties discovery, HttpClient client,
                                                ServiceHeaders serviceHeaders, MeterRegistry meters) {
        ReactiveLoadBalancer<ServiceInstance> balancer = balancers.getInstance(LoadBalancing.CHECK_SERVICE);
        if (!(balancer instanceof ShardAffineLoadBalancer shardAffine)) {
            throw new IllegalStateException("the check service's balancer is not the shard-affine one: " + balancer);
        }
        InstanceCoalescers<Pair, Answer> coalescers = new InstanceCoalescers<>(
                instance -> new FollowPairsClient(client, instance.getUri(), serviceHeaders),
                InstanceCoalescers.Bounds.of(properties.maxInFlight(), properties.maxBatch(), properties.maxQueued(),
                        properties.maxWait(), gateway.responseTimeout()),
                "graph.gateway.coalescer", "checks", "follow checks", meters,
                pair -> EventLoops.executor(pair.exchange()));
        // Every configured instance's coalescer, and so its meters, from the start.
        StaticInstanceListConfiguration.instances(discovery, LoadBalancing.CHECK_SERVICE).forEach(coalescers::apply);
        return new CoalescedCheckMapping(new CoalescedCheckHandler(limits.filter(readLimiter, "reads", 0), problems,
                shardAffine, coalescers));
    }

    /**
     * Maps {@code GET /v1/users/{id}/following/{targetId}} to the {@link CoalescedCheckHandler}, ahead of every other
     * mapping, in the application's own web server only: the management server's child context sees its parent's
     * handler mappings too, and serves no {@code /v1} path.
     */
    static final class CoalescedCheckMapping extends AbstractHandlerMapping {

        /** The path of Spring Cloud Gateway's {@code check} route, matched the same way. */
        static final PathPattern CHECK = PathPatternParser.defaultInstance.parse(PublicApi.IS_FOLLOWING.template());

        private final CoalescedCheckHandler handler;

        CoalescedCheckMapping(CoalescedCheckHandler handler) {
            this.handler = handler;
            setOrder(Ordered.HIGHEST_PRECEDENCE);
        }

        /** The handler mapped to: {@link SingleCheckEntry} answers a check it authenticates with it directly. */
        CoalescedCheckHandler handler() {
            return handler;
        }

        @Override
        protected Mono<?> getHandlerInternal(ServerWebExchange exchange) {
            ServerHttpRequest request = exchange.getRequest();
            if (!HttpMethod.GET.equals(request.getMethod()) || exchange.getApplicationContext() != getApplicationContext()) {
                return Mono.empty();
            }
            PathPattern.PathMatchInfo match = CHECK.matchAndExtract(request.getPath().pathWithinApplication());
            if (match == null) {
                return Mono.empty();
            }
            exchange.getAttributes().put(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE, match.getUriVariables());
            return Mono.just(handler);
        }
    }
}
