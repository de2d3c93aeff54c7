package dev.socialgraph.check.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/** Bounds of {@code graph.check.*} that stop start-up, naming the property. */
class CheckPropertiesTest {

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(CheckProperties.class)
    static class Config {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Config.class)
            .withPropertyValues("graph.check.token-secret=0123456789abcdef0123456789abcdef",
                    "graph.check.cursor-key=0123456789abcdef0123456789abcdef");

    @Test
    void pairTimeout_isThreeSecondsByDefault_andMayBeSetUpToFourSeconds() {
        runner.run(context -> assertThat(context.getBean(CheckProperties.class).pairTimeout())
                .isEqualTo(Duration.ofSeconds(3)));
        runner.withPropertyValues("graph.check.pair-timeout=4s").run(context ->
                assertThat(context.getBean(CheckProperties.class).pairTimeout()).isEqualTo(Duration.ofSeconds(4)));
    }

    /** Past the gateway's 5 s response timeout, a hung pair would fail its whole batch before its own 504. */
    @Test
    void pairTimeout_ofZeroOrPastFourSeconds_stopsStartUp_namingIt() {
        for (String value : new String[] {"0s", "5s", "-1s"}) {
            runner.withPropertyValues("graph.check.pair-timeout=" + value).run(context -> {
                assertThat(context).as(value).hasFailed();
                assertThat(context.getStartupFailure()).as(value).rootCause().hasMessageContaining("pairTimeout");
            });
        }
    }
}
