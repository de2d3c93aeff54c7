package dev.socialgraph.check;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Entry point of the follow-check-service (DESIGN.md 1; default port 8081). */
@SpringBootApplication
@ConfigurationPropertiesScan
public class FollowCheckServiceApplication {

    /** Starts the service; arguments are Spring Boot command-line properties. */
    public static void main(String[] args) {
        SpringApplication.run(FollowCheckServiceApplication.class, args);
    }
}
