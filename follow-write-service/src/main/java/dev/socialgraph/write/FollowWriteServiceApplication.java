package dev.socialgraph.write;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Entry point of the follow-write-service (DESIGN.md 1; default port 8082). */
@SpringBootApplication
@ConfigurationPropertiesScan
public class FollowWriteServiceApplication {

    /** Starts the service; arguments are Spring Boot command-line properties. */
    public static void main(String[] args) {
        SpringApplication.run(FollowWriteServiceApplication.class, args);
    }
}
