package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.problem.ProblemType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Answers that are not 2xx, as the caller sees them: class, status, type, parameter, wait and message. */
class ProblemsTest {

    private static final Instant NOW = Instant.parse("2026-11-27T10:00:00Z");
    private static final String REQUEST = "GET http://check-0/internal/v1/users/5/following";

    private static GraphClientException problem(int status, String body, String retryAfter) {
        return Problems.of(REQUEST, status, body.getBytes(StandardCharsets.UTF_8), retryAfter, NOW);
    }

    @Test
    void aTypedProblem_givesItsTypeAndParameter() {
        GraphClientException e = problem(400, """
                {"type":"https://socialgraph.dev/problems/invalid-parameter","title":"Bad Request","status":400,
                 "detail":"limit must be 1..1000","parameter":"limit"}""", null);

        assertThat(e).isInstanceOf(RequestRejectedException.class);
        assertThat(e.status()).isEqualTo(400);
        assertThat(e.type()).isEqualTo(ProblemType.INVALID_PARAMETER);
        assertThat(e.parameter()).contains("limit");
        assertThat(e.retryAfter()).isEmpty();
        assertThat(e).hasMessage(REQUEST + ": HTTP 400 invalid-parameter (limit): limit must be 1..1000");
    }

    @Test
    void typesThatShareAStatus_areToldApart() {
        assertThat(problem(403, "{\"type\":\"https://socialgraph.dev/problems/blocked\"}", null).type())
                .isEqualTo(ProblemType.BLOCKED);
        assertThat(problem(409, "{\"type\":\"https://socialgraph.dev/problems/blocking\"}", null).type())
                .isEqualTo(ProblemType.BLOCKING);
        assertThat(problem(409, "{\"type\":\"https://socialgraph.dev/problems/limit-reached\"}", null).type())
                .isEqualTo(ProblemType.LIMIT_REACHED);
    }

    @Test
    void aBlankOrForeignType_fallsBackToTheStatusDefault() {
        GraphClientException blank = problem(409, "{\"type\":\"about:blank\",\"title\":\"Conflict\"}", null);
        assertThat(blank.type()).isEqualTo(ProblemType.CONFLICT);
        assertThat(blank).hasMessageEndingWith("HTTP 409 conflict: Conflict");

        GraphClientException urn = problem(401, """
                {"type":"urn:socialgraph:problem:service-credential","parameter":"X-Service-Token"}""", null);
        assertThat(urn.type()).isEqualTo(ProblemType.UNAUTHORIZED);
        assertThat(urn.parameter()).contains("X-Service-Token");

        assertThat(problem(404, "{\"type\":\"https://socialgraph.dev/problems/no-such-type\"}", null).type())
                .isEqualTo(ProblemType.NOT_FOUND);
        assertThat(problem(400, "{\"type\":42}", null).type()).isEqualTo(ProblemType.INVALID_PARAMETER);
    }

    @Test
    void aBodyThatIsNoProblem_keepsTheStatusAndAnExcerpt() {
        GraphClientException html = problem(502, "<html>bad gateway</html>", null);
        assertThat(html).isExactlyInstanceOf(GraphClientException.class);
        assertThat(html.type()).isEqualTo(ProblemType.INTERNAL_ERROR);
        assertThat(html.parameter()).isEmpty();
        assertThat(html).hasMessageEndingWith("HTTP 502 internal-error: <html>bad gateway</html>");

        assertThat(problem(400, "[1,2]", null).parameter()).isEmpty();
        assertThat(problem(504, "", null).type()).isEqualTo(ProblemType.TIMEOUT);
        assertThat(problem(400, "{\"parameter\":7}", null).parameter()).isEmpty();
    }

    @Test
    void http429_isRateLimited_withItsWait() {
        GraphClientException e = problem(429, "{\"type\":\"https://socialgraph.dev/problems/rate-limited\"}", "30");

        assertThat(e).isInstanceOf(RateLimitedException.class);
        assertThat(e.type()).isEqualTo(ProblemType.RATE_LIMITED);
        assertThat(e.retryAfter()).contains(Duration.ofSeconds(30));
    }

    @Test
    void http503_isUnavailable_withAWaitFromAnHttpDate() {
        GraphClientException e = problem(503, "{\"type\":\"https://socialgraph.dev/problems/shard-unavailable\","
                + "\"parameter\":\"id\"}", "Fri, 27 Nov 2026 10:01:30 GMT");

        assertThat(e).isInstanceOf(UnavailableException.class);
        assertThat(e.status()).isEqualTo(503);
        assertThat(e.type()).isEqualTo(ProblemType.SHARD_UNAVAILABLE);
        assertThat(e.parameter()).contains("id");
        assertThat(e.retryAfter()).contains(Duration.ofSeconds(90));
    }

    @Test
    void anUntypedStatus_outsideTheErrorRange_isAnInternalError() {
        GraphClientException e = problem(302, "", null);
        assertThat(e).isExactlyInstanceOf(GraphClientException.class);
        assertThat(e.status()).isEqualTo(302);
        assertThat(e.type()).isEqualTo(ProblemType.INTERNAL_ERROR);
    }

    @Test
    void noResponse_isUnavailableWithStatusZero() {
        UnavailableException e = Problems.noResponse("no check instance answered", new java.io.IOException("refused"));
        assertThat(e.status()).isEqualTo(GraphClientException.NO_RESPONSE);
        assertThat(e.type()).isEqualTo(ProblemType.SERVICE_UNAVAILABLE);
        assertThat(e.retryAfter()).isEmpty();
        assertThat(e).hasCauseInstanceOf(java.io.IOException.class);
    }
}
