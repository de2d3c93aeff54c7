package dev.socialgraph.cdc;

import dev.socialgraph.testsupport.ActuatorProbe;
import dev.socialgraph.testsupport.TestShards;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@SpringBootTest(classes = CdcConsumerApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ServiceProbesIT {

    private static final TestShards SHARDS = TestShards.create("cdc_probes");

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

    @Test
    void servesProbesAndPrometheus() {
        ActuatorProbe.assertProbesUpAndScraped(port, "cdc-consumer");
    }
}
