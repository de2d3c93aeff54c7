package dev.socialgraph.gateway;

import dev.socialgraph.testsupport.ActuatorProbe;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ServiceProbesIT {

    @LocalServerPort
    int port;

    @Test
    void servesProbesAndPrometheus() {
        ActuatorProbe.assertProbesUpAndScraped(port, "gateway");
    }
}
