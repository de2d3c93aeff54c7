package dev.socialgraph.reconciler;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Entry point of the reconciler (DESIGN.md 1; default port 8084). */
@SpringBootApplication
@ConfigurationPropertiesScan
public class ReconcilerApplication {

    /** Starts the service; arguments are Spring Boot command-line properties. */
    public static void main(String[] args) {
        SpringApplication.run(ReconcilerApplication.class, args);
    }
}
