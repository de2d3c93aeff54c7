package dev.socialgraph.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

class WritePropertiesTest {

    private static final String SECRET = "graph.write.token-secret=0123456789abcdef0123456789abcdef";

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(WriteProperties.class)
    static class Config {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Config.class);

    @Test
    void bind_withOnlyTheSecret_usesTheDesignDefaults() {
        runner.withPropertyValues(SECRET).run(context -> {
            WriteProperties p = context.getBean(WriteProperties.class);
            assertThat(p.followingCap()).isEqualTo(10_000);
            assertThat(p.topic()).isEqualTo("follow-events");
            assertThat(p.redis().cacheTtl()).isEqualTo(Duration.ofSeconds(3600));
            assertThat(p.redis().timeout()).isPositive();
            assertThat(p.relay().enabled()).isTrue();
            assertThat(p.relay().batchSize()).isEqualTo(500);
            assertThat(p.relay().retention()).isEqualTo(Duration.ofDays(7));
        });
    }

    @Test
    void bind_whenSecretShorterThan32Bytes_failsStartUpNamingIt() {
        runner.withPropertyValues("graph.write.token-secret=too-short").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("tokenSecret")
                    .hasMessageContaining("at least 32 bytes");
        });
    }

    @Test
    void bind_whenCapAboveTheTableLimit_failsStartUpNamingIt() {
        runner.withPropertyValues(SECRET, "graph.write.following-cap=10001").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("followingCap");
        });
    }
}
