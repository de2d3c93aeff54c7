package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.testsupport.ShippedConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/**
 * No secret from the repository outside the explicit {@code local} profile: the shipped {@code application.yml}
 * resolves the JWT secret to nothing when {@code GRAPH_JWT_SECRET} is unset, and a gateway with neither a secret nor
 * a JWK Set does not start, naming the variable; with a JWK Set (production) no secret is needed.
 */
class GatewaySecretsTest {

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(GatewayProperties.class)
    static class Config {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Config.class)
            .withPropertyValues("graph.gateway.write-uri=http://127.0.0.1:8082",
                    "graph.gateway.check-uri=http://127.0.0.1:8081",
                    "graph.gateway.reads.replenish-rate=1", "graph.gateway.reads.burst-capacity=1",
                    "graph.gateway.writes.replenish-rate=1", "graph.gateway.writes.burst-capacity=1");

    @Test
    void theShippedConfiguration_hasNoSecret_outsideTheLocalProfile() {
        assertThat(ShippedConfiguration.property("graph.gateway.jwt-secret", "application.yml")).isEmpty();
        assertThat(ShippedConfiguration.property("graph.gateway.jwt-secret", "application.yml", "application-local.yml")).hasSizeGreaterThan(32);
    }

    @Test
    void withoutASecretOrAJwkSet_startUpFails_namingTheVariable() {
        runner.withPropertyValues("graph.gateway.jwt-secret=").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("GRAPH_JWT_SECRET");
        });
    }

    @Test
    void withAJwkSetAndNoSecret_startsWithoutOne() {
        runner.withPropertyValues("graph.gateway.jwt-secret=", "graph.gateway.jwk-set-uri=https://idp.example/jwks.json",
                        "graph.gateway.jwt-issuer=https://idp.example/", "graph.gateway.jwt-audience=api://social-graph")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(GatewayProperties.class).jwtSecret()).isNull();
                });
    }

    @Test
    void withAJwkSetButNoIssuerOrAudience_startUpFails_namingBothVariables() {
        runner.withPropertyValues("graph.gateway.jwt-secret=", "graph.gateway.jwk-set-uri=https://idp.example/jwks.json",
                        "graph.gateway.jwt-issuer=https://idp.example/")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("GRAPH_JWT_ISSUER")
                            .hasMessageContaining("GRAPH_JWT_AUDIENCE");
                });
    }
}
