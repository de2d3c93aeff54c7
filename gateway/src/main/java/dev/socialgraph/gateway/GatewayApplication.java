package dev.socialgraph.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Entry point of the gateway (DESIGN.md 1; default port 8080). */
@SpringBootApplication
@ConfigurationPropertiesScan
public class GatewayApplication {

    /** Starts the service; arguments are Spring Boot command-line properties. */
    public static void main(String[] args) {
        SpringApplication.run(GatewayApplication.class, args);
    }
}
