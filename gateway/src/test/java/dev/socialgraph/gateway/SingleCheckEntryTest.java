package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import java.security.Principal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.support.StaticApplicationContext;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

class SingleCheckEntryTest {

    private static final String GOOD = "good.token.sig";
    private static final Instant NOW = Instant.parse("2026-11-27T12:00:00Z");

    private final MeterRegistry meters = new SimpleMeterRegistry();
    private final CachingJwtDecoder tokens = new CachingJwtDecoder(
            token -> token.startsWith("good") ? Mono.just(jwt(token, "42")) : Mono.error(new BadJwtException("bad")),
            1 << 20, Duration.ofMinutes(5), SecurityConfiguration.CLOCK_SKEW, Clock.fixed(NOW, java.time.ZoneOffset.UTC),
            null);
    private final RecordingDirect direct = new RecordingDirect();
    private final SingleCheckEntry entry = new SingleCheckEntry(tokens, new GatewayErrors(new ProblemResponses()), meters,
            true, false, direct.direct(null));
    /** The exchange the rest of the chain was given. */
    private final AtomicReference<ServerWebExchange> passedOn = new AtomicReference<>();

    private static Jwt jwt(String token, String subject) {
        return Jwt.withTokenValue(token).header("alg", "HS256").subject(subject)
                .issuedAt(NOW.minusSeconds(10)).expiresAt(NOW.plusSeconds(300)).build();
    }

    private WebFilterChain answering(HttpStatus status) {
        return exchange -> {
            passedOn.set(exchange);
            exchange.getResponse().setStatusCode(status);
            return exchange.getResponse().setComplete();
        };
    }

    private static MockServerWebExchange check(String... authorization) {
        MockServerHttpRequest.BaseBuilder<?> request = MockServerHttpRequest.get("/v1/users/12/following/13");
        for (String value : authorization) {
            request.header("Authorization", value);
        }
        return MockServerWebExchange.from(request);
    }

    private static MockServerWebExchange withQuery(String query, String authorization) {
        // The raw URI as sent: the template form would encode its '%' once more.
        return MockServerWebExchange.from(MockServerHttpRequest.method(HttpMethod.GET,
                java.net.URI.create("/v1/users/12/following/13" + query)).header("Authorization", authorization));
    }

