package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.problem.ProblemType;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.http.HttpStatus;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@link FollowTokenGuard} on a routed request: what it passes on, and its refusal. */
class FollowTokenGuardTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final FollowTokenGuard guard = new FollowTokenGuard(new ProblemResponses());
    private final AtomicInteger passedOn = new AtomicInteger();
    private final GatewayFilterChain chain = exchange -> {
        passedOn.incrementAndGet();
        return exchange.getResponse().setComplete();
    };

    private MockServerWebExchange read(String... tokens) {
        MockServerHttpRequest.BaseBuilder<?> request = MockServerHttpRequest.get("/v1/users/12/counts");
        for (String token : tokens) {
            request.header("X-Follow-Token", token);
        }
        MockServerWebExchange exchange = MockServerWebExchange.from(request);
        guard.filter(exchange, chain).block();
        return exchange;
    }

    @Test
    void noToken_orOneOfAtMost64Characters_isPassedOn() {
        read();
        read("");
        read("not a token but short");
        read("A".repeat(64));
        read("A".repeat(64), "B".repeat(64));

        assertThat(passedOn).hasValue(5);
    }

    @Test
    void aTokenLongerThanAnyToken_is400NamingTheHeader_andNotPassedOn() {
        for (String[] tokens : new String[][] {{"A".repeat(65)}, {"A".repeat(8_000)}, {"short", "A".repeat(65)}}) {
            MockServerWebExchange exchange = read(tokens);

            assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
            assertThat(exchange.getResponse().getHeaders().getContentType()).hasToString("application/problem+json");
            JsonNode problem = JSON.readTree(exchange.getResponse().getBodyAsString().block());
            assertThat(problem.get("type").asString()).isEqualTo(ProblemType.INVALID_PARAMETER.uriText());
            assertThat(problem.get("parameter").asString()).isEqualTo("X-Follow-Token");
            assertThat(problem.get("detail").asString())
                    .isEqualTo("X-Follow-Token must be at most 64 characters, the follow token of a write; was "
                            + tokens[tokens.length - 1].length());
            assertThat(problem.get("instance").asString()).isEqualTo("/v1/users/12/counts");
        }
        assertThat(passedOn).hasValue(0);
    }

    @Test
    void runsRightAfterTheRequestId_beforeTheRoutesFilters() {
        assertThat(guard.getOrder()).isEqualTo(new RequestIds().getOrder() + 1).isLessThan(0);
    }
}
