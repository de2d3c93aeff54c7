package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.testsupport.ActuatorProbe;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.security.web.server.ObservationWebFilterChainDecorator;
import org.springframework.security.web.server.WebFilterChainProxy;
import org.springframework.test.util.ReflectionTestUtils;

@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ServiceProbesIT {

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Autowired
    WebFilterChainProxy securityFilters;

    @Test
    void servesProbesAndPrometheus_onTheManagementPortOnly() {
        ActuatorProbe.assertProbesUpAndScraped(managementPort, "gateway");
        // The public port serves /v1 and the OpenAPI document: no actuator (outside /v1 no token is asked for).
        ActuatorProbe.assertNoActuatorOn(port, Map.of());
    }

    @Test
    void springSecurityFiltersAreNotWrappedInObservations() {
        assertThat(ReflectionTestUtils.getField(securityFilters, "filterChainDecorator"))
                .isNotNull()
                .isNotInstanceOf(ObservationWebFilterChainDecorator.class);
    }
}
