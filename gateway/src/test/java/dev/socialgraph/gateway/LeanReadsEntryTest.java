package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.PublicApi;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.security.Principal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/** {@link SingleCheckEntry} built for the lean reads ({@link LeanReads}), and which requests are one. */
class LeanReadsEntryTest {

    private static final String GOOD = "good.token.sig";
    private static final Instant NOW = Instant.parse("2026-11-27T12:00:00Z");

    private final MeterRegistry meters = new SimpleMeterRegistry();
    private final CachingJwtDecoder tokens = new CachingJwtDecoder(
            token -> token.startsWith("good") ? Mono.just(jwt(token)) : Mono.error(new BadJwtException("bad")),
            1 << 20, Duration.ofMinutes(5), SecurityConfiguration.CLOCK_SKEW, Clock.fixed(NOW, java.time.ZoneOffset.UTC),
            null);
    private final AtomicReference<ServerWebExchange> passedOn = new AtomicReference<>();
    private final WebFilterChain ok = exchange -> {
        passedOn.set(exchange);
        exchange.getResponse().setStatusCode(HttpStatus.OK);
        return exchange.getResponse().setComplete();
    };

    private static Jwt jwt(String token) {
        return Jwt.withTokenValue(token).header("alg", "HS256").subject("42")
                .issuedAt(NOW.minusSeconds(10)).expiresAt(NOW.plusSeconds(300)).build();
    }

    private final RecordingDirect direct = new RecordingDirect();

    private SingleCheckEntry entry(boolean singleCheck, boolean leanReads) {
        return new SingleCheckEntry(tokens, new GatewayErrors(new ProblemResponses()), meters, singleCheck, leanReads,
                direct.direct(null));
    }

    private double timed(Endpoint read, String status) {
        var timer = meters.find(SingleCheckEntry.TIMER).tag("uri", read.template()).tag("status", status).timer();
        return timer == null ? 0 : timer.count();
    }

    private static MockServerWebExchange get(String uri) {
        return MockServerWebExchange.from(MockServerHttpRequest.method(HttpMethod.GET, java.net.URI.create(uri))
                .header("Authorization", "Bearer " + GOOD));
    }

    @Test
    void match_findsEachLeanRead_byItsTemplate() {
        for (Endpoint read : LeanReads.ENDPOINTS) {
            String path = read.template().replace("{id}", "12").replace("{otherId}", "13");
            assertThat(LeanReads.match(MockServerHttpRequest.get(path).build())).as(path).isEqualTo(read);
            assertThat(LeanReads.match(MockServerHttpRequest.get(path + "?limit=1").build())).as(path).isEqualTo(read);
            assertThat(LeanReads.match(MockServerHttpRequest.head(path).build())).as(path).isNull();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/users/12/following/13", "/v1/users/12/following/contains", "/v1/me/following/13",
            "/v1/me/hidden", "/v1/users/12/hidden", "/v1/users/12", "/v1/users/12/counts/x", "/v1/admin/users/12",
            "/internal/v1/users/12/counts", "/x/v1/users/12/counts", "/v1/users/12/unknown"})
    void match_findsNothingElse(String path) {
        assertThat(LeanReads.match(MockServerHttpRequest.get(path).build())).isNull();
        assertThat(LeanReads.match(MockServerHttpRequest.post(path).build())).isNull();
    }

    @Test
    void aLeanReadWithACachedToken_isMarked_authenticatedAsItsSubject_andAnsweredByTheReadsHandler_timedByItsTemplate() {
        tokens.decode(GOOD).block();
        MockServerWebExchange exchange = get("/v1/users/12/common-following/13?limit=2");

        entry(true, true).filter(exchange, ok).block();

        assertThat(passedOn.get()).as("not through the rest of the chain").isNull();
        ServerWebExchange next = direct.reads.get();
        assertThat(next.<Endpoint>getAttribute(LeanReads.ATTRIBUTE)).isEqualTo(PublicApi.LIST_COMMON_FOLLOWING);
        assertThat(next.<Jwt>getAttribute(SingleCheckEntry.AUTHENTICATED)).extracting(Jwt::getSubject).isEqualTo("42");
        assertThat(next.getPrincipal().map(Principal::getName).block()).isEqualTo("42");
        assertThat(exchange.getResponse().getHeaders().getFirst(RecordingDirect.SECURITY_HEADERS)).isEqualTo("written");
        assertThat(timed(PublicApi.LIST_COMMON_FOLLOWING, "200")).isEqualTo(1);
        assertThat(SingleCheckEntry.observing(true, true).test("http.server.requests",
                new ServerRequestObservationContext(exchange.getRequest(), exchange.getResponse(), new HashMap<>())))
                .as("timed here instead of in http.server.requests").isFalse();
        assertThat(SingleCheckEntry.observing(true, false).test("http.server.requests",
                new ServerRequestObservationContext(exchange.getRequest(), exchange.getResponse(), new HashMap<>())))
                .as("with the lean reads off, the route's observation").isTrue();
    }

    @Test
    void aReadPathGuardRefuses_staysObserved() {
        MockServerHttpRequest request = MockServerHttpRequest.method(HttpMethod.GET,
                java.net.URI.create("/v1/users/%31/counts")).build();
        assertThat(SingleCheckEntry.observing(true, true).test("http.server.requests",
                new ServerRequestObservationContext(request, new MockServerHttpResponse(), new HashMap<>()))).isTrue();
    }

    @Test
    void aLeanReadWithATokenInTheQuery_isMarkedARead_butLeftToSpringSecuritysChain() {
        tokens.decode(GOOD).block();
        MockServerWebExchange exchange = get("/v1/users/12/counts?access_token=" + GOOD);

        entry(true, true).filter(exchange, ok).block();

        assertThat(passedOn.get()).isSameAs(exchange);
        assertThat(exchange.<Endpoint>getAttribute(LeanReads.ATTRIBUTE)).isEqualTo(PublicApi.COUNT_FOLLOWS);
        assertThat(exchange.<Object>getAttribute(SingleCheckEntry.AUTHENTICATED)).isNull();
        assertThat(direct.reads.get()).isNull();
        assertThat(timed(PublicApi.COUNT_FOLLOWS, "200")).as("timed here whatever answers it").isEqualTo(1);
    }

    @Test
    void withTheLeanReadsOff_aReadIsUntouched() {
        tokens.decode(GOOD).block();
        MockServerWebExchange exchange = get("/v1/users/12/counts");

        entry(true, false).filter(exchange, ok).block();

        assertThat(passedOn.get()).isSameAs(exchange);
        assertThat(exchange.<Object>getAttribute(LeanReads.ATTRIBUTE)).isNull();
        assertThat(exchange.<Object>getAttribute(SingleCheckEntry.AUTHENTICATED)).isNull();
    }

    @Test
    void withCoalescingOff_theSingleCheckIsUntouched_andNotTimed() {
        tokens.decode(GOOD).block();
        MockServerWebExchange exchange = get("/v1/users/12/following/13");

        entry(false, true).filter(exchange, ok).block();

        assertThat(passedOn.get()).isSameAs(exchange);
        assertThat(exchange.<Object>getAttribute(SingleCheckEntry.AUTHENTICATED)).isNull();
        assertThat(meters.find(SingleCheckEntry.TIMER).timers()).isEmpty();
    }
}
