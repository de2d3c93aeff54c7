package dev.socialgraph.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The guard's answers, byte for byte: every servlet and reactive service sends exactly these. */
class ProblemsTest {

    private static String body(Problems problem) {
        return new String(problem.body(), StandardCharsets.UTF_8);
    }

    @Test
    void missingToken_is401NamingTheHeader() {
        Problems problem = Problems.missingToken();
        assertThat(problem.status()).isEqualTo(401);
        assertThat(body(problem)).isEqualTo("{\"type\":\"https://socialgraph.dev/problems/service-credential\","
                + "\"title\":\"Unauthorized\",\"status\":401,"
                + "\"detail\":\"this endpoint needs the service credential in the X-Service-Token header\","
                + "\"parameter\":\"X-Service-Token\"}");
    }

    @Test
    void wrongToken_is401NamingTheHeader() {
        Problems problem = Problems.wrongToken();
        assertThat(problem.status()).isEqualTo(401);
        assertThat(body(problem)).isEqualTo("{\"type\":\"https://socialgraph.dev/problems/service-credential\","
                + "\"title\":\"Unauthorized\",\"status\":401,"
                + "\"detail\":\"the X-Service-Token header does not hold this deployment's service credential\","
                + "\"parameter\":\"X-Service-Token\"}");
    }

    @Test
    void bodyTooLarge_is413NamingTheBodyAndTheLimit() {
        Problems problem = Problems.bodyTooLarge(1_048_576);
        assertThat(problem.status()).isEqualTo(413);
        assertThat(body(problem)).isEqualTo("{\"type\":\"https://socialgraph.dev/problems/body-too-large\","
                + "\"title\":\"Content Too Large\",\"status\":413,"
                + "\"detail\":\"the request body is larger than 1048576 bytes (graph.web.max-request-size)\","
                + "\"parameter\":\"body\"}");
    }
}
