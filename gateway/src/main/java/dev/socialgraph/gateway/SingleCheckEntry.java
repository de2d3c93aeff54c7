package dev.socialgraph.gateway;

import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.PublicApi;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.http.Outcome;
import io.micrometer.observation.ObservationPredicate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.springframework.context.ApplicationContext;
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
import org.springframework.security.web.server.firewall.ServerExchangeRejectedException;
import org.springframework.security.web.server.firewall.ServerExchangeRejectedHandler;
import org.springframework.security.web.server.firewall.ServerWebExchangeFirewall;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.server.WebHandler;
import org.springframework.web.util.pattern.PathPattern;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * The entry of the public reads the gateway serves itself: the single check
 * {@code GET /v1/users/{id}/following/{targetId}} ({@link CheckCoalescing}) and the other GET reads
 * ({@link LeanReads#ENDPOINTS}). Each is timed here in place of {@code http.server.requests}, and a request whose
 * bearer token {@link CachingJwtDecoder} already holds is answered here, straight by its handler, outside Spring
 * Security's filter chain and WebFlux's dispatch. Together the request
 * observation, Spring Security's filters and the dispatch were about two fifths of the gateway's CPU per read (its JFR
 * profiles: 2026-11-27 for the coalesced check, benchmark-results/2026-11-29-gateway-read-profile for the read mix:
 * the observation and its meters 13 %, Spring Security's filters 12 %, WebFlux's handler dispatch 11 %).
 *
 * <p><b>The meter.</b> These reads are left out of the server's {@code http.server.requests} observation
 * ({@link #observing}: no timer, no context, no span), as the check service leaves out its own single check.
 * {@value #TIMER} times every such request instead, whatever answers it (this filter runs right after
 * {@link PathGuard}, before Spring Security): seconds from this filter to the end of the answer, tagged {@code uri}
 * (the operation's template, as {@code http.server.requests} names a mapped request), {@code status} (the HTTP status,
 * or {@code UNKNOWN} when the client went away before an answer was committed) and {@code outcome} ({@code SUCCESS},
 * {@code CLIENT_ERROR}, {@code SERVER_ERROR}, …; {@code UNKNOWN} when the client went away), the tags of
 * {@code http.server.requests} the dashboard and the error-ratio alert read. An error the handler raises is answered
 * here by {@link GatewayErrors} (the exception handler that would answer it one layer up, and the first of them), so
 * that the timer sees the status the caller gets. With no server span, the caller's own trace headers are what the
 * service gets ({@link ServiceHeaders}): a caller's trace still reaches the check service, whose span is its child.
 *
 * <p><b>The token.</b> A request whose one {@code Authorization} header is {@code Bearer <token>}, where
 * {@code <token>} is one that Spring Security's chain accepted earlier and {@link CachingJwtDecoder} still serves
 * (before {@code exp}, not before {@code nbf}, with the same skew, and within the cache's max age), is authenticated
 * here: its principal is the token's {@code sub} (what {@link RateLimits} keys the read budget by), marked with
 * {@link #AUTHENTICATED}. Every other request (no token, a malformed, expired, forged or not yet cached one, several
 * {@code Authorization} headers) goes through the whole chain, as before, and gets the chain's own answer; a token's
 * first read is one of them, and is cached there. So nothing is let through here that the chain has not accepted,
 * and no refusal is written here. Only a lookup: a rejected token is never decoded twice. No authorities are built:
 * these reads need only an authenticated caller ({@code /v1/admin/**} never matches them); who may read a user's
 * private lists, and the read budget, are the handlers' ({@link LeanReadHandler}, {@link CoalescedCheckHandler}), as
 * they are the routes' filters.
 *
 * <p><b>The answer of a request authenticated here</b> ({@link Direct}) is what Spring Security's chain would have
 * let through, in its order: Spring Security's firewall first (the same {@code StrictServerWebExchangeFirewall}
 * checks of the path and of every header read, a refusal answered by the gateway's own rejected handler), then the
 * main chain's own security response headers writer ({@code Cache-Control}, {@code X-Content-Type-Options}, …: the
 * same object, so the same headers), then the read's handler, as its handler mapping would have chosen it, with the
 * path variables the mapping would have set. Nothing else stood between the chain and the handler for a bodiless
 * GET: the body limit ({@link RequestLimits}) reads no body a handler does not read, and these handlers read none.
 * Only in the application's own web server: the management server's child context gets its own handler mappings and
 * serves no {@code /v1} path, so there a request goes on as before.
 */
final class SingleCheckEntry implements WebFilter, Ordered {

    /** Right before Spring Security's {@code WebFilterChainProxy} (order -100), after {@link PathGuard}. */
    static final int ORDER = -101;

    /** The latency meter of every read this entry serves. */
    static final String TIMER = "graph.gateway.read.requests";

    /** Exchange attribute marking a request authenticated here; its value is the {@link Jwt}. */
    static final String AUTHENTICATED = SingleCheckEntry.class.getName() + ".jwt";

    private static final String PREFIX = PublicApi.USERS + "/";
    private static final String BEARER = "Bearer ";
    /** The query parameter of RFC 6750 section 2.3, which Spring Security's converter looks for. */
    private static final String ACCESS_TOKEN = "access_token";
    /** The {@code uri} tag of each kind of read: the single check's, then {@link LeanReads#ENDPOINTS}' in order. */
    private static final List<String> TEMPLATES = Stream.concat(Stream.of(PublicApi.IS_FOLLOWING),
            LeanReads.ENDPOINTS.stream()).map(Endpoint::template).toList();

    private final CachingJwtDecoder tokens;
    private final WebExceptionHandler errors;
    private final MeterRegistry meters;
    private final boolean singleCheck;
    private final boolean leanReads;
    private final Direct direct;
    /** Timers by {@link #key}: registered on first use, then a map lookup per request. */
    private final Map<Integer, Timer> timers = new ConcurrentHashMap<>();

    /**
     * What answers a request authenticated here: Spring Security's firewall and its refusals' handler, the main
     * chain's security headers writer, and the handlers of the reads; and the application context whose web server
     * they serve ({@code null} only in tests, where exchanges have none).
     *
     * @param firewall the firewall of Spring Security's {@code WebFilterChainProxy}
     * @param rejected its handler of refused exchanges
     * @param headers  the main chain's {@code HttpHeaderWriterWebFilter}
     * @param check    the single check's handler, or {@code null} when the single check is not served here
     * @param reads    the other reads' handler, or {@code null} when they are not served here
     * @param context  the application context of the API's web server
     */
    record Direct(ServerWebExchangeFirewall firewall, ServerExchangeRejectedHandler rejected, WebFilter headers,
                  WebHandler check, WebHandler reads, ApplicationContext context) {
    }

    /**
     * @param tokens      the gateway's JWT decoder's cache, or {@code null} when it keeps none
     *                    ({@code graph.gateway.jwt-cache.maximum-size=0}): then every read goes through Spring
     *                    Security's chain, and only the meter is this filter's
     * @param errors      the gateway's exception handler ({@link GatewayErrors})
     * @param meters      where {@value #TIMER} is registered
     * @param singleCheck whether the single check is served here ({@code graph.gateway.check-coalescing.enabled}):
     *                    off, it is left to Spring Cloud Gateway's {@code check} route, the chain and the observation
     * @param leanReads   whether the other GET reads ({@link LeanReads#ENDPOINTS}) are
     *                    ({@code graph.gateway.lean-reads.enabled})
     * @param direct      what answers a request authenticated here
     */
    SingleCheckEntry(CachingJwtDecoder tokens, WebExceptionHandler errors, MeterRegistry meters, boolean singleCheck,
                     boolean leanReads, Direct direct) {
        this.tokens = tokens;
        this.errors = errors;
        this.meters = meters;
        this.singleCheck = singleCheck;
        this.leanReads = leanReads;
        this.direct = direct;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        int kind;
        WebHandler handler;
        Map<String, String> checkVariables = singleCheck ? checkVariables(request) : null;
        if (checkVariables != null) {
            // Where its handler mapping puts them, for the handler answered from here; the mapping sets the same.
            exchange.getAttributes().put(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE, checkVariables);
            kind = 0;
            handler = direct.check();
        } else {
            Endpoint read = leanReads ? LeanReads.match(request) : null;
            if (read == null) {
                return chain.filter(exchange);
            }
            exchange.getAttributes().put(LeanReads.ATTRIBUTE, read);
            kind = 1 + LeanReads.ENDPOINTS.indexOf(read);
            handler = direct.reads();
        }
        long start = System.nanoTime();
        ServerWebExchange authenticated = exchange.getApplicationContext() == direct.context()
                ? authenticated(exchange) : null;
        Mono<Void> answer = authenticated == null ? chain.filter(exchange) : answerDirectly(authenticated, handler);
        return answer
                .onErrorResume(error -> errors.handle(exchange, error))
                .doFinally(signal -> record(kind, exchange.getResponse(), signal, System.nanoTime() - start));
    }

    /**
     * Leaves out of the server's observations the reads this entry times: every one but those is made. Asked when
     * each server observation is created, before routing.
     *
     * @param singleCheck whether the single check is served here
     * @param leanReads   whether the other GET reads are
     * @return {@code false} for the {@code http.server.requests} of a read the entry serves, else {@code true}
     */
    static ObservationPredicate observing(boolean singleCheck, boolean leanReads) {
        return (name, context) -> {
            if (!(context instanceof ServerRequestObservationContext server) || server.getCarrier() == null) {
                return true;
            }
            ServerHttpRequest request = server.getCarrier();
            // A path PathGuard refuses is answered before the entry, and so stays observed.
            return !(singleCheck && isSingleCheck(request)) && !(leanReads && LeanReads.match(request) != null
                    && PathGuard.isPlain(request.getURI().getRawPath()));
        };
    }

    /** The answer of a request authenticated here: as Spring Security's chain would let it through, then handled. */
    private Mono<Void> answerDirectly(ServerWebExchange exchange, WebHandler handler) {
        return direct.firewall().getFirewalledExchange(exchange)
                .flatMap(checked -> direct.headers().filter(checked, handler::handle))
                .onErrorResume(ServerExchangeRejectedException.class, e -> direct.rejected().handle(exchange, e));
    }

    /** {@code exchange} with the principal of its cached token ({@link #cachedToken}), marked; else {@code null}. */
    private ServerWebExchange authenticated(ServerWebExchange exchange) {
        Jwt jwt = cachedToken(exchange.getRequest());
        if (jwt == null) {
            return null;
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

    private void record(int kind, ServerHttpResponse response, SignalType signal, long nanos) {
        boolean aborted = signal == SignalType.CANCEL;
        HttpStatusCode status = aborted && !response.isCommitted() ? null : response.getStatusCode();
        int key = key(kind, status == null ? 0 : status.value(), aborted);
        Timer timer = timers.get(key);
        if (timer == null) {
            timer = timers.computeIfAbsent(key, k -> Timer.builder(TIMER)
                    .description("public reads the gateway serves itself, from its first filter to the answer")
                    .tag("uri", TEMPLATES.get(kind))
                    .tag("status", status == null ? "UNKNOWN" : Integer.toString(status.value()))
                    .tag("outcome", aborted || status == null ? "UNKNOWN" : Outcome.forStatus(status.value()).name())
                    .register(meters));
        }
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** One key per (kind, status, outcome): the status (0 unknown) and whether the client went away, by kind. */
    private static int key(int kind, int status, boolean aborted) {
        return (kind << 12 | status) << 1 | (aborted ? 1 : 0);
    }

    /**
     * The public single check: a {@code GET} whose path the coalesced check's handler mapping matches
     * ({@link CheckCoalescing.CoalescedCheckMapping#CHECK}, the one definition of the route), every segment of the raw
     * path plain ({@link PathGuard#isPlain}: a path {@link PathGuard} refuses stays observed, answered as before). Read
     * when each server observation is created, before routing; a path outside {@code /v1/users/} is told apart by
     * its prefix alone.
     */
    static boolean isSingleCheck(ServerHttpRequest request) {
        return mayBeSingleCheck(request)
                && CheckCoalescing.CoalescedCheckMapping.CHECK.matches(request.getPath().pathWithinApplication());
    }

    /** As {@link #isSingleCheck}, matched once for its path variables ({@code id}, {@code targetId}), or null. */
    private static Map<String, String> checkVariables(ServerHttpRequest request) {
        if (!mayBeSingleCheck(request)) {
            return null;
        }
        PathPattern.PathMatchInfo match = CheckCoalescing.CoalescedCheckMapping.CHECK.matchAndExtract(
                request.getPath().pathWithinApplication());
        return match == null ? null : match.getUriVariables();
    }

    /** A plain {@code GET} under {@code /v1/users/}: what {@link #isSingleCheck} asks before the pattern. */
    private static boolean mayBeSingleCheck(ServerHttpRequest request) {
        if (request == null || !HttpMethod.GET.equals(request.getMethod())) {
            return false;
        }
        String path = request.getURI().getRawPath();
        return path != null && path.startsWith(PREFIX) && PathGuard.isPlain(path);
    }
}
