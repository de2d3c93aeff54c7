package dev.socialgraph.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.testsupport.ActuatorProbe;
import dev.socialgraph.testsupport.GuardProbe;
import dev.socialgraph.testsupport.TestShards;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@SpringBootTest(classes = CdcConsumerApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class ServiceProbesIT {

    private static final TestShards SHARDS = TestShards.create("cdc_probes");
    private static final CdcHarness KAFKA = new CdcHarness("cdc-probes");

    @DynamicPropertySource
    static void shards(DynamicPropertyRegistry registry) {
        KAFKA.properties(SHARDS).forEach((k, v) -> registry.add(k, () -> v));
    }

    @AfterAll
    static void dropShards() {
        KAFKA.close();
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Test
    void servesProbesAndPrometheus_onTheManagementPortOnly() {
        ActuatorProbe.assertProbesUpAndScraped(managementPort, "cdc-consumer");
        ActuatorProbe.assertNoActuatorOn(port, Map.of("X-Service-Token", ServiceProcess.SERVICE_TOKEN));
    }

    @Test
    void prometheus_exposesAppliedEventsRewritesAndConsumerLag() {
        KAFKA.publish(FollowEvent.follow(1, 2, 1_700_000_000_000L, 1, 1_700_000_000_000L));
        KAFKA.awaitCaughtUp();

        String scrape = ActuatorProbe.get(managementPort, "/actuator/prometheus").body();

        assertThat(scrape).contains("graph_cdc_events_applied_total{", "type=\"follow\"",
                "graph_cdc_row_rewrites_total", "graph_cdc_batch_size_records_count",
                "graph_cdc_events_dead_lettered_total", "graph_cdc_celebrity_migrations_total",
                "kafka_consumer_fetch_manager_records_lag_max");
    }

    @Test
    void everyPathOfTheApiPort_needsTheServiceCredential() {
        // cdc-consumer serves no API (the actuator is on the management port): any path is refused before it could be
        // a 404.
        GuardProbe.assertRefusedWithoutCredential(port, "GET", "/internal/v1/anything");
        GuardProbe.assertRefusedWithoutCredential(port, "POST", "/admin/anything");
        GuardProbe.assertOversizedBodyRefused(port, "POST", "/admin/anything", ServiceProcess.SERVICE_TOKEN);

        assertThat(GuardProbe.call(port, "GET", "/internal/v1/anything", ServiceProcess.SERVICE_TOKEN).statusCode())
                .isEqualTo(404);
        assertThat(ActuatorProbe.get(managementPort, "/actuator/prometheus").body())
                .contains("graph_web_rejected_total{", "reason=\"missing-service-token\"");
    }

    @Test
    void aPathTomcatRefusesItself_isProblemJson() {
        // An encoded NUL never reaches Spring: Tomcat answers it, through graph-web's error report valve.
        GuardProbe.assertTomcatRefusalIsProblem(port, ServiceProcess.SERVICE_TOKEN);
    }

    @Test
    void theManagementPort_servesTheActuatorAndNothingOfTheApi() {
        // Asked with the service credential: the management port is reachable from the monitoring namespace, which
        // must not get a way around the API port's network policy.
        ActuatorProbe.assertOnlyActuatorOn(managementPort,
                List.of("/internal/v1/anything", "/admin/anything"),
                Map.of("X-Service-Token", ServiceProcess.SERVICE_TOKEN));
    }
}
