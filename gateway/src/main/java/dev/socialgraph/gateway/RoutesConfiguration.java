package dev.socialgraph.gateway;

import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.common.id.UserIds;
import java.util.Map;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

/**
 * The public API of DESIGN.md 6 mapped onto the services' internal API:
 * <ul>
 *   <li>{@code PUT|DELETE /v1/me/following/{targetId}} → write service
 *       {@code /internal/v1/users/{sub}/following/{targetId}}: the actor is the token's subject, never a client
 *       value, so no request can write as anyone else;</li>
 *   <li>{@code GET /v1/users/**} and {@code POST /v1/users/{id}/following/contains} → check service
 *       {@code /internal/v1/users/**}.</li>
 * </ul>
 * Both go through Spring Cloud LoadBalancer ({@link LoadBalancing}): reads to the check instance that owns the
 * path's user id's logical shard, writes round-robin. Nothing else is routed: {@code /internal/**} from outside is
 * a 404 (except the check path when {@code graph.gateway.bare-route} is on, for benchmarks only). Paths are checked
 * by {@link PathGuard} first, so a dot segment or an encoded slash can never walk a rewritten path out of
 * {@code /internal/v1/users}.
 */
@Configuration(proxyBeanMethods = false)
class RoutesConfiguration {

    /** Route id of the benchmark-only route ({@code graph.gateway.bare-route}). */
    static final String BARE_ROUTE = "bare";

    @Bean
    LocalTokenBuckets readLimiter(GatewayProperties properties, ReactiveStringRedisTemplate redis, MeterRegistry meters) {
        return limiter("reads", properties.reads(), redis, meters);
    }

    @Bean
    LocalTokenBuckets writeLimiter(GatewayProperties properties, ReactiveStringRedisTemplate redis, MeterRegistry meters) {
        return limiter("writes", properties.writes(), redis, meters);
    }

    private static LocalTokenBuckets limiter(String name, GatewayProperties.Budget budget,
                                             ReactiveStringRedisTemplate redis, MeterRegistry meters) {
        TokenReservations reservations = new TokenReservations(redis, name, budget.replenishRate(), budget.burstCapacity());
        return new LocalTokenBuckets(reservations::reserve, budget.batchSize(), System::nanoTime,
                meters.counter("graph.gateway.ratelimit.reservations", "budget", name));
    }

    @Bean
    RouteLocator routes(RouteLocatorBuilder builder, GatewayProperties properties, ProblemResponses problems,
                        @Qualifier("readLimiter") LocalTokenBuckets readLimiter,
                        @Qualifier("writeLimiter") LocalTokenBuckets writeLimiter, MeterRegistry meters) {
        RateLimits limits = new RateLimits(problems, meters);
        RouteLocatorBuilder.Builder routes = builder.routes()
                .route("follow-write", r -> r.path("/v1/me/following/{targetId}")
                        .and().method(HttpMethod.PUT, HttpMethod.DELETE)
                        .filters(f -> f.filter(limits.filter(writeLimiter, "writes", properties.writes().replenishRate()))
                                .filter(actorFromToken(problems)))
                        .uri("lb://" + LoadBalancing.WRITE_SERVICE))
                .route("reads", r -> r.path("/v1/users/**")
                        .and().method(HttpMethod.GET, HttpMethod.POST)
                        .filters(f -> f.filter(limits.filter(readLimiter, "reads", 0))
                                .rewritePath("/v1/(?<rest>.*)", "/internal/v1/${rest}"))
                        .uri("lb://" + LoadBalancing.CHECK_SERVICE));
        if (properties.bareRoute()) {
            // Spring Cloud Gateway's floor for the benchmark: the service's own path, so nothing is rewritten; no
            // route filter; RequestIds skips this route; Spring Security lets /internal/** through (permitAll).
            routes.route(BARE_ROUTE, r -> r.path("/internal/v1/users/{id}/following/{targetId}")
                    .and().method(HttpMethod.GET)
                    .uri(properties.checkUri()));
        }
        return routes.build();
    }

    /** Rewrites {@code /v1/me/following/{targetId}} to the token subject's internal path. */
    static GatewayFilter actorFromToken(ProblemResponses problems) {
        return (exchange, chain) -> exchange.getPrincipal()
                .cast(JwtAuthenticationToken.class)
                .flatMap(auth -> {
                    Map<String, String> vars = ServerWebExchangeUtils.getUriTemplateVariables(exchange);
                    String target = vars.getOrDefault("targetId", "");
                    long targetId;
                    try {
                        targetId = UserIds.parse(target, "targetId");
                    } catch (InvalidUserIdException e) {
                        return problems.write(exchange, HttpStatus.BAD_REQUEST, "Bad Request", e.getMessage(), "targetId");
                    }
                    String path = "/internal/v1/users/" + auth.getToken().getSubject() + "/following/" + targetId;
                    return chain.filter(exchange.mutate().request(r -> r.path(path)).build());
                });
    }
}
