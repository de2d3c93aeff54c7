package dev.socialgraph.web;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * The service guard of every servlet service (check, write, cdc-consumer, reconciler): two filters in front of
 * everything the service serves,
 * <ol>
 *   <li>{@link ServiceTokenFilter}: {@code X-Service-Token} must equal {@code graph.service-token} on every path
 *       but the actuator's, else 401 problem+json;</li>
 *   <li>{@link BodySizeLimitFilter}: a body over {@code graph.web.max-request-size} (1 MB) gets 413
 *       problem+json.</li>
 * </ol>
 * The credential check runs first, so an anonymous caller cannot make a service read even a bounded body. Both run
 * ahead of Spring MVC and of every filter a service adds. A service without {@code graph.service-token} does not
 * start ({@link ServiceGuardProperties}).
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@EnableConfigurationProperties(ServiceGuardProperties.class)
public class ServiceGuardAutoConfiguration {

    /** Order of the credential filter: right after Spring's character-encoding and observation filters. */
    static final int TOKEN_ORDER = Ordered.HIGHEST_PRECEDENCE + 10;

    @Bean
    FilterRegistrationBean<ServiceTokenFilter> serviceTokenFilter(
            ServiceGuardProperties properties, MeterRegistry meters,
            @Value("${management.endpoints.web.base-path:/actuator}") String actuatorBasePath) {
        var registration = new FilterRegistrationBean<>(
                new ServiceTokenFilter(properties.acceptedServiceTokens(), actuatorBasePath, meters));
        registration.setOrder(TOKEN_ORDER);
        return registration;
    }

    @Bean
    FilterRegistrationBean<BodySizeLimitFilter> bodySizeLimitFilter(ServiceGuardProperties properties,
                                                                    MeterRegistry meters) {
        var registration = new FilterRegistrationBean<>(
                new BodySizeLimitFilter(properties.web().maxRequestSize().toBytes(), meters));
        registration.setOrder(TOKEN_ORDER + 1);
        return registration;
    }
}
