package dev.socialgraph.web;

import dev.socialgraph.common.token.ServiceCredential;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Lets a request through only when its {@code X-Service-Token} header equals the deployment's service credential
 * ({@code graph.service-token}); anything else is answered 401 problem+json and counted as
 * {@code graph.web.rejected{reason=missing-service-token|wrong-service-token}}. The actuator (probes, Prometheus)
 * stays open: kubelets and scrapers carry no credential, and it serves no data or operations.
 *
 * <p>The comparison is {@link MessageDigest#isEqual}, whose time does not depend on the presented value's contents,
 * so the credential cannot be guessed byte by byte from answer times.
 */
final class ServiceTokenFilter extends OncePerRequestFilter {

    /** The header every caller of a service (gateway, graph-client, launcher, tools) sends the credential in. */
    static final String HEADER = ServiceCredential.HEADER;

    private static final Problems MISSING = Problems.missingToken();
    private static final Problems WRONG = Problems.wrongToken();

    private final byte[] expected;
    private final String actuatorBasePath;
    private final Counter missing;
    private final Counter wrong;

    /**
     * @param serviceToken     the credential, not blank
     * @param actuatorBasePath the actuator's base path ({@code management.endpoints.web.base-path}), e.g.
     *                         {@code /actuator}
     * @param meters           where the rejections are counted
     */
    ServiceTokenFilter(String serviceToken, String actuatorBasePath, MeterRegistry meters) {
        if (serviceToken == null || serviceToken.isBlank()) {
            throw new IllegalArgumentException("the service token must not be blank");
        }
        if (!actuatorBasePath.startsWith("/") || actuatorBasePath.length() < 2) {
            // "/" would exempt every path: the actuator must have a base path of its own here.
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
    protected boolean shouldNotFilter(HttpServletRequest request) {
        // Both the raw path (what Spring MVC's handler mapping matches) and the container's normalised path (after
        // dot segments and path parameters) must be the actuator's: "/actuator/../internal/..." is not exempt.
        String raw = request.getRequestURI().substring(request.getContextPath().length());
        String normalised = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        return isActuator(raw) && isActuator(normalised) && !raw.contains("..") && !raw.contains(";");
    }

    private boolean isActuator(String path) {
        return path.equals(actuatorBasePath) || path.startsWith(actuatorBasePath + "/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String presented = request.getHeader(HEADER);
        if (presented == null || presented.isEmpty()) {
            missing.increment();
            MISSING.write(response);
            return;
        }
        if (!MessageDigest.isEqual(expected, presented.getBytes(StandardCharsets.UTF_8))) {
            wrong.increment();
            WRONG.write(response);
            return;
        }
        chain.doFilter(request, response);
    }
}
