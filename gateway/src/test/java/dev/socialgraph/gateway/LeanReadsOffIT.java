package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.wire.PublicApi;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * With {@code graph.gateway.lean-reads.enabled=false} the public GET reads are Spring Cloud Gateway's routes again:
 * proxied to the same internal paths with the same headers, and timed with the unknown {@code uri} of a routed
 * request.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class LeanReadsOffIT {

    static final LeanReadsIT.Stub SERVICE = LeanReadsIT.Stub.start();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.jwt-secret", () -> LeanReadsIT.SECRET);
        registry.add("graph.gateway.check-uri", SERVICE::uri);
        registry.add("graph.gateway.write-uri", SERVICE::uri);
        registry.add("spring.data.redis.url", () -> TestServers.redis().uri(TestServers.redis().freshDatabase()));
        registry.add("graph.gateway.lean-reads.enabled", () -> "false");
    }

    @AfterAll
    static void stop() {
        SERVICE.server.stop(0);
    }

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry meters;

    @Autowired
    ApplicationContext context;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private double routed() {
        return meters.find("http.server.requests").tag("uri", "UNKNOWN").tag("status", "200").timers().stream()
                .mapToDouble(Timer::count).sum();
    }

    @Test
    void theReads_areProxiedByTheRoutes_toTheSameInternalPaths() throws Exception {
        String bearer = "Bearer " + LeanReadsIT.token(LeanReadsIT.SECRET, 301);
        double before = routed();
        for (LeanReadsIT.Read read : LeanReadsIT.reads(301)) {
            SERVICE.calls.clear();
            HttpResponse<String> r = LeanReadsIT.get(http, port, read.path(), "Authorization", bearer,
                    "X-Request-Id", "off-1", "X-Viewer-Id", "999");

            assertThat(r.statusCode()).as(read.operation()).isEqualTo(200);
            assertThat(r.headers().firstValue("X-Served-By")).as(read.operation()).hasValue("stub-check");
            assertThat(SERVICE.calls).as(read.operation()).singleElement().satisfies(call -> {
                assertThat(call.uri()).isEqualTo(read.internal());
                assertThat(call.serviceToken()).isEqualTo(LeanReadsIT.SERVICE_TOKEN);
                assertThat(call.requestId()).isEqualTo("off-1");
                assertThat(call.publicPath()).isEqualTo(read.publicPath());
                // The token's subject where the answer depends on who asks (the reads' route sets it on every read
                // of a user); never the one the client sent.
                assertThat(call.viewer()).isNotEqualTo("999");
                if (RoutesConfiguration.VIEWER_READS.stream().anyMatch(e -> e.name().equals(read.operation()))) {
                    assertThat(call.viewer()).isEqualTo("301");
                }
            });
        }
        int reads = LeanReadsIT.reads(301).size();
        await().untilAsserted(() -> assertThat(routed()).isEqualTo(before + reads));
        assertThat(meters.find("http.server.requests").tag("uri", PublicApi.COUNT_FOLLOWS.template()).timers())
                .isEmpty();
        assertThat(context.getBeansOfType(LeanReads.LeanReadMapping.class)).isEmpty();
    }
}
