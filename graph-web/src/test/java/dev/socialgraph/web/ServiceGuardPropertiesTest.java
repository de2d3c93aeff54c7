package dev.socialgraph.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;

/** Start-up refuses a service without a usable credential or limit; a good configuration registers both filters. */
class ServiceGuardPropertiesTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ValidationAutoConfiguration.class, ServiceGuardAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new);

    @Test
    void startUp_withoutToken_failsNamingTheVariable() {
        runner.run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootMessage(context.getStartupFailure())).contains("serviceToken")
                    .contains("GRAPH_SERVICE_TOKEN");
        });
    }

    @Test
    void startUp_withShortToken_fails() {
        runner.withPropertyValues("graph.service-token=short").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootMessage(context.getStartupFailure())).contains("at least 32 characters");
        });
    }

    @Test
    void startUp_withZeroLimit_fails() {
        runner.withPropertyValues("graph.service-token=0123456789abcdef0123456789abcdef",
                "graph.web.max-request-size=0B").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootMessage(context.getStartupFailure())).contains("graph.web.max-request-size");
        });
    }

    @Test
    void startUp_withToken_registersBothFiltersAndHidesTheToken() {
        runner.withPropertyValues("graph.service-token=0123456789abcdef0123456789abcdef").run(context -> {
            assertThat(context).hasNotFailed().hasBean("serviceTokenFilter").hasBean("bodySizeLimitFilter");
            ServiceGuardProperties properties = context.getBean(ServiceGuardProperties.class);
            assertThat(properties.web().maxRequestSize().toBytes()).isEqualTo(1024 * 1024);
            assertThat(properties.toString()).doesNotContain("0123456789abcdef");
        });
    }

    @Test
    void startUp_withAPreviousToken_acceptsBoth_hidesBoth_andRefusesAShortOne() {
        String current = "0123456789abcdef0123456789abcdef";
        String previous = "fedcba9876543210fedcba9876543210";
        runner.withPropertyValues("graph.service-token=" + current, "graph.service-token-previous=" + previous)
                .run(context -> {
                    ServiceGuardProperties properties = context.getBean(ServiceGuardProperties.class);
                    assertThat(properties.acceptedServiceTokens()).containsExactly(current, previous);
                    assertThat(properties.toString()).doesNotContain(current).doesNotContain(previous);
                });
        runner.withPropertyValues("graph.service-token=" + current, "graph.service-token-previous=")
                .run(context -> assertThat(context.getBean(ServiceGuardProperties.class).acceptedServiceTokens())
                        .containsExactly(current));
        runner.withPropertyValues("graph.service-token=" + current, "graph.service-token-previous=short")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(rootMessage(context.getStartupFailure())).contains("serviceTokenPrevious")
                            .contains("at least 32 characters");
                });
    }

    private static String rootMessage(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }
}
