package dev.socialgraph.gateway;

import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.wire.Headers;
import java.util.List;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Refuses an {@code X-Follow-Token} longer than any follow token ({@link FollowTokens#MAX_LENGTH}, 64 characters)
 * with 400 {@code invalid-parameter} naming {@code X-Follow-Token}, before it is passed on: on every route, as a
 * global filter right after {@link RequestIds} (so the answer carries the request id) and before the routes' own
 * filters (the rate limit); and on the coalesced single check, where {@link CoalescedCheckHandler} asks
 * {@link #isTooLong} before the pair enters a batch.
 *
 * <p>Why at the gateway: a coalesced check's token travels in one call with other callers' checks, and that call's
 * body must fit the check service's body limit (docs/decisions/0048-coalesced-batches-isolated.md); a value that cannot
 * verify gives its own check nothing but takes room from everyone's. A value up to 64 characters is passed on as it is
 * (the check service reads one that does not verify as no token). Every value of the header is judged: a proxied
 * request carries them all. The check service refuses the same values the same way, for callers that reach it
 * otherwise.
 */
@Component
class FollowTokenGuard implements GlobalFilter, Ordered {

    /** The header judged. */
    static final String HEADER = Headers.FOLLOW_TOKEN;

    private final ProblemResponses problems;

    FollowTokenGuard(ProblemResponses problems) {
        this.problems = problems;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        List<String> values = exchange.getRequest().getHeaders().get(HEADER);
        if (values != null) {
            for (String value : values) {
                if (isTooLong(value)) {
                    return refuse(problems, exchange, value);
                }
            }
        }
        return chain.filter(exchange);
    }

    /**
     * Whether a value is longer than any follow token.
     *
     * @param token a header value, or {@code null}
     * @return {@code true} when it has more than {@value FollowTokens#MAX_LENGTH} characters
     */
    static boolean isTooLong(String token) {
        return token != null && token.length() > FollowTokens.MAX_LENGTH;
    }

    /**
     * The refusal of a value {@link #isTooLong}: 400 {@code invalid-parameter} naming {@value #HEADER}, with the
     * check service's own detail.
     */
    static Mono<Void> refuse(ProblemResponses problems, ServerWebExchange exchange, String token) {
        return problems.write(exchange, ProblemType.INVALID_PARAMETER, HEADER + " must be at most "
                + FollowTokens.MAX_LENGTH + " characters, the follow token of a write; was " + token.length(), HEADER);
    }

    /** Right after {@link RequestIds} ({@link Ordered#HIGHEST_PRECEDENCE}). */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 1;
    }
}
