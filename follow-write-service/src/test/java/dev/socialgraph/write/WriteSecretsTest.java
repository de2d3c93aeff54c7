package dev.socialgraph.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.testsupport.ShippedConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/**
 * No secret from the repository outside the explicit {@code local} profile: the shipped {@code application.yml}
 * resolves the follow-token secret to nothing when {@code GRAPH_TOKEN_SECRET} is unset, and the service does not
 * start without it, naming the variable.
 */
class WriteSecretsTest {

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(WriteProperties.class)
    static class Config {
    }

    @Test
    void theShippedConfiguration_hasNoSecret_outsideTheLocalProfile() {
        assertThat(ShippedConfiguration.property("graph.write.token-secret", "application.yml")).isEmpty();
        assertThat(ShippedConfiguration.property("graph.write.token-secret", "application.yml", "application-local.yml")).hasSizeGreaterThan(32);
    }

    @Test
    void withoutTheFollowTokenSecret_startUpFails_namingItsVariable() {
        new ApplicationContextRunner().withUserConfiguration(Config.class)
                .withPropertyValues("graph.write.token-secret=")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("GRAPH_TOKEN_SECRET");
                });
    }
}
