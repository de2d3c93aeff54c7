package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.testsupport.ActuatorProbe;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
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

    @Value("${graph.gateway.jwt-secret}")
    String jwtSecret;

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

    @Test
    void theManagementPort_servesTheActuatorAndNothingOfTheApi() throws Exception {
        // With a valid bearer token: the management port is open to the monitoring namespace, and must be no second
        // way into the API or the services behind it.
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), new JWTClaimsSet.Builder().subject("1")
                .claim("scope", SecurityConfiguration.ADMIN_SCOPE)
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).build());
        jwt.sign(new MACSigner(jwtSecret.getBytes(StandardCharsets.UTF_8)));
        String token = jwt.serialize();
        ActuatorProbe.assertOnlyActuatorOn(managementPort, List.of("/v1/users/1/following/2", "/v1/users/1/counts",
                "/v1/admin/users/1", "/internal/v1/users/1/following/2", OpenApiDocument.PATH),
                Map.of("Authorization", "Bearer " + token));
    }
}
