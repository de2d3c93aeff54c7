package dev.socialgraph.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.testsupport.ActuatorProbe;
import dev.socialgraph.testsupport.GuardProbe;
import dev.socialgraph.testsupport.TestShards;
import dev.socialgraph.testsupport.WireRoutes;
import dev.socialgraph.wire.InternalApi;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

@SpringBootTest(classes = ReconcilerApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ServiceProbesIT {

    private static final TestShards SHARDS = TestShards.create("reconciler_probes");

    @DynamicPropertySource
    static void shards(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
    }

    @AfterAll
    static void dropShards() {
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Test
    void servesProbesAndPrometheus_onTheManagementPortOnly() {
        ActuatorProbe.assertProbesUpAndScraped(managementPort, "reconciler");
        ActuatorProbe.assertNoActuatorOn(port, Map.of("X-Service-Token", ServiceProcess.SERVICE_TOKEN));
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
                List.of("/admin/scans/1", "/admin/snapshots"),
                Map.of("X-Service-Token", ServiceProcess.SERVICE_TOKEN));
    }

    @Autowired
    @Qualifier("requestMappingHandlerMapping")
    RequestMappingHandlerMapping mappings;

    @Test
    void theRoutes_areExactlyThisServicesPartOfTheWire() {
        WireRoutes.assertServesExactly(mappings, InternalApi.RECONCILER);
    }
}

