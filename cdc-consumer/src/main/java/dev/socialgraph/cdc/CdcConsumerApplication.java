package dev.socialgraph.cdc;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Entry point of the cdc-consumer (DESIGN.md 1; default port 8083). */
@SpringBootApplication
@ConfigurationPropertiesScan
public class CdcConsumerApplication {

    /** Starts the service; arguments are Spring Boot command-line properties. */
    public static void main(String[] args) {
        SpringApplication.run(CdcConsumerApplication.class, args);
    }
}
