package dev.socialgraph.gateway;

import dev.socialgraph.web.ReactiveServiceGuardAutoConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * Entry point of the gateway (DESIGN.md 1; default port 8080). It is the public edge with a guard of its own (JWT,
 * rate limits): graph-web's service guard, which demands the service credential of every caller, is left out.
 */
@SpringBootApplication(exclude = ReactiveServiceGuardAutoConfiguration.class)
@ConfigurationPropertiesScan
public class GatewayApplication {

    /** Starts the service; arguments are Spring Boot command-line properties. */
    public static void main(String[] args) {
        SpringApplication.run(GatewayApplication.class, args);
    }
}
