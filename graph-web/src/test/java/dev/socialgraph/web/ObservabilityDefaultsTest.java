package dev.socialgraph.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

class ObservabilityDefaultsTest {

    private static StandardEnvironment process(WebApplicationType type, Map<String, Object> configured) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("configured", configured));
        SpringApplication application = new SpringApplication();
        application.setWebApplicationType(type);
        new ObservabilityDefaults().postProcessEnvironment(environment, application);
        return environment;
    }

    @Test
    void everyService_getsTheRequestIdAsCorrelatedBaggage_andTenPercentSampling() {
        StandardEnvironment env = process(WebApplicationType.SERVLET, Map.of());

        assertThat(env.getProperty("management.tracing.baggage.remote-fields")).isEqualTo("X-Request-Id");
        assertThat(env.getProperty("management.tracing.baggage.correlation.fields")).isEqualTo("X-Request-Id");
        assertThat(env.getProperty("management.tracing.sampling.probability")).isEqualTo("0.1");
        assertThat(env.getProperty("logging.pattern.correlation")).contains("%X{traceId:-}", "%X{X-Request-Id:-}");
        assertThat(env.getProperty("management.tracing.exemplars.include")).isNull();
    }

    @Test
    void aServicesOwnSetting_winsOverTheDefault() {
        StandardEnvironment env = process(WebApplicationType.SERVLET,
                Map.of("management.tracing.sampling.probability", "1.0"));

        assertThat(env.getProperty("management.tracing.sampling.probability")).isEqualTo("1.0");
    }

    @Test
    void aReactiveService_looksForNoExemplars() {
        assertThat(process(WebApplicationType.REACTIVE, Map.of()).getProperty("management.tracing.exemplars.include"))
                .isEqualTo("none");
        assertThat(process(WebApplicationType.SERVLET, Map.of("spring.main.web-application-type", "reactive"))
                .getProperty("management.tracing.exemplars.include")).isEqualTo("none");
    }
}
