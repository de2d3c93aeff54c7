package dev.socialgraph.check;

import dev.socialgraph.testsupport.ActuatorProbe;
import dev.socialgraph.testsupport.TestShards;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@SpringBootTest(classes = FollowCheckServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ServiceProbesIT {

    private static final TestShards SHARDS = TestShards.create("check_probes");

    @DynamicPropertySource
    static void shards(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.check.bloom.enabled", () -> "false"); // BloomIT covers readiness with the filter
    }

    @AfterAll
    static void dropShards() {
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    @Test
    void servesProbesAndPrometheus() {
        ActuatorProbe.assertProbesUpAndScraped(port, "follow-check-service");
    }
}
