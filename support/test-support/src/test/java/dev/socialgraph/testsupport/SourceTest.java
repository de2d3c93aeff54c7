package dev.socialgraph.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;

class SourceTest {

    private final AtomicInteger dockerChecks = new AtomicInteger();

    @Test
    void choose_withServerVariableSet_isEnvironmentWithoutAskingDocker() {
        Source source = Source.choose("GRAPH_TEST_REDIS_URL",
                env(Map.of("GRAPH_TEST_REDIS_URL", "redis://127.0.0.1:6379", "GRAPH_TEST_CONTAINERS", "true")),
                docker(true));

        assertThat(source).isEqualTo(Source.ENVIRONMENT);
        assertThat(dockerChecks).hasValue(0);
    }

    @Test
    void choose_withNothingSet_isEmbeddedWithoutAskingDocker() {
        Source source = Source.choose("GRAPH_TEST_REDIS_URL", env(Map.of()), docker(true));

        assertThat(source).isEqualTo(Source.EMBEDDED);
        assertThat(dockerChecks).hasValue(0);
    }

    @Test
    void choose_withBlankServerVariable_ignoresIt() {
        Source source = Source.choose("GRAPH_TEST_KAFKA_BOOTSTRAP", env(Map.of("GRAPH_TEST_KAFKA_BOOTSTRAP", "  ")),
                docker(true));

        assertThat(source).isEqualTo(Source.EMBEDDED);
    }

    @Test
    void choose_withContainersAndDocker_isContainers() {
        Source source = Source.choose("GRAPH_TEST_POSTGRES_URL", env(Map.of("GRAPH_TEST_CONTAINERS", " TRUE ")),
                docker(true));

        assertThat(source).isEqualTo(Source.CONTAINERS);
        assertThat(dockerChecks).hasValue(1);
    }

    @Test
    void choose_withContainersButNoDocker_isEmbedded() {
        Source source = Source.choose("GRAPH_TEST_POSTGRES_URL", env(Map.of("GRAPH_TEST_CONTAINERS", "true")),
                docker(false));

        assertThat(source).isEqualTo(Source.EMBEDDED);
    }

    @Test
    void choose_withContainersNotTrue_isEmbeddedWithoutAskingDocker() {
        Source source = Source.choose("GRAPH_TEST_POSTGRES_URL", env(Map.of("GRAPH_TEST_CONTAINERS", "yes")),
                docker(true));

        assertThat(source).isEqualTo(Source.EMBEDDED);
        assertThat(dockerChecks).hasValue(0);
    }

    private static UnaryOperator<String> env(Map<String, String> variables) {
        return variables::get;
    }

    private BooleanSupplier docker(boolean available) {
        return () -> {
            dockerChecks.incrementAndGet();
            return available;
        };
    }
}
