package dev.socialgraph.web;

import dev.socialgraph.common.problem.ProblemType;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The management port of a reactive service serves the actuator and nothing else: any other path is answered 404
 * problem+json before routing.
 *
 * <p>Why it is needed: Spring Boot runs the actuator on {@code management.server.port} in a child context, and
 * WebFlux's {@code DispatcherHandler} there collects handler mappings from the parent context too
 * ({@code BeanFactoryUtils.beansOfTypeIncludingAncestors}): the check service's functional routes and the gateway's
 * Spring Cloud Gateway routes were answered on the management port, without the API port's web filters (the service
 * credential, the gateway's bearer token chain). The management port is open to the monitoring namespace, so it must
 * be no second way into the API.
 */
final class ActuatorOnlyWebFilter implements WebFilter, Ordered {

    private final ActuatorPath actuator;

    /**
     * @param actuatorBasePath the actuator's base path ({@code management.endpoints.web.base-path}), e.g.
     *                         {@code /actuator}
     */
    ActuatorOnlyWebFilter(String actuatorBasePath) {
        this.actuator = new ActuatorPath(actuatorBasePath);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String path = exchange.getRequest().getPath().value();
        if (actuator.containsPlainlyRaw(path)) {
            return chain.filter(exchange);
        }
        return ReactiveProblems.write(exchange, ProblemType.NOT_FOUND.status(), ProblemJson.of(ProblemType.NOT_FOUND,
                "the management port serves the actuator only", path, null));
    }
}
