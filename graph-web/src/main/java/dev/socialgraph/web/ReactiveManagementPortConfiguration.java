package dev.socialgraph.web;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

/**
 * What the management port's own context (Spring Boot's child context on {@code management.server.port}) adds in a
 * reactive service, the gateway included: {@link ActuatorOnlyWebFilter}, so that port serves the actuator and
 * nothing of the API. A servlet service's management context serves only the actuator by itself (its
 * {@code ServiceProbesIT} asserts it).
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
public class ReactiveManagementPortConfiguration {

    @Bean
    ActuatorOnlyWebFilter actuatorOnlyWebFilter(
            @Value("${management.endpoints.web.base-path:/actuator}") String actuatorBasePath) {
        return new ActuatorOnlyWebFilter(actuatorBasePath);
    }
}
