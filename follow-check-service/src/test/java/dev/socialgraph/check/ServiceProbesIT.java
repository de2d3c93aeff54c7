package dev.socialgraph.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.testsupport.ActuatorProbe;
import dev.socialgraph.testsupport.GuardProbe;
import dev.socialgraph.testsupport.TestShards;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
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

    @LocalManagementPort
    int managementPort;

    @Test
    void servesProbesAndPrometheus_onTheManagementPortOnly() {
        ActuatorProbe.assertProbesUpAndScraped(managementPort, "follow-check-service");
        ActuatorProbe.assertNoActuatorOn(port, Map.of("X-Service-Token", ServiceProcess.SERVICE_TOKEN));
    }

    @Test
    void internalApi_needsTheServiceCredential_theManagementPortDoesNot() {
        GuardProbe.assertRefusedWithoutCredential(port, "GET", "/internal/v1/users/1/following/2");
        GuardProbe.assertRefusedWithoutCredential(port, "POST", "/internal/v1/users/1/following/contains");
        GuardProbe.assertRefusedWithoutCredential(port, "POST", "/internal/v1/following/pairs");
        GuardProbe.assertRefusedWithoutCredential(port, "GET", "/internal/v1/bloom");
        GuardProbe.assertRefusedWithoutCredential(port, "POST", "/internal/v1/bloom/swap");

        // This context has no Redis; ReadPathIT and BloomIT read with the credential.
        HttpResponse<String> bloom = GuardProbe.call(port, "GET", "/internal/v1/bloom", ServiceProcess.SERVICE_TOKEN);
        assertThat(bloom.statusCode()).isEqualTo(200);
        assertThat(bloom.body()).contains("\"state\":\"disabled\"");
        assertThat(ActuatorProbe.get(managementPort, "/actuator/health/readiness").statusCode()).isEqualTo(200);
    }

    @Test
    void theBenchmarksHelloFloor_isNotServed_evenWithTheCredential() {
        // It shipped here until a security review; the hop benchmark's floors are in support/floors now.
        HttpResponse<String> hello = GuardProbe.call(port, "GET", "/internal/v1/hello", ServiceProcess.SERVICE_TOKEN);

        assertThat(hello.statusCode()).isEqualTo(404);
        assertThat(hello.body()).doesNotContain("world");
    }

    @Test
    void batchAndPairsChecks_withABodyOverOneMegabyte_get413() {
        // A 60 MB batch once exhausted the heap; the guard refuses the body before it is read.
        GuardProbe.assertOversizedBodyRefused(port, "POST", "/internal/v1/users/1/following/contains",
                ServiceProcess.SERVICE_TOKEN);
        GuardProbe.assertOversizedBodyRefused(port, "POST", "/internal/v1/following/pairs",
                ServiceProcess.SERVICE_TOKEN);
    }

    @Test
    void theManagementPort_servesTheActuatorAndNothingOfTheApi() {
        // Asked with the service credential: the management port is reachable from the monitoring namespace, which
        // must not get a way around the API port's network policy.
        ActuatorProbe.assertOnlyActuatorOn(managementPort,
                List.of("/internal/v1/users/1/following/2", "/internal/v1/users/1/counts", "/internal/v1/bloom"),
                Map.of("X-Service-Token", ServiceProcess.SERVICE_TOKEN));
    }
}
