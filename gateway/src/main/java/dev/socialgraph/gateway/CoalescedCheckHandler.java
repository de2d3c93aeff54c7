package dev.socialgraph.gateway;

import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.gateway.FollowPairsClient.Answer;
import dev.socialgraph.gateway.FollowPairsClient.BatchProblem;
import dev.socialgraph.gateway.FollowPairsClient.Following;
import dev.socialgraph.gateway.FollowPairsClient.Pair;
import dev.socialgraph.gateway.FollowPairsClient.Problem;
import dev.socialgraph.web.BadParameterException;
import dev.socialgraph.web.UserIdJson;
import dev.socialgraph.wire.FollowingAnswer;
import dev.socialgraph.wire.Headers;
import java.util.Map;
import java.util.function.Function;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.support.NotFoundException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebHandler;
import reactor.core.publisher.Mono;

/**
 * {@code GET /v1/users/{id}/following/{targetId}} answered by the gateway through the {@link Coalescer} of the
 * check instance that owns {@code id}'s shard, instead of proxied by Spring Cloud Gateway's {@code check} route; the
 * same observable answer, in the route's order of steps:
 * <ol>
 *   <li>the request id ({@link RequestIds#assign}, as the route's global filter does);</li>
 *   <li>an {@code X-Follow-Token} longer than any follow token refused, 400 naming it ({@link FollowTokenGuard}, as
 *       the routes' global filter does): it never enters a batch, so no caller's token takes room from the other
 *       callers' checks in the same call;</li>
 *   <li>the read budget ({@link RateLimits}' filter on the same {@code readLimiter}: 429 with {@code Retry-After});</li>
 *   <li>{@code id} and {@code targetId} as user ids (400 {@code invalid-parameter} naming the variable, the check
 *       service's answer), and with a query string {@code stringify_ids} as the check service reads it (the answer
 *       has no id, so its value changes nothing else);</li>
 *   <li>the instance {@link ShardAffineLoadBalancer} chooses for {@code id} (none: 503 naming the service);</li>
 *   <li>the pair, with the token's subject as its viewer (a protected follower's follows are answered only to the
 *       follower and its followers: 403 {@code protected-account}, the pair's problem) and the caller's
 *       {@code X-Follow-Token} (read-your-writes), into that instance's batches; the
 *       answer {@code {"following":true|false}} as {@code application/json} with the instance's
 *       {@code X-Served-By}, or the pair's problem, or the batch's (relayed with the caller's path as
 *       {@code instance}), or the call's failure (503 unreachable or overloaded, 504 silent: {@link GatewayErrors}).</li>
 * </ol>
 * Spring Security's authentication, {@link PathGuard} and the body limit are web filters and run before any handler,
 * this one included.
 */
final class CoalescedCheckHandler implements WebHandler {

    /** The check service's two answers, byte for byte. */
    private static final byte[] FOLLOWING = FollowingAnswer.bytes(true);
    private static final byte[] NOT_FOLLOWING = FollowingAnswer.bytes(false);

    private final GatewayFilter readLimit;
    private final ProblemResponses problems;
    private final ShardAffineLoadBalancer balancer;
    private final Function<ServiceInstance, Coalescer<Pair, Answer>> coalescers;
    /** What follows the read budget: built once, not per request. */
    private final GatewayFilterChain afterReadLimit = this::check;

    /**
     * @param readLimit  the read budget's rate-limit filter
     * @param problems   the gateway's problem answers
     * @param balancer   the check service's balancer
     * @param coalescers the coalescer of each check instance
     */
    CoalescedCheckHandler(GatewayFilter readLimit, ProblemResponses problems, ShardAffineLoadBalancer balancer,
                          Function<ServiceInstance, Coalescer<Pair, Answer>> coalescers) {
        this.readLimit = readLimit;
        this.problems = problems;
        this.balancer = balancer;
        this.coalescers = coalescers;
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange) {
        RequestIds.assign(exchange);
        String token = exchange.getRequest().getHeaders().getFirst(Headers.FOLLOW_TOKEN);
        if (FollowTokenGuard.isTooLong(token)) {
            return FollowTokenGuard.refuse(problems, exchange, token); // never into a batch
        }
        return readLimit.filter(exchange, afterReadLimit);
    }

    private Mono<Void> check(ServerWebExchange exchange) {
        ServerHttpRequest request = exchange.getRequest();
        Map<String, String> variables = exchange.getAttributeOrDefault(
                HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE, Map.of());
        long follower;
        long followee;
        try {
            follower = UserIds.parse(variables.get("id"), "id");
            followee = UserIds.parse(variables.get("targetId"), "targetId");
        } catch (InvalidUserIdException e) {
            return problems.write(exchange, ProblemType.INVALID_PARAMETER, e.getMessage(), e.field());
        }
        if (request.getURI().getRawQuery() != null) {
            try {
                UserIdJson.asStrings(request.getQueryParams().getFirst(UserIdJson.PARAMETER));
            } catch (BadParameterException e) {
                return problems.write(exchange, ProblemType.INVALID_PARAMETER, e.getMessage(), e.parameter());
            }
        }
        String token = request.getHeaders().getFirst(Headers.FOLLOW_TOKEN);
        Jwt cached = exchange.getAttribute(SingleCheckEntry.AUTHENTICATED);
        if (cached != null) { // the common case: the token from the cache, its subject at hand
            return submit(exchange, new Pair(follower, followee, viewer(cached), token, exchange));
        }
        return exchange.getPrincipal().cast(JwtAuthenticationToken.class)
                .flatMap(auth -> submit(exchange, new Pair(follower, followee, viewer(auth.getToken()), token,
                        exchange)));
    }

    /** The token's subject, a positive user id: the token validators accept no other ({@link SecurityConfiguration}). */
    private static long viewer(Jwt jwt) {
        return Long.parseLong(jwt.getSubject());
    }

    private Mono<Void> submit(ServerWebExchange exchange, Pair pair) {
        long follower = pair.followerId();
        return balancer.choose(follower)
                .flatMap(chosen -> chosen.hasServer() ? coalescers.apply(chosen.getServer()).submit(pair)
                        : Mono.error(new NotFoundException("Unable to find instance for " + LoadBalancing.CHECK_SERVICE)))
                .flatMap(answer -> answer(exchange, answer))
                .onErrorResume(BatchProblem.class, problem -> relay(exchange, problem));
    }

    private Mono<Void> answer(ServerWebExchange exchange, Answer answer) {
        ServerHttpResponse response = exchange.getResponse();
        if (answer.servedBy() != null) {
            response.getHeaders().set(Headers.SERVED_BY, answer.servedBy());
        }
        return switch (answer) {
            case Following following -> {
                byte[] body = following.following() ? FOLLOWING : NOT_FOLLOWING;
                response.setStatusCode(HttpStatus.OK);
                response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
                response.getHeaders().setContentLength(body.length);
                yield response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
            }
            case Problem problem -> problems.relay(exchange, problem.status(), problem.members(), null);
        };
    }

    /** The whole batch's error answer, to this caller: a problem as this caller's, anything else as it came. */
    private Mono<Void> relay(ServerWebExchange exchange, BatchProblem batch) {
        return problems.relayAnswer(exchange, batch.status(), batch.contentType(), batch.retryAfter(),
                batch.servedBy(), batch.body());
    }

}
