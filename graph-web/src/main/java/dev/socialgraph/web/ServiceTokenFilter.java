package dev.socialgraph.web;

import dev.socialgraph.wire.Headers;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Lets a request through only when its {@code X-Service-Token} header equals the deployment's service credential
 * ({@code graph.service-token}); anything else is answered 401 problem+json and counted as
 * {@code graph.web.rejected{reason=missing-service-token|wrong-service-token}}. The actuator (probes, Prometheus)
 * stays open: kubelets and scrapers carry no credential, and it serves no data or operations.
 *
 * <p>The rule itself (a constant-time comparison, the counters) is {@link CredentialRule}, shared with the reactive
 * guard.
 */
final class ServiceTokenFilter extends OncePerRequestFilter {

    /** The header every caller of a service (gateway, graph-client, launcher, tools) sends the credential in. */
    static final String HEADER = Headers.SERVICE_TOKEN;

    private final CredentialRule rule;

    /**
     * @param serviceTokens    the credentials accepted ({@link ServiceGuardProperties#acceptedServiceTokens})
     * @param actuatorBasePath the actuator's base path ({@code management.endpoints.web.base-path}), e.g.
     *                         {@code /actuator}
     * @param meters           where the rejections are counted
     */
    ServiceTokenFilter(List<String> serviceTokens, String actuatorBasePath, MeterRegistry meters) {
        this.rule = new CredentialRule(serviceTokens, actuatorBasePath, meters);
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        // Both the raw path (what Spring MVC's handler mapping matches) and the container's normalised path (after
        // dot segments and path parameters) must be the actuator's: "/actuator/../internal/..." is not exempt.
        String raw = request.getRequestURI().substring(request.getContextPath().length());
        String normalised = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        return rule.isExempt(raw) && rule.isActuator(normalised);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Problems refusal = rule.refusal(request.getHeader(HEADER));
        if (refusal != null) {
            refusal.write(response);
            return;
        }
        chain.doFilter(request, response);
    }
}
