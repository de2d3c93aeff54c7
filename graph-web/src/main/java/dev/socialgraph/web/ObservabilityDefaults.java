package dev.socialgraph.web;

import dev.socialgraph.wire.Headers;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * The tracing and log-correlation settings every service and the gateway share (DESIGN.md 8), in one place rather
 * than in five {@code application.yml} files. Added as the environment's last property source, so each is a default:
 * a service's {@code application.yml}, a command-line argument or an environment variable
 * ({@code MANAGEMENT_TRACING_SAMPLING_PROBABILITY}, …) overrides it.
 *
 * <ul>
 *   <li>{@code management.tracing.sampling.probability=0.1}: one request in ten is recorded (Spring Boot's default,
 *       stated here because operators look for it); the gateway decides and every later hop follows its decision
 *       (parent-based sampling), through Kafka too.</li>
 *   <li>{@code management.tracing.baggage.remote-fields=X-Request-Id}: the request id the gateway issues travels as
 *       its own header between services (not inside W3C {@code baggage}), read into the trace context on the
 *       way in and written on the way out.</li>
 *   <li>{@code management.tracing.baggage.correlation.fields=X-Request-Id}: and it is put into the logging context
 *       (SLF4J MDC) beside {@code traceId} and {@code spanId} while a span is current.</li>
 *   <li>{@code logging.pattern.correlation=[<traceId>,<spanId>,<X-Request-Id>] }: the human-readable console line
 *       shows the three; structured JSON logs ({@code logging.structured.format.console=ecs}, set by the deployment)
 *       carry them as fields of their own.</li>
 *   <li>{@code management.tracing.exemplars.include=none} in a reactive application only (see
 *       {@link #isReactive}).</li>
 * </ul>
 *
 * <p>Span export (OTLP/HTTP) stays off until {@code management.opentelemetry.tracing.export.otlp.endpoint} is set
 * (graph-web README).
 */
public final class ObservabilityDefaults implements EnvironmentPostProcessor {

    /** Name of the property source. */
    static final String NAME = "graphObservabilityDefaults";

    /** The request id header and baggage field; the gateway's {@code RequestIds} issues it. */
    static final String REQUEST_ID = Headers.REQUEST_ID;

    /**
     * The gateway and the check service (WebFlux): their spans are never current on a thread (no thread-local scope
     * without Reactor's automatic context propagation), so a Prometheus exemplar would never be found, while looking
     * for one is work on every timer and counter record, the check's {@code graph.check.latency} included.
     */
    private static boolean isReactive(ConfigurableEnvironment environment, SpringApplication application) {
        String configured = environment.getProperty("spring.main.web-application-type");
        if (configured != null) {
            return configured.trim().equalsIgnoreCase(WebApplicationType.REACTIVE.name());
        }
        return application != null && application.getWebApplicationType() == WebApplicationType.REACTIVE;
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        Map<String, Object> defaults = new LinkedHashMap<>();
        defaults.put("management.tracing.sampling.probability", "0.1");
        defaults.put("management.tracing.baggage.remote-fields", REQUEST_ID);
        defaults.put("management.tracing.baggage.correlation.fields", REQUEST_ID);
        // Lines outside any span (start-up, background work) get nothing rather than "[,,] ".
        defaults.put("logging.pattern.correlation",
                "%replace([%X{traceId:-},%X{spanId:-},%X{" + REQUEST_ID + ":-}] ){'\\[,,\\] ',''}");
        if (isReactive(environment, application)) {
            defaults.put("management.tracing.exemplars.include", "none");
        }
        environment.getPropertySources().addLast(new MapPropertySource(NAME, defaults));
    }
}
