package dev.socialgraph.reconciler.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;
import org.springframework.context.annotation.Configuration;

class ReconcilerPropertiesTest {

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(ReconcilerProperties.class)
    static class Bind {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ValidationAutoConfiguration.class))
            .withUserConfiguration(Bind.class);

    @Test
    void bind_withoutProperties_usesTheDefaults() {
        runner.run(context -> {
            ReconcilerProperties p = context.getBean(ReconcilerProperties.class);
            assertThat(p.repairThreshold()).isEqualTo(Duration.ofSeconds(30));
            assertThat(p.scan().pageSize()).isEqualTo(500);
            assertThat(p.scan().rateLimit()).isEqualTo(5000.0);
            assertThat(p.scan().scheduled()).isTrue();
            assertThat(p.scan().scheduledInterval()).isEqualTo(Duration.ofHours(24));
            assertThat(p.sampling().enabled()).isTrue();
            assertThat(p.sampling().interval()).isEqualTo(Duration.ofSeconds(10));
            assertThat(p.admin().enabled()).isTrue();
            assertThat(p.admin().scanThreads()).isEqualTo(1);
            assertThat(p.bloom().scheduled()).isTrue();
            assertThat(p.bloom().interval()).isEqualTo(Duration.ofHours(6));
            assertThat(p.bloom().snapshotDir()).isEqualTo("/var/tmp/graph-bloom-snapshots");
            assertThat(p.bloom().keep()).isEqualTo(3);
            assertThat(p.bloom().fpp()).isEqualTo(0.001);
            assertThat(p.bloom().topic()).isEqualTo("follow-events");
        });
    }

    @Test
    void bind_withZeroBloomKeep_stopsStartUpNamingTheProperty() {
        runner.withPropertyValues("graph.reconciler.bloom.keep=0").run(context ->
                assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("bloom.keep"));
    }

    @Test
    void bind_withOverrides_usesThem() {
        runner.withPropertyValues("graph.reconciler.repair-threshold=1m", "graph.reconciler.scan.rate-limit=250.5",
                "graph.reconciler.sampling.batch-size=7").run(context -> {
                    ReconcilerProperties p = context.getBean(ReconcilerProperties.class);
                    assertThat(p.repairThreshold()).isEqualTo(Duration.ofMinutes(1));
                    assertThat(p.scan().rateLimit()).isEqualTo(250.5);
                    assertThat(p.sampling().batchSize()).isEqualTo(7);
                });
    }

    @Test
    void bind_withZeroPageSize_stopsStartUpNamingTheProperty() {
        runner.withPropertyValues("graph.reconciler.scan.page-size=0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("scan.pageSize");
        });
    }

    @Test
    void bind_withNonPositiveRateLimit_stopsStartUp() {
        runner.withPropertyValues("graph.reconciler.scan.rate-limit=0").run(context ->
                assertThat(context).hasFailed());
    }
}
