package dev.socialgraph.web;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The reactive services' {@link ServiceTokenFilter}: the same rule, answers and meters. A request passes only when
 * its {@code X-Service-Token} equals {@code graph.service-token} (the shared {@link CredentialRule});
 * otherwise 401 problem+json, counted as {@code graph.web.rejected{reason=missing-service-token|wrong-service-token}}.
 * The actuator's paths stay open.
 *
 * <p>WebFlux matches routes against the raw path, without resolving dot segments or path parameters, so a path is
 * exempt only when it is the actuator's and holds no {@code ..}, {@code ;} or percent-encoding, none of which an
 * actuator path needs: {@code /actuator/../internal/...} carries the credential like any other.
 */
final class ServiceTokenWebFilter implements WebFilter, Ordered {

    private final CredentialRule rule;

    /**
     * @param serviceTokens    the credentials accepted ({@link ServiceGuardProperties#acceptedServiceTokens})
     * @param actuatorBasePath the actuator's base path ({@code management.endpoints.web.base-path}), e.g.
     *                         {@code /actuator}; not {@code /}
     * @param meters           where the rejections are counted
     */
    ServiceTokenWebFilter(List<String> serviceTokens, String actuatorBasePath, MeterRegistry meters) {
        this.rule = new CredentialRule(serviceTokens, actuatorBasePath, meters);
    }

    @Override
    public int getOrder() {
        return ServiceGuardAutoConfiguration.TOKEN_ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String path = exchange.getRequest().getPath().pathWithinApplication().value();
        if (rule.isExemptRaw(path)) { // WebFlux matches the raw path
            return chain.filter(exchange);
        }
        Problems refusal = rule.refusal(exchange.getRequest().getHeaders().getFirst(ServiceTokenFilter.HEADER));
        if (refusal != null) {
            return ReactiveProblems.write(exchange, refusal.status(), refusal.body());
        }
        return chain.filter(exchange);
    }
}
