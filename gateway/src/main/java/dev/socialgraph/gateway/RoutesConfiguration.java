package dev.socialgraph.gateway;

import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.wire.PublicApi;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.GatewayFilterSpec;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.cloud.gateway.route.builder.UriSpec;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The public API of DESIGN.md 6 mapped onto the services' internal API:
 * <ul>
 *   <li>{@code PUT|DELETE /v1/me/following/{targetId}}, {@code /v1/me/blocking/{targetId}} and
 *       {@code /v1/me/muting/{targetId}} → write service {@code /internal/v1/users/{sub}/...}: the actor is the
 *       token's subject, never a client value, so no request can write as anyone else;</li>
 *   <li>{@code DELETE /v1/me/followers/{id}} → write service {@code DELETE /internal/v1/users/{id}/following/{sub}}:
 *       the subject removes a follower, which is that follower's unfollow of the subject;</li>
 *   <li>{@code GET /v1/me/blocking}, {@code GET /v1/me/muting}, {@code GET /v1/me/follow-requests} and
 *       {@code POST /v1/me/hidden} → check service {@code /internal/v1/users/{sub}/...}: a user's own blocks, mutes and
 *       pending follow requests. The block and mute paths under {@code /v1/users/{id}} answer 403 unless {@code id} is
 *       the subject: nobody reads another's lists;</li>
 *   <li>{@code PUT|DELETE /v1/me/protection} and {@code PUT|DELETE /v1/me/follow-requests/{requesterId}} → write
 *       service {@code /internal/v1/users/{sub}/...}: the subject makes its own account protected or public, and
 *       accepts or declines the requests to it (docs/decisions/0064-follow-requests.md);</li>
 *   <li>{@code GET /v1/users/{id}/followers/known} → check service, with the subject as {@code X-Viewer-Id}: the
 *       followers of {@code id} whom the subject follows;</li>
 *   <li>{@code GET /v1/users/{id}/relationship/{otherId}} → check service, with the subject as
 *       {@code X-Viewer-Id} (set here, whatever the client sent), which shows the blocks only to the two users and
 *       the mute only to {@code id};</li>
 *   <li>{@code PUT|DELETE /v1/admin/users/{id}/deactivation}, {@code GET|DELETE /v1/admin/users/{id}} and
 *       {@code GET /v1/admin/jobs/{jobId}} → write service {@code /internal/v1/admin/...} (the same path after
 *       {@code /internal}), for tokens with the {@code graph:admin} scope only ({@link SecurityConfiguration});
 *       {@code DELETE /v1/me} → write service {@code /internal/v1/admin/users/{sub}}: any user erases
 *       themselves (docs/account-lifecycle.md);</li>
 *   <li>{@code GET /v1/changes} and {@code GET /v1/changes/head} → check service {@code /internal/v1/changes...}, for
 *       tokens with the {@code graph:changes} scope only; {@code GET /v1/me/changes} → check service
 *       {@code /internal/v1/users/{sub}/changes}, the subject's own stream (docs/decisions/0063-the-change-stream.md);</li>
 *   <li>{@code GET /v1/users/**} and {@code POST /v1/users/{id}/following/contains} → check service
 *       {@code /internal/v1/users/**} ({@link InternalPath}), with the subject as {@code X-Viewer-Id}: a protected
 *       account's follows are answered only to the account and its followers (403 {@code protected-account}); the
 *       single check {@code GET /v1/users/{id}/following/{targetId}} has the first route of its own, with the same
 *       filters.</li>
 * </ul>
 * Both go through Spring Cloud LoadBalancer ({@link LoadBalancing}): reads to the check instance that owns the
 * path's user id's logical shard, writes round-robin. Nothing else is routed: {@code /internal/**} from outside is
 * a 404, whatever the configuration (the hop benchmark's bare floor is a gateway of its own, in support/floors).
 * Paths are checked by {@link PathGuard} first, so a dot segment or an encoded slash can never walk a rewritten path out of
 * {@code /internal/v1/users}.
 */
@Configuration(proxyBeanMethods = false)
class RoutesConfiguration {

    @Bean
    LocalTokenBuckets readLimiter(GatewayProperties properties, ReactiveStringRedisTemplate redis, MeterRegistry meters) {
        return limiter("reads", properties.reads(), redis, meters);
    }

    @Bean
    LocalTokenBuckets writeLimiter(GatewayProperties properties, ReactiveStringRedisTemplate redis, MeterRegistry meters) {
        return limiter("writes", properties.writes(), redis, meters);
    }

    private static LocalTokenBuckets limiter(String name, GatewayProperties.Budget budget,
                                             ReactiveStringRedisTemplate redis, MeterRegistry meters) {
        TokenReservations reservations = new TokenReservations(redis, name, budget.replenishRate(), budget.burstCapacity());
        return new LocalTokenBuckets(reservations::reserve, budget.batchSize(), System::nanoTime,
                meters.counter("graph.gateway.ratelimit.reservations", "budget", name));
    }

    /**
     * The rate limits of the routes, and of the reads served outside them: the single checks ({@link CheckCoalescing})
     * and the other GET reads ({@link LeanReads}).
     */
    @Bean
    RateLimits rateLimits(ProblemResponses problems, MeterRegistry meters) {
        return new RateLimits(problems, meters);
    }

    @Bean
    RouteLocator routes(RouteLocatorBuilder builder, GatewayProperties properties, ProblemResponses problems,
                        @Qualifier("readLimiter") LocalTokenBuckets readLimiter,
                        @Qualifier("writeLimiter") LocalTokenBuckets writeLimiter, RateLimits limits) {
        GatewayFilter reads = limits.filter(readLimiter, "reads", 0);
        // The check's own route and the other reads of /v1/users/** get one filter list.
        // Each with the viewer: a protected account's follows are the account's and its followers' to see.
        Function<GatewayFilterSpec, UriSpec> publicReads =
                f -> f.filter(reads).filter(viewerFromToken()).filter(InternalPath.FILTER, InternalPath.ORDER);
        RouteLocatorBuilder.Builder routes = builder.routes();
        // Routes are tried in order until one matches, each try a predicate evaluated per request: the single
        // follow check, most of the traffic, comes first. No later route matches its paths. With
        // graph.gateway.check-coalescing.enabled (the default) the gateway's own handler serves it before any route
        // is looked up (CheckCoalescing); the route stays, for the setting off. So do the routes of the other GET
        // reads, which with graph.gateway.lean-reads.enabled (the default) are served before any route is looked up
        // too (LeanReads), with these same filters (leanReadFilters).
        routes.route("check", r -> r.path(PublicApi.IS_FOLLOWING.template())
                        .and().method(HttpMethod.GET)
                        .filters(publicReads)
                        .uri("lb://" + LoadBalancing.CHECK_SERVICE))
                .route("follow-write", r -> r.path(PublicApi.FOLLOW.template(), PublicApi.BLOCK.template(),
                                PublicApi.MUTE.template())
                        .and().method(HttpMethod.PUT, HttpMethod.DELETE)
                        .filters(f -> f.filter(limits.filter(writeLimiter, "writes", properties.writes().replenishRate()))
                                .filter(actorFromToken(problems)))
                        .uri("lb://" + LoadBalancing.WRITE_SERVICE))
                .route("remove-follower", r -> r.path(PublicApi.REMOVE_FOLLOWER.template())
                        .and().method(HttpMethod.DELETE)
                        .filters(f -> f.filter(limits.filter(writeLimiter, "writes", properties.writes().replenishRate()))
                                .filter(followerOfSubject(problems)))
                        .uri("lb://" + LoadBalancing.WRITE_SERVICE))
                .route("protection", r -> r.path(PublicApi.PROTECT_ME.template())
                        .and().method(HttpMethod.PUT, HttpMethod.DELETE)
                        .filters(f -> f.filter(limits.filter(writeLimiter, "writes", properties.writes().replenishRate()))
                                .filter(ownerFromToken(problems, false)))
                        .uri("lb://" + LoadBalancing.WRITE_SERVICE))
                .route("follow-request-answers", r -> r.path(PublicApi.ACCEPT_FOLLOW_REQUEST.template())
                        .and().method(HttpMethod.PUT, HttpMethod.DELETE)
                        .filters(f -> f.filter(limits.filter(writeLimiter, "writes", properties.writes().replenishRate()))
                                .filter(requesterOfSubject(problems)))
                        .uri("lb://" + LoadBalancing.WRITE_SERVICE))
                .route("own-relations", r -> r.path(PublicApi.LIST_OWN_BLOCKS.template(), PublicApi.LIST_OWN_MUTES.template(),
                                PublicApi.LIST_OWN_FOLLOW_REQUESTS.template(),
                                PublicApi.FIND_OWN_HIDDEN_AUTHORS.template())
                        .and().method(HttpMethod.GET, HttpMethod.POST)
                        .filters(f -> f.filter(reads).filter(ownerFromToken(problems, false)))
                        .uri("lb://" + LoadBalancing.CHECK_SERVICE))
                .route("private-relations", r -> r.path(PublicApi.LIST_USER_BLOCKS.template(), PublicApi.LIST_USER_MUTES.template(),
                                PublicApi.FIND_HIDDEN_AUTHORS.template())
                        .and().method(HttpMethod.GET, HttpMethod.POST)
                        .filters(f -> f.filter(reads).filter(ownerFromToken(problems, true)))
                        .uri("lb://" + LoadBalancing.CHECK_SERVICE))
                .route("relationship", r -> r.path(PublicApi.GET_RELATIONSHIP.template())
                        .and().method(HttpMethod.GET)
                        .filters(f -> f.filter(reads).filter(viewerFromToken())
                                .filter(InternalPath.FILTER, InternalPath.ORDER))
                        .uri("lb://" + LoadBalancing.CHECK_SERVICE))
                .route("known-followers", r -> r.path(PublicApi.LIST_KNOWN_FOLLOWERS.template())
                        .and().method(HttpMethod.GET)
                        .filters(f -> f.filter(reads).filter(userIdVariable(problems, "id")).filter(viewerFromToken())
                                .filter(InternalPath.FILTER, InternalPath.ORDER))
                        .uri("lb://" + LoadBalancing.CHECK_SERVICE))
                .route("reads", r -> r.path(PublicApi.PREFIX + "/users/**")
                        .and().method(HttpMethod.GET, HttpMethod.POST)
                        .filters(publicReads)
                        .uri("lb://" + LoadBalancing.CHECK_SERVICE));
        // The change stream: any check instance serves any cursor (round-robin, no user in the path), on the stream's
        // own connections (StreamRoutingFilter). SecurityConfiguration has already refused /v1/changes to tokens
        // without the graph:changes scope. A request spends one read from the budget, however long it watches.
        routes.route("changes", r -> r.path(PublicApi.LIST_CHANGES.template(), PublicApi.GET_CHANGES_HEAD.template())
                        .and().method(HttpMethod.GET)
                        .filters(f -> f.filter(reads).filter(InternalPath.FILTER, InternalPath.ORDER))
                        .metadata(StreamRoutingFilter.METADATA, true)
                        .uri("lb://" + LoadBalancing.CHECK_SERVICE))
                .route("own-changes", r -> r.path(PublicApi.LIST_OWN_CHANGES.template())
                        .and().method(HttpMethod.GET)
                        .filters(f -> f.filter(reads).filter(ownerFromToken(problems, false)))
                        .metadata(StreamRoutingFilter.METADATA, true)
                        .uri("lb://" + LoadBalancing.CHECK_SERVICE));
        // The account lifecycle (docs/account-lifecycle.md) on the write service. SecurityConfiguration has already
        // refused /v1/admin/** to tokens without the graph:admin scope. A state change spends the caller's write
        // budget, as any write; reading a state or polling a job spends the read budget.
        GatewayFilter writes = limits.filter(writeLimiter, "writes", properties.writes().replenishRate());
        routes.route("admin-deactivation", r -> r.path(PublicApi.DEACTIVATE_USER.template())
                        .and().method(HttpMethod.PUT, HttpMethod.DELETE)
                        .filters(f -> f.filter(writes).filter(userIdVariable(problems, "id"))
                                .filter(InternalPath.FILTER, InternalPath.ORDER))
                        .uri("lb://" + LoadBalancing.WRITE_SERVICE))
                .route("admin-erase", r -> r.path(PublicApi.ERASE_USER.template())
                        .and().method(HttpMethod.DELETE)
                        .filters(f -> f.filter(writes).filter(userIdVariable(problems, "id"))
                                .filter(InternalPath.FILTER, InternalPath.ORDER))
                        .uri("lb://" + LoadBalancing.WRITE_SERVICE))
                .route("admin-state", r -> r.path(PublicApi.GET_ACCOUNT_STATE.template())
                        .and().method(HttpMethod.GET)
                        .filters(f -> f.filter(reads).filter(userIdVariable(problems, "id"))
                                .filter(InternalPath.FILTER, InternalPath.ORDER))
                        .uri("lb://" + LoadBalancing.WRITE_SERVICE))
                .route("admin-job", r -> r.path(PublicApi.GET_ACCOUNT_JOB.template())
                        .and().method(HttpMethod.GET)
                        .filters(f -> f.filter(reads).filter(jobIdVariable(problems))
                                .filter(InternalPath.FILTER, InternalPath.ORDER))
                        .uri("lb://" + LoadBalancing.WRITE_SERVICE))
                .route("erase-me", r -> r.path(PublicApi.ERASE_ME.template())
                        .and().method(HttpMethod.DELETE)
                        .filters(f -> f.filter(writes).filter(eraseSubject()))
                        .uri("lb://" + LoadBalancing.WRITE_SERVICE));
        return routes.build();
    }

    /**
     * The filters of each public GET read that {@link LeanReads} serves outside the routes, in the order its route
     * applies them after the global {@link RequestIds} and {@link FollowTokenGuard}: the read budget first; then, for a
     * read of any user, each of its path's user ids checked ({@link #userIdVariable}: 400 naming the variable, before
     * the read reaches any instance) and, for the reads that depend on who asks ({@link #VIEWER_READS}), the viewer set
     * from the token ({@link #viewerFromToken});
     * for a user's own blocks and mutes, the path rewritten to the subject's ({@link #ownerFromToken}: 403 for
     * another's). Beside the routes, so that a filter a read's route gains is seen to be wanted here too.
     *
     * @param reads    the read budget's rate-limit filter
     * @param problems the gateway's problem answers
     * @return the filters of each endpoint of {@link LeanReads#ENDPOINTS}, by endpoint
     */
    static Map<Endpoint, List<GatewayFilter>> leanReadFilters(GatewayFilter reads, ProblemResponses problems) {
        Map<Endpoint, List<GatewayFilter>> filters = new LinkedHashMap<>();
        for (Endpoint read : List.of(PublicApi.LIST_FOLLOWING, PublicApi.LIST_FOLLOWERS, PublicApi.COUNT_FOLLOWS,
                PublicApi.LIST_COMMON_FOLLOWING, PublicApi.LIST_KNOWN_FOLLOWERS, PublicApi.SUGGEST_USERS,
                PublicApi.GET_RELATIONSHIP)) {
            List<GatewayFilter> steps = new ArrayList<>(List.of(reads));
            for (String variable : read.variables()) {
                steps.add(userIdVariable(problems, variable));
            }
            if (VIEWER_READS.contains(read)) {
                steps.add(viewerFromToken());
            }
            filters.put(read, List.copyOf(steps));
        }
        filters.put(PublicApi.LIST_USER_BLOCKS, List.of(reads, ownerFromToken(problems, true)));
        filters.put(PublicApi.LIST_USER_MUTES, List.of(reads, ownerFromToken(problems, true)));
        filters.put(PublicApi.LIST_OWN_BLOCKS, List.of(reads, ownerFromToken(problems, false)));
        filters.put(PublicApi.LIST_OWN_MUTES, List.of(reads, ownerFromToken(problems, false)));
        return filters;
    }

    /**
     * The lean reads whose answer depends on who asks: a protected account's lists and common following
     * (docs/decisions/0064-follow-requests.md), the followers the viewer knows (the viewer's own following), the
     * relationship's blocks and mutes.
     */
    static final List<Endpoint> VIEWER_READS = List.of(PublicApi.LIST_FOLLOWING, PublicApi.LIST_FOLLOWERS,
            PublicApi.LIST_COMMON_FOLLOWING, PublicApi.LIST_KNOWN_FOLLOWERS, PublicApi.GET_RELATIONSHIP);

    /**
     * Rewrites {@code /v1/me/{following|blocking|muting}/{targetId}} to the token subject's internal path.
     */
    static GatewayFilter actorFromToken(ProblemResponses problems) {
        return withUserVariable(problems, "targetId", (exchange, chain, subject, targetId) -> {
            // "/v1/me/{list}/{targetId}": the route's patterns allow only following, blocking and muting.
            String list = exchange.getRequest().getPath().value().split("/")[3];
            return asSubject(exchange, chain, subject, list + "/" + targetId);
        });
    }

    /**
     * Rewrites {@code DELETE /v1/me/followers/{id}} to the unfollow of the token's subject by {@code id},
     * {@code /internal/v1/users/{id}/following/{sub}}: removing a follower is that follower's unfollow in every
     * respect (the row, the events, the counts, the caches, the follow token of the answer, which vouches for
     * {@code id}'s row and so shows the removal at once in the subject's followers list and count read with it).
     * 400 {@code invalid-parameter} naming {@code id} for an id that is not a user id, or is the subject's own.
     */
    static GatewayFilter followerOfSubject(ProblemResponses problems) {
        return withUserVariable(problems, "id", (exchange, chain, subject, followerId) -> {
            if (subject.equals(Long.toString(followerId))) {
                return problems.write(exchange, HttpStatus.BAD_REQUEST, "Bad Request",
                        "id must be another user: nobody follows themselves", "id");
            }
            return withPath(exchange, chain, InternalApi.UNFOLLOW.path(followerId, Long.parseLong(subject)));
        });
    }

    /**
     * Rewrites {@code PUT|DELETE /v1/me/follow-requests/{requesterId}} to the subject's answer to that request,
     * {@code /internal/v1/users/{sub}/follow-requests/{requesterId}}: only the account asked accepts or declines.
     * 400 {@code invalid-parameter} naming {@code requesterId} for an id that is not a user id.
     */
    static GatewayFilter requesterOfSubject(ProblemResponses problems) {
        return withUserVariable(problems, "requesterId", (exchange, chain, subject, requesterId) ->
                withPath(exchange, chain, InternalApi.ACCEPT_REQUEST.path(Long.parseLong(subject), requesterId)));
    }

    /** What a filter of a {@code /v1/me/...} path does with the token's subject and the path's user id. */
    @FunctionalInterface
    private interface SubjectAndUser {
        Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain, String subject, long userId);
    }

    /**
     * A filter that gives {@code then} the token's subject and the path variable {@code name} as a user id, or answers
     * 400 {@code invalid-parameter} naming {@code name} when it is not one.
     */
    private static GatewayFilter withUserVariable(ProblemResponses problems, String name, SubjectAndUser then) {
        return (exchange, chain) -> subject(exchange).flatMap(subject -> {
            long userId;
            try {
                userId = UserIds.parse(ServerWebExchangeUtils.getUriTemplateVariables(exchange).getOrDefault(name, ""),
                        name);
            } catch (InvalidUserIdException e) {
                return problems.write(exchange, HttpStatus.BAD_REQUEST, "Bad Request", e.getMessage(), name);
            }
            return then.filter(exchange, chain, subject, userId);
        });
    }

    /**
     * Rewrites a user's own block, mute, follow-request, protection and hidden-authors paths to the subject's internal
     * path. With
     * {@code pathNamesOwner}, the path is {@code /v1/users/{id}/...} and any {@code id} but the subject's gets 403;
     * otherwise it is {@code /v1/me/...}.
     */
    static GatewayFilter ownerFromToken(ProblemResponses problems, boolean pathNamesOwner) {
        return (exchange, chain) -> subject(exchange).flatMap(subject -> {
            String[] segments = exchange.getRequest().getPath().value().split("/");
            if (pathNamesOwner && !subject.equals(segments[3])) {
                return problems.write(exchange, HttpStatus.FORBIDDEN, "Forbidden",
                        "blocks, mutes and hidden authors are private to their user; use /v1/me/" + segments[4],
                        "id");
            }
            return asSubject(exchange, chain, subject, segments[segments.length - 1]);
        });
    }

    /**
     * 400 {@code invalid-parameter} naming {@code name} unless the path variable {@code name} is a user id in its
     * canonical decimal form; the path then goes on unchanged. Checked here rather than left to the service so that
     * the answer does not depend on which instance, or which version of it, gets the request.
     */
    static GatewayFilter userIdVariable(ProblemResponses problems, String name) {
        return (exchange, chain) -> {
            try {
                UserIds.parse(ServerWebExchangeUtils.getUriTemplateVariables(exchange).getOrDefault(name, ""), name);
            } catch (InvalidUserIdException e) {
                return problems.write(exchange, HttpStatus.BAD_REQUEST, "Bad Request", e.getMessage(), name);
            }
            return chain.filter(exchange);
        };
    }

    /** 400 {@code invalid-parameter} naming {@code jobId} unless it is a job id ({@link #isJobId}). */
    static GatewayFilter jobIdVariable(ProblemResponses problems) {
        return (exchange, chain) -> {
            String jobId = ServerWebExchangeUtils.getUriTemplateVariables(exchange).getOrDefault("jobId", "");
            if (!isJobId(jobId)) {
                String echo = jobId.length() > 32 ? jobId.substring(0, 32) + "..." : jobId;
                return problems.write(exchange, HttpStatus.BAD_REQUEST, "Bad Request",
                        "jobId must be '<userId>-<version>', both positive decimal integers, was '" + echo + "'",
                        "jobId");
            }
            return chain.filter(exchange);
        };
    }

    /**
     * A job id as the write service makes them: {@code <userId>-<version>}, the user whose state change started
     * the job and the state version it made (both positive 64-bit integers in canonical decimal, so that one job
     * has one spelling), e.g. {@code 42-1}.
     */
    static boolean isJobId(String jobId) {
        int dash = jobId.indexOf('-');
        if (dash < 0) {
            return false;
        }
        try {
            UserIds.parse(jobId.substring(0, dash), "jobId");
            UserIds.parse(jobId.substring(dash + 1), "jobId"); // a version: the same syntax and range
            return true;
        } catch (InvalidUserIdException e) {
            return false;
        }
    }

    /**
     * {@code DELETE /v1/me}: erases the token's subject, {@code DELETE /internal/v1/admin/users/{sub}} on the write
     * service. The id comes from the token alone, so a user can erase nobody but themselves; erasing others is the
     * {@code graph:admin} scope's {@code DELETE /v1/admin/users/{id}}.
     */
    static GatewayFilter eraseSubject() {
        return (exchange, chain) -> subject(exchange).flatMap(subject ->
                withPath(exchange, chain, InternalApi.ERASE.path(subject)));
    }

    /**
     * Makes the token's subject the request's viewer ({@link ServiceHeaders#VIEWER_ATTRIBUTE}), which
     * {@link ServiceHeaders} writes as {@code X-Viewer-Id} on the outgoing request; a value the client sent never
     * reaches a service. An attribute rather than a mutated request: mutating copied every header of the request once
     * more per read.
     */
    static GatewayFilter viewerFromToken() {
        return (exchange, chain) -> subject(exchange).flatMap(subject -> {
            exchange.getAttributes().put(ServiceHeaders.VIEWER_ATTRIBUTE, subject);
            return chain.filter(exchange);
        });
    }

    /** The authenticated token's subject: the user id the request acts as. */
    private static Mono<String> subject(ServerWebExchange exchange) {
        return exchange.getPrincipal().cast(JwtAuthenticationToken.class).map(auth -> auth.getToken().getSubject());
    }

    /**
     * Continues with the request's path rewritten to {@code /internal/v1/users/{subject}/{rest}}; the path the caller
     * sent is kept as {@link ServiceHeaders#PUBLIC_PATH_ATTRIBUTE} for the service's problem answers.
     */
    private static Mono<Void> asSubject(ServerWebExchange exchange, GatewayFilterChain chain, String subject,
                                        String rest) {
        return withPath(exchange, chain, InternalApi.USERS + "/" + subject + "/" + rest);
    }

    /**
     * Continues with the request's path replaced by {@code path}, keeping the path the caller sent as
     * {@link ServiceHeaders#PUBLIC_PATH_ATTRIBUTE} for the service's problem answers.
     */
    private static Mono<Void> withPath(ServerWebExchange exchange, GatewayFilterChain chain, String path) {
        exchange.getAttributes().put(ServiceHeaders.PUBLIC_PATH_ATTRIBUTE, exchange.getRequest().getPath().value());
        return chain.filter(exchange.mutate().request(r -> r.path(path)).build());
    }
}
