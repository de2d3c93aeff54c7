package dev.socialgraph.gateway;

import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.PublicApi;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.http.Outcome;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationPredicate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatcher;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * The entry of the public single check {@code GET /v1/users/{id}/following/{targetId}}: its own latency meter in
 * place of {@code http.server.requests}, and its bearer token taken from {@link CachingJwtDecoder} instead of through
 * Spring Security's whole filter chain. Together those were about a third of the gateway's CPU per coalesced check
 * (the gateway's JFR profile of 2026-11-27: Spring Security's filters 19 %, the request observation and its meters
 * 10 %, with Reactor's context lookups among them).
 *
 * <p><b>The meter.</b> The single check is left out of the server's {@code http.server.requests} observation
 * ({@link #UNOBSERVED}: no timer, no context, no span), as the check service leaves out its own single check.
 * {@value #TIMER} times every such request instead, whatever answers it (this filter runs right after
 * {@link PathGuard}, before Spring Security): seconds from this filter to the end of the answer, tagged
 * {@code status} (the HTTP status, or {@code UNKNOWN} when the client went away before an answer was committed) and
 * {@code outcome} ({@code SUCCESS}, {@code CLIENT_ERROR}, {@code SERVER_ERROR}, …; {@code UNKNOWN} when the client
 * went away), the two tags of {@code http.server.requests} the dashboard and the error-ratio alert read. An error the
 * handler raises is answered here by {@link GatewayErrors} (the exception handler that would answer it one layer up,
 * and the first of them), so that the timer sees the status the caller gets.
 *
 * <p><b>The token.</b> A request whose one {@code Authorization} header is {@code Bearer <token>}, where
 * {@code <token>} is one that Spring Security's chain accepted earlier and {@link CachingJwtDecoder} still serves
 * (before {@code exp}, not before {@code nbf}, with the same skew, and within the cache's max age), is authenticated
 * here: its principal is the token's {@code sub} (what {@link RateLimits} keys the read budget by), and it is marked
 * with {@link #AUTHENTICATED}, which routes it in Spring Security's {@code WebFilterChainProxy} to a chain of
 * nothing but the main chain's own security response headers writer ({@code Cache-Control},
 * {@code X-Content-Type-Options}, …: the same object, so the same headers). The proxy's firewall still runs before
 * that, and every filter after Spring Security as before. Every other request (no token, a malformed, expired,
 * forged or not yet cached one, several {@code Authorization} headers) goes through the whole chain, as before, and
 * gets the chain's own answer; a token's first check is one of them, and is cached there. So nothing is let through
 * here that the chain has not accepted, and no refusal is written here. Only a lookup: a rejected token is never
 * decoded twice. No authorities are built: the single check needs only an authenticated caller, and this path
 * serves nothing else ({@code /v1/admin/**} never matches it).
 *
 * <p><b>The other reads.</b> Built with the lean reads ({@link LeanReads}), the same entry serves each of their GETs
 * ({@link LeanReads#ENDPOINTS}) too, with a difference in the meter only: they stay in {@code http.server.requests},
 * whose server span is their trace's gateway span as on the routes, with the operation's template as its {@code uri}
 * tag (set here, so that a refusal of Spring Security's chain carries it too). The read is marked with
 * {@link LeanReads#ATTRIBUTE} (its {@link Endpoint}), which is how {@link LeanReads.LeanReadMapping} finds it; its
 * token is taken from the cache as the single check's is. Like the single check, a read authenticated here needs
 * nothing but an authenticated caller: its budget and who may read a user's private lists are the handler's
 * ({@link LeanReadHandler}), as they are the routes' filters.
 */
final class SingleCheckEntry implements WebFilter, Ordered {

    /** Right before Spring Security's {@code WebFilterChainProxy} (order -100), after {@link PathGuard}. */
    static final int ORDER = -101;

    /** The single check's latency meter. */
    static final String TIMER = "graph.gateway.check.requests";

    /** Exchange attribute marking a request authenticated here; its value is the {@link Jwt}. */
    static final String AUTHENTICATED = SingleCheckEntry.class.getName() + ".jwt";

    /** Leaves the single check out of {@code http.server.requests}; every other observation is made. */
    static final ObservationPredicate UNOBSERVED = (name, context) ->
            !(context instanceof ServerRequestObservationContext server && isSingleCheck(server.getCarrier()));

    /** Spring Security's chain for the requests authenticated here: matches those marked {@link #AUTHENTICATED}. */
    static final ServerWebExchangeMatcher AUTHENTICATED_HERE = exchange -> exchange.getAttribute(AUTHENTICATED) != null
            ? ServerWebExchangeMatcher.MatchResult.match() : ServerWebExchangeMatcher.MatchResult.notMatch();

    private static final String PREFIX = PublicApi.USERS + "/";
    private static final String BEARER = "Bearer ";
    /** The query parameter of RFC 6750 section 2.3, which Spring Security's converter looks for. */
    private static final String ACCESS_TOKEN = "access_token";

    private final CachingJwtDecoder tokens;
    private final WebExceptionHandler errors;
    private final MeterRegistry meters;
    private final boolean singleCheck;
    private final boolean leanReads;
    /** Timers by {@link #key}: registered on first use, then a map lookup per request. */
    private final Map<Integer, Timer> timers = new ConcurrentHashMap<>();

    /**
     * @param tokens the gateway's JWT decoder's cache, or {@code null} when it keeps none
     *               ({@code graph.gateway.jwt-cache.maximum-size=0}): then every check goes through Spring Security's
     *               chain, and only the meter is this filter's
     * @param errors the gateway's exception handler ({@link GatewayErrors})
     * @param meters where {@value #TIMER} is registered
     */
    SingleCheckEntry(CachingJwtDecoder tokens, WebExceptionHandler errors, MeterRegistry meters) {
        this(tokens, errors, meters, true, false);
    }

    /**
     * @param tokens      as above
     * @param errors      as above
     * @param meters      as above
     * @param singleCheck whether the single check is served here ({@code graph.gateway.check-coalescing.enabled}):
     *                    off, it is left to Spring Cloud Gateway's {@code check} route and Spring Security's whole chain
     * @param leanReads   whether the other GET reads ({@link LeanReads#ENDPOINTS}) are
     *                    ({@code graph.gateway.lean-reads.enabled})
     */
    SingleCheckEntry(CachingJwtDecoder tokens, WebExceptionHandler errors, MeterRegistry meters, boolean singleCheck,
                     boolean leanReads) {
        this.tokens = tokens;
        this.errors = errors;
        this.meters = meters;
        this.singleCheck = singleCheck;
        this.leanReads = leanReads;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        if (singleCheck && isSingleCheck(request)) {
            long start = System.nanoTime();
            return chain.filter(authenticated(exchange))
                    .onErrorResume(error -> errors.handle(exchange, error))
                    .doFinally(signal -> record(exchange.getResponse(), signal, System.nanoTime() - start));
        }
        Endpoint read = leanReads ? LeanReads.match(request) : null;
        if (read == null) {
            return chain.filter(exchange);
        }
        exchange.getAttributes().put(LeanReads.ATTRIBUTE, read);
        // What a @RequestMapping's handler mapping does for its pattern: http.server.requests' uri tag names it.
        ServerRequestObservationContext.findCurrent(exchange.getAttributes())
                .ifPresent(context -> context.setPathPattern(read.template()));
        return chain.filter(authenticated(exchange));
    }

    /** {@code exchange} with the principal of its cached token ({@link #cachedToken}), marked; else as it is. */
    private ServerWebExchange authenticated(ServerWebExchange exchange) {
        Jwt jwt = cachedToken(exchange.getRequest());
        if (jwt == null) {
            return exchange;
        }
        exchange.getAttributes().put(AUTHENTICATED, jwt);
        return exchange.mutate()
                .principal(Mono.just(new JwtAuthenticationToken(jwt, AuthorityUtils.NO_AUTHORITIES)))
                .build();
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    /**
     * The token of the one {@code Authorization: Bearer} header, when the chain accepted it and it is still valid, and
     * the request offers no other token: Spring Security's bearer token converter refuses a request that carries one
     * in the header and another as an {@code access_token} query parameter (even where it would not read the
     * parameter alone), so such a request goes to the chain for that refusal.
     */
    private Jwt cachedToken(ServerHttpRequest request) {
        if (tokens == null) {
            return null;
        }
        if (request.getURI().getRawQuery() != null && request.getQueryParams().containsKey(ACCESS_TOKEN)) {
            return null;
        }
        List<String> values = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
        if (values == null || values.size() != 1) {
            return null;
        }
        String value = values.get(0);
        // The cache's keys are tokens Spring Security's converter extracted from "Bearer <token>" (its pattern is
        // anchored and allows no space in the token), so "Bearer " followed by a key is such a header exactly.
        return value.startsWith(BEARER) ? tokens.cached(value.substring(BEARER.length())) : null;
    }

    private void record(ServerHttpResponse response, SignalType signal, long nanos) {
        boolean aborted = signal == SignalType.CANCEL;
        HttpStatusCode status = aborted && !response.isCommitted() ? null : response.getStatusCode();
        int key = key(status == null ? 0 : status.value(), aborted);
        Timer timer = timers.get(key);
        if (timer == null) {
            timer = timers.computeIfAbsent(key, k -> Timer.builder(TIMER)
                    .description("public single follow checks, from the gateway's first filter to the answer")
                    .tag("status", status == null ? "UNKNOWN" : Integer.toString(status.value()))
                    .tag("outcome", aborted || status == null ? "UNKNOWN" : Outcome.forStatus(status.value()).name())
                    .register(meters));
        }
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** One key per (status, outcome): the status (0 unknown), negative when the client went away. */
    private static int key(int status, boolean aborted) {
        return aborted ? -1 - status : status;
    }

    /**
     * The public single check: a {@code GET} whose path the coalesced check's handler mapping matches
     * ({@link CheckCoalescing.CoalescedCheckMapping#CHECK}, the one definition of the route), every segment of the raw
     * path plain ({@link PathGuard#isPlain}: a path {@link PathGuard} refuses stays observed, answered as before). Read
     * when each server observation is created, before routing; a path outside {@code /v1/users/} is told apart by
     * its prefix alone.
     */
    static boolean isSingleCheck(ServerHttpRequest request) {
        if (request == null || !HttpMethod.GET.equals(request.getMethod())) {
            return false;
        }
        String path = request.getURI().getRawPath();
        return path != null && path.startsWith(PREFIX) && PathGuard.isPlain(path)
                && CheckCoalescing.CoalescedCheckMapping.CHECK.matches(request.getPath().pathWithinApplication());
    }
}
