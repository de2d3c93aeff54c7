package dev.socialgraph.web;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.http.codec.CodecCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * The service guard and problem mapping of every reactive service (WebFlux on Reactor Netty), the counterpart of
 * {@link ServiceGuardAutoConfiguration} and {@link ProblemAutoConfiguration} with the same properties, answers and
 * meters:
 * <ol>
 *   <li>{@link ServiceTokenWebFilter}: {@code X-Service-Token} must equal {@code graph.service-token} on every
 *       path but the actuator's, else 401 problem+json;</li>
 *   <li>{@link RequestBodyLimitWebFilter}: a body over {@code graph.web.max-request-size} (1 MB) gets 413
 *       problem+json, and the codecs decode bodies up to that size;</li>
 *   <li>{@link ProblemWebExceptionHandler}: every error as problem+json;</li>
 *   <li>{@link MalformedRequests}: problem+json bodies for what Netty's HTTP decoder refuses itself (a request line
 *       or headers too long, a request it cannot parse).</li>
 * </ol>
 * A service without {@code graph.service-token} does not start ({@link ServiceGuardProperties}). The gateway, the
 * public edge with its own guard (JWT), excludes this configuration and uses {@link MalformedRequests},
 * {@link RequestBodyLimitWebFilter} and {@link ProblemJson} directly.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@EnableConfigurationProperties(ServiceGuardProperties.class)
public class ReactiveServiceGuardAutoConfiguration {

    @Bean
    ServiceTokenWebFilter serviceTokenWebFilter(
            ServiceGuardProperties properties, MeterRegistry meters,
            @Value("${management.endpoints.web.base-path:/actuator}") String actuatorBasePath) {
        return new ServiceTokenWebFilter(properties.acceptedServiceTokens(), actuatorBasePath, meters);
    }

    @Bean
    RequestBodyLimitWebFilter requestBodyLimitWebFilter(ServiceGuardProperties properties, MeterRegistry meters) {
        return new RequestBodyLimitWebFilter(properties.web().maxRequestSize().toBytes(), meters);
    }

    /**
     * The codecs hold a body up to {@code graph.web.max-request-size} in memory (Spring's default is 256 KB): every
     * body the limit lets through can be decoded, and every larger one was refused before it was read.
     */
    @Bean
    CodecCustomizer requestSizeCodecs(ServiceGuardProperties properties) {
        int maxBytes = (int) properties.web().maxRequestSize().toBytes();
        return configurer -> configurer.defaultCodecs().maxInMemorySize(maxBytes);
    }

    @Bean
    ProblemWebExceptionHandler problemWebExceptionHandler() {
        return new ProblemWebExceptionHandler();
    }

    @Bean
    MalformedRequests malformedRequests() {
        return new MalformedRequests();
    }
}