    private double timed(String status, String outcome) {
        var timer = meters.find(SingleCheckEntry.TIMER).tag("uri", "/v1/users/{id}/following/{targetId}")
                .tag("status", status).tag("outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }

    @Test
    void isSingleCheck_onlyTheGetOfOnePlainFollowerAndFollowee() {
        assertThat(SingleCheckEntry.isSingleCheck(MockServerHttpRequest.get("/v1/users/12/following/13").build()))
                .isTrue();
        assertThat(SingleCheckEntry.isSingleCheck(MockServerHttpRequest.get("/v1/users/12/following/13?x=1").build()))
                .isTrue();
        assertThat(SingleCheckEntry.isSingleCheck(MockServerHttpRequest.get("/v1/users/abc/following/x_y").build()))
                .isTrue();
        assertThat(SingleCheckEntry.isSingleCheck(
                MockServerHttpRequest.method(HttpMethod.HEAD, "/v1/users/12/following/13").build())).isFalse();
        assertThat(SingleCheckEntry.isSingleCheck(
                MockServerHttpRequest.post("/v1/users/12/following/contains").build())).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/users/12/following", "/v1/users/12/followers", "/v1/users/12/counts",
            "/v1/users/12/relationship/13", "/v1/users/12/following/13/x", "/v1/users//following/13",
            "/v1/users/12/following/", "/v1/me/following/13", "/internal/v1/users/12/following/13",
            "/v1/users/%31/following/13", "/v1/users/12/following/1%2e", "/x/v1/users/12/following/13"})
    void everyOtherPath_isNoSingleCheck_andStaysObserved(String path) {
        MockServerHttpRequest request = MockServerHttpRequest.get(path).build();
        assertThat(SingleCheckEntry.isSingleCheck(request)).isFalse();
        assertThat(SingleCheckEntry.observing(true, false).test("http.server.requests",
                new ServerRequestObservationContext(request, new MockServerHttpResponse(), new HashMap<>()))).isTrue();
    }

    @Test
    void theSingleCheck_isNotObserved_andOtherObservationsAre() {
        MockServerHttpRequest request = MockServerHttpRequest.get("/v1/users/12/following/13").build();
        assertThat(SingleCheckEntry.observing(true, false).test("http.server.requests",
                new ServerRequestObservationContext(request, new MockServerHttpResponse(), new HashMap<>()))).isFalse();
        assertThat(SingleCheckEntry.observing(true, false).test("lettuce", new Observation.Context())).isTrue();
        assertThat(SingleCheckEntry.observing(false, true).test("http.server.requests",
                new ServerRequestObservationContext(request, new MockServerHttpResponse(), new HashMap<>())))
                .as("the check's route observes it").isTrue();
    }

    @Test
    void aTokenTheChainAccepted_isAuthenticatedHere_asItsSubject_andAnsweredByTheCheckHandler_withTheHeaders() {
        tokens.decode(GOOD).block(); // the chain's first decode of it
        MockServerWebExchange request = check("Bearer " + GOOD);

        entry.filter(request, answering(HttpStatus.UNAUTHORIZED)).block();

        assertThat(passedOn.get()).as("not through the rest of the chain").isNull();
        ServerWebExchange exchange = direct.check.get();
        assertThat(exchange.<Jwt>getAttribute(SingleCheckEntry.AUTHENTICATED)).extracting(Jwt::getSubject).isEqualTo("42");
        assertThat(exchange.getPrincipal().map(Principal::getName).block()).isEqualTo("42");
        assertThat(exchange.<Map<String, String>>getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE))
                .isEqualTo(Map.of("id", "12", "targetId", "13"));
        assertThat(direct.reads.get()).isNull();
        assertThat(request.getResponse().getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(request.getResponse().getHeaders().getFirst(RecordingDirect.SECURITY_HEADERS)).isEqualTo("written");
        assertThat(timed("200", "SUCCESS")).isEqualTo(1);
    }

    @Test
    void aHeaderTheFirewallRefuses_isAnsweredByItsRejectedHandler_andTimed() {
        tokens.decode(GOOD).block();
        MockServerWebExchange request = MockServerWebExchange.from(MockServerHttpRequest.get("/v1/users/12/following/13")
                .header("Authorization", "Bearer " + GOOD).header("X-Follow-Token", "bad\u0007token"));

        entry.filter(request, answering(HttpStatus.OK)).block();

        assertThat(request.getResponse().getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
        assertThat(passedOn.get()).isNull();
        assertThat(timed("400", "CLIENT_ERROR")).isEqualTo(1);
    }

    @Test
    void inAnotherServersContext_aCachedTokenIsLeftToTheChain() {
        tokens.decode(GOOD).block();
        SingleCheckEntry management = new SingleCheckEntry(tokens, new GatewayErrors(new ProblemResponses()), meters,
                true, false, direct.direct(new StaticApplicationContext()));
        MockServerWebExchange exchange = check("Bearer " + GOOD);

        management.filter(exchange, answering(HttpStatus.NOT_FOUND)).block();

        assertThat(passedOn.get()).isSameAs(exchange);
        assertThat(direct.check.get()).isNull();
        assertThat(exchange.<Object>getAttribute(SingleCheckEntry.AUTHENTICATED)).isNull();
        assertThat(timed("404", "CLIENT_ERROR")).isEqualTo(1);
    }

    @Test
    void everyOtherToken_goesOnUntouched_toSpringSecuritysChain() {
        tokens.decode(GOOD).block();
        for (MockServerWebExchange exchange : new MockServerWebExchange[] {
                check(),                                           // no token
                check("Bearer good.never.decoded"),                // valid, but not accepted by the chain yet
                check("Bearer bad.token.sig"),                     // refused: never cached, never decoded here
                check("bearer " + GOOD),                           // the chain's converter reads it, not this path
                check("Bearer  " + GOOD),                          // two spaces: the chain refuses it
                check("Bearer " + GOOD, "Bearer " + GOOD),         // two headers: the chain refuses them
                check("Basic " + GOOD),
                // a second token in the query: the chain's converter refuses a request with two
                withQuery("?access_token=" + GOOD, "Bearer " + GOOD),
                withQuery("?stringify_ids=true&access_token=x", "Bearer " + GOOD),
                withQuery("?access%5Ftoken=x", "Bearer " + GOOD)}) {
            entry.filter(exchange, answering(HttpStatus.UNAUTHORIZED)).block();
            assertThat(passedOn.get()).as(exchange.getRequest().getURI() + " "
                    + exchange.getRequest().getHeaders().get("Authorization")).isSameAs(exchange);
            assertThat(exchange.<Object>getAttribute(SingleCheckEntry.AUTHENTICATED)).isNull();
        }
        assertThat(timed("401", "CLIENT_ERROR")).isEqualTo(10);
        assertThat(direct.check.get()).isNull();
    }

    @Test
    void withoutATokenCache_everyCheckGoesToTheChain_andIsStillTimed() {
        SingleCheckEntry uncached = new SingleCheckEntry(null, new GatewayErrors(new ProblemResponses()), meters, true,
                false, direct.direct(null));
        MockServerWebExchange exchange = check("Bearer " + GOOD);

        uncached.filter(exchange, answering(HttpStatus.OK)).block();

        assertThat(passedOn.get()).isSameAs(exchange);
        assertThat(timed("200", "SUCCESS")).isEqualTo(1);
    }

    @Test
    void anErrorOfTheHandler_isAnsweredByGatewayErrors_andTimedWithThatStatus() {
        MockServerWebExchange exchange = check();

        entry.filter(exchange, e -> Mono.error(new Coalescer.Overloaded("full"))).block();

        assertThat(exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
        assertThat(exchange.getResponse().getHeaders().getFirst("Retry-After")).isEqualTo("1");
        assertThat(timed("503", "SERVER_ERROR")).isEqualTo(1);
    }

    @Test
    void aCallerThatGoesAway_isTimedUnknown() {
        entry.filter(check(), e -> Mono.never()).subscribe().dispose();

        assertThat(timed("UNKNOWN", "UNKNOWN")).isEqualTo(1);
    }

    @Test
    void otherRequests_areNeitherTimedNorTouched_whenOnlyTheCheckIsServedHere() {
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/v1/users/12/counts")
                .header("Authorization", "Bearer " + GOOD));
        tokens.decode(GOOD).block();

        entry.filter(exchange, answering(HttpStatus.OK)).block();

        assertThat(passedOn.get()).isSameAs(exchange);
        assertThat(meters.find(SingleCheckEntry.TIMER).timers()).isEmpty();
    }
}
