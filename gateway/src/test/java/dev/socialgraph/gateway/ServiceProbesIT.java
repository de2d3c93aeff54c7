package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.testsupport.ActuatorProbe;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.security.web.server.ObservationWebFilterChainDecorator;
import org.springframework.security.web.server.WebFilterChainProxy;
import org.springframework.test.util.ReflectionTestUtils;

@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ServiceProbesIT {

    @LocalServerPort
    int port;

    @Autowired
    WebFilterChainProxy securityFilters;

    @Test
    void servesProbesAndPrometheus() {
        ActuatorProbe.assertProbesUpAndScraped(port, "gateway");
    }

    @Test
    void springSecurityFiltersAreNotWrappedInObservations() {
        assertThat(ReflectionTestUtils.getField(securityFilters, "filterChainDecorator"))
                .isNotNull()
                .isNotInstanceOf(ObservationWebFilterChainDecorator.class);
    }
}
