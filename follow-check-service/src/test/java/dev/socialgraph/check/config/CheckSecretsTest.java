package dev.socialgraph.check.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.testsupport.ShippedConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/**
 * No secret from the repository outside the explicit {@code local} profile: the shipped {@code application.yml}
 * resolves the follow-token secret and the cursor key to nothing when their variables are unset, and a service
 * without them does not start, naming the variable to set.
 */
class CheckSecretsTest {

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(CheckProperties.class)
    static class Config {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Config.class);

    @Test
    void theShippedConfiguration_hasNoSecret_outsideTheLocalProfile() {
        assertThat(ShippedConfiguration.property("graph.check.token-secret", "application.yml")).isEmpty();
        assertThat(ShippedConfiguration.property("graph.check.cursor-key", "application.yml")).isEmpty();
        assertThat(ShippedConfiguration.property("graph.check.token-secret", "application.yml", "application-local.yml")).hasSizeGreaterThan(32);
        assertThat(ShippedConfiguration.property("graph.check.cursor-key", "application.yml", "application-local.yml")).hasSizeGreaterThan(32);
    }

    @Test
    void withoutTheFollowTokenSecret_startUpFails_namingItsVariable() {
        runner.withPropertyValues("graph.check.token-secret=", "graph.check.cursor-key=0123456789abcdef0123456789abcdef")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("GRAPH_TOKEN_SECRET");
                });
    }

    @Test
    void withoutTheCursorKey_startUpFails_namingItsVariable() {
        runner.withPropertyValues("graph.check.token-secret=0123456789abcdef0123456789abcdef")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("GRAPH_CURSOR_KEY");
                });
    }
}
