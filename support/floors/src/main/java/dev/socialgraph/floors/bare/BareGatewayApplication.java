package dev.socialgraph.floors.bare;

import dev.socialgraph.web.ReactiveServiceGuardAutoConfiguration;
import dev.socialgraph.wire.InternalApi;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cloud.gateway.config.HttpClientCustomizer;
import org.springframework.cloud.gateway.filter.headers.HttpHeadersFilter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;

/**
 * The floor of the gateway hop: Spring Cloud Gateway with one route, {@code GET
 * /internal/v1/users/{id}/following/{targetId}} to the check service at {@code floor.bare.check-uri} as it is, and
 * nothing of the product gateway's own: no token, no rate limit, no load balancer, no path rewrite, no request id, no
 * Spring Security. The one header it adds is the service credential ({@link ServiceTokenHeader}), without which the
 * check service answers 401. HopBench measures it beside the product gateway, so their difference is what the
 * gateway's own work costs per proxied check.
 *
 * <p>The proxy is tuned as the product gateway's (its {@code application.yml} and {@code HttpClientTuning}), so the
 * floor differs from it by the gateway's filters alone: Reactor Netty's response timeout on the connection instead
 * of Spring Cloud Gateway's per-request timer, a fixed pool of 256 connections per service instance, per-route
 * metrics, the proxied call's own observation and the forwarding headers off, route filter lists cached. HopBench
 * starts it with the gateway's JVM flags (one event loop, the throughput collector).
 *
 * <p>Settings come from {@code bare-gateway.yml}; the service credential from {@code GRAPH_SERVICE_TOKEN}. It listens
 * on 127.0.0.1 only: it opens the check path to anyone who can reach it, so it must never run beside a real
 * deployment.
 */
@SpringBootApplication(exclude = ReactiveServiceGuardAutoConfiguration.class)
@EnableConfigurationProperties(BareGatewayProperties.class)
public class BareGatewayApplication {

    /** The one route's id. */
    static final String ROUTE = "bare";

    /** The one path routed, the check service's single check. */
    public static final String CHECK_PATH = InternalApi.USERS + "/{id}/following/{targetId}";

    /**
     * Starts the bare gateway.
     *
     * @param args Spring Boot command-line properties, e.g. {@code --server.port=…},
     *             {@code --floor.bare.check-uri=http://127.0.0.1:8081}
     * @return the running application, closed to stop it
     */
    public static ConfigurableApplicationContext run(String... args) {
        SpringApplication application = new SpringApplication(BareGatewayApplication.class);
        // bare-gateway.yml, not application.yml: the hello floor shares the jar and has a file of its own.
        application.setDefaultProperties(Map.of("spring.config.name", "bare-gateway"));
        return application.run(args);
    }

    @Bean
    RouteLocator bareRoute(RouteLocatorBuilder builder, BareGatewayProperties properties) {
        // The service's own path, so nothing is rewritten; no route filter.
        return builder.routes()
                .route(ROUTE, r -> r.path(CHECK_PATH).and().method(HttpMethod.GET).uri(properties.checkUri()))
                .build();
    }

    @Bean
    HttpHeadersFilter serviceTokenHeader(BareGatewayProperties properties) {
        return new ServiceTokenHeader(properties.serviceToken());
    }

    /**
     * Reactor Netty's read timeout on the proxied connection, as the product gateway sets it, rather than Spring
     * Cloud Gateway's {@code httpclient.response-timeout}, which schedules and cancels a timer on a shared scheduler
     * per request.
     */
    @Bean
    HttpClientCustomizer responseTimeout(BareGatewayProperties properties) {
        return client -> client.responseTimeout(properties.responseTimeout());
    }
}
