package dev.socialgraph.floors.hello;

import dev.socialgraph.wire.InternalApi;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.config.GatewayNoLoadBalancerClientAutoConfiguration;
import org.springframework.cloud.gateway.config.GatewayTracingAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The floor of the check service's HTTP path: {@code GET /internal/v1/hello} answers the constant
 * {@code {"hello":"world"}}, pre-encoded, from a WebFlux functional route on Reactor Netty, the check service's server
 * stack, behind the same guard (graph-web's reactive service guard: {@code X-Service-Token} required, the body limit,
 * problem+json errors, Netty's refusals with bodies) and the same request observation, meters and tracing defaults;
 * and nothing else, no store, no cache. HopBench measures it beside the direct check, so their ratio is what the
 * check's own work costs over the stack it runs on.
 *
 * <p>Settings come from {@code hello.yml} (the check service's server settings; Spring Cloud Gateway, which shares
 * this jar, is switched off); the credential from {@code GRAPH_SERVICE_TOKEN}, without which it does not start, as
 * the service. It listens on 127.0.0.1 only.
 */
// The auto-configurations of Spring Cloud Gateway that spring.cloud.gateway.server.webflux.enabled=false leaves on: a
// global filter, and an observation handler every observation (the request's too) would be offered.
@SpringBootApplication(exclude = {GatewayNoLoadBalancerClientAutoConfiguration.class,
        GatewayTracingAutoConfiguration.class})
public class HelloApplication {

    /** The one path answered. */
    public static final String PATH = InternalApi.PREFIX + "/hello";

    /** The constant answer, encoded once. */
    static final byte[] BODY = "{\"hello\":\"world\"}".getBytes(StandardCharsets.US_ASCII);

    /**
     * Starts the hello floor.
     *
     * @param args Spring Boot command-line properties, e.g. {@code --server.port=…}
     * @return the running application, closed to stop it
     */
    public static ConfigurableApplicationContext run(String... args) {
        SpringApplication application = new SpringApplication(HelloApplication.class);
        // hello.yml, not application.yml: the bare gateway shares the jar and has a file of its own.
        application.setDefaultProperties(Map.of("spring.config.name", "hello"));
        return application.run(args);
    }

    @Bean
    RouterFunction<ServerResponse> hello() {
        return RouterFunctions.route(RequestPredicates.method(HttpMethod.GET).and(RequestPredicates.path(PATH)),
                request -> ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(BODY));
    }
}
