package dev.socialgraph.web;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The reactive services' {@link ServiceTokenFilter}: the same rule, answers and meters. A request passes only when
 * its {@code X-Service-Token} equals {@code graph.service-token} (compared with {@link MessageDigest#isEqual});
 * otherwise 401 problem+json, counted as {@code graph.web.rejected{reason=missing-service-token|wrong-service-token}}.
 * The actuator's paths stay open.
 *
 * <p>WebFlux matches routes against the raw path, without resolving dot segments or path parameters, so a path is
 * exempt only when it is the actuator's and holds no {@code ..}, {@code ;} or percent-encoding, none of which an
 * actuator path needs: {@code /actuator/../internal/...} carries the credential like any other.
 */
final class ServiceTokenWebFilter implements WebFilter, Ordered {

    private static final Problems MISSING = Problems.missingToken();
    private static final Problems WRONG = Problems.wrongToken();

    private final byte[] expected;
    private final String actuatorBasePath;
    private final Counter missing;
    private final Counter wrong;

    /**
     * @param serviceToken     the credential, not blank
     * @param actuatorBasePath the actuator's base path ({@code management.endpoints.web.base-path}), e.g.
     *                         {@code /actuator}; not {@code /}
     * @param meters           where the rejections are counted
     */
    ServiceTokenWebFilter(String serviceToken, String actuatorBasePath, MeterRegistry meters) {
        if (serviceToken == null || serviceToken.isBlank()) {
            throw new IllegalArgumentException("the service token must not be blank");
        }
        if (!actuatorBasePath.startsWith("/") || actuatorBasePath.length() < 2) {
            throw new IllegalArgumentException("management.endpoints.web.base-path must be a path below /, was '"
                    + actuatorBasePath + "'");
        }
        this.expected = serviceToken.getBytes(StandardCharsets.UTF_8);
        this.actuatorBasePath = actuatorBasePath.endsWith("/")
                ? actuatorBasePath.substring(0, actuatorBasePath.length() - 1) : actuatorBasePath;
        this.missing = Rejections.counter(meters, "missing-service-token");
        this.wrong = Rejections.counter(meters, "wrong-service-token");
    }

    @Override
    public int getOrder() {
        return ServiceGuardAutoConfiguration.TOKEN_ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String presented = exchange.getRequest().getHeaders().getFirst(ServiceTokenFilter.HEADER);
        if (presented != null && !presented.isEmpty()
                && MessageDigest.isEqual(expected, presented.getBytes(StandardCharsets.UTF_8))) {
            return chain.filter(exchange);
        }
        if (isActuator(exchange.getRequest().getPath().pathWithinApplication().value())) {
            return chain.filter(exchange);
        }
        if (presented == null || presented.isEmpty()) {
            missing.increment();
            return ReactiveProblems.write(exchange, MISSING.status(), MISSING.body());
        }
        wrong.increment();
        return ReactiveProblems.write(exchange, WRONG.status(), WRONG.body());
    }

    private boolean isActuator(String path) {
        return (path.equals(actuatorBasePath) || path.startsWith(actuatorBasePath + "/"))
                && !path.contains("..") && !path.contains(";") && !path.contains("%");
    }
}
