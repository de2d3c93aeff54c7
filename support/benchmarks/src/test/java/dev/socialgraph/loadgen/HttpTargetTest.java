package dev.socialgraph.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import dev.socialgraph.loadgen.Operation.Kind;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.core5.http.Header;
import java.util.List;
import org.junit.jupiter.api.Test;

class HttpTargetTest {

    private static final String SECRET = "a-test-secret-that-is-at-least-32-bytes-long";
    private static final String TOKEN = "a-test-service-token-of-at-least-32-bytes";
    private static final EdgeList GRAPH = EdgeList.of(new long[] {10, 20, 30}, new long[] {20, 30, 10});

    @Test
    void direct_mapsReadsToTheCheckServiceAndWritesToTheWriteService() throws Exception {
        try (HttpTarget t = HttpTarget.direct(URI.create("http://h:1/"), URI.create("http://h:2"), TOKEN, List.of())) {
            assertThat(t.request(Operation.of(Kind.CHECK, 10, 20)).getUri())
                    .hasToString("http://h:1/internal/v1/users/10/following/20");
            assertThat(t.request(Operation.of(Kind.FOLLOWERS_PAGE, 10, 0)).getUri())
                    .hasToString("http://h:1/internal/v1/users/10/followers?limit=50");
            HttpUriRequestBase follow = t.request(Operation.of(Kind.FOLLOW, 10, 30));
            assertThat(follow.getMethod()).isEqualTo("PUT");
            assertThat(follow.getUri()).hasToString("http://h:2/internal/v1/users/10/following/30");
            assertThat(t.request(Operation.of(Kind.UNFOLLOW, 10, 30)).getMethod()).isEqualTo("DELETE");
            HttpUriRequestBase batch = t.request(new Operation(Kind.BATCH_CHECK, 10, 0, new long[] {20, 30}));
            assertThat(batch.getMethod()).isEqualTo("POST");
            assertThat(batch.getUri()).hasToString("http://h:1/internal/v1/users/10/following/contains");
            assertThat(header(batch, "Authorization")).isEmpty();
            assertThat(header(batch, "X-Service-Token")).hasValue(TOKEN);
            assertThat(header(follow, "X-Service-Token")).hasValue(TOKEN);
        }
    }

    @Test
    void fixed_sendsTheServiceToken_gatewayLeavesItToTheGateway() {
        try (HttpTarget hello = HttpTarget.fixed("hello", URI.create("http://h:1/internal/v1/hello"), TOKEN, List.of());
             HttpTarget gateway = HttpTarget.gateway(URI.create("http://gw:8080"), SECRET, GRAPH, List.of())) {
            assertThat(header(hello.request(Operation.of(Kind.CHECK, 10, 20)), "X-Service-Token"))
                    .hasValue(TOKEN);
            assertThat(header(gateway.request(Operation.of(Kind.CHECK, 10, 20)), "X-Service-Token"))
                    .isEmpty();
        }
    }

    @Test
    void gateway_signsWritesAsTheFollowerAndReadsAsRotatingViewers() throws Exception {
        try (HttpTarget t = HttpTarget.gateway(URI.create("http://gw:8080"), SECRET, GRAPH, List.of())) {
            HttpUriRequestBase follow = t.request(Operation.of(Kind.FOLLOW, 10, 30));
            assertThat(follow.getUri()).hasToString("http://gw:8080/v1/me/following/30");
            SignedJWT jwt = SignedJWT.parse(header(follow, "Authorization").orElseThrow()
                    .substring("Bearer ".length()));
            assertThat(jwt.verify(new MACVerifier(SECRET.getBytes()))).isTrue();
            assertThat(jwt.getJWTClaimsSet().getSubject()).isEqualTo("10");
            assertThat(jwt.getJWTClaimsSet().getExpirationTime()).isInTheFuture();

            HttpUriRequestBase check = t.request(Operation.of(Kind.CHECK, 20, 30));
            assertThat(check.getUri()).hasToString("http://gw:8080/v1/users/20/following/30");
            String first = header(check, "Authorization").orElseThrow();
            String second = header(t.request(Operation.of(Kind.CHECK, 20, 30)), "Authorization").orElseThrow();
            assertThat(second).isNotEqualTo(first); // the next viewer in turn
        }
    }

    @Test
    void blocksAndHiddenAuthors_goToTheirPaths_asTheUserThroughTheGateway() throws Exception {
        try (HttpTarget direct = HttpTarget.direct(URI.create("http://h:1"), URI.create("http://h:2"), TOKEN, List.of());
             HttpTarget gateway = HttpTarget.gateway(URI.create("http://gw:8080"), SECRET, GRAPH, List.of())) {
            HttpUriRequestBase block = direct.request(Operation.of(Kind.BLOCK, 10, 30));
            assertThat(block.getMethod()).isEqualTo("PUT");
            assertThat(block.getUri()).hasToString("http://h:2/internal/v1/users/10/blocking/30");
            assertThat(direct.request(Operation.of(Kind.UNBLOCK, 10, 30)).getMethod()).isEqualTo("DELETE");
            HttpUriRequestBase hidden = direct.request(new Operation(Kind.HIDDEN, 10, 0, new long[] {20, 30}));
            assertThat(hidden.getMethod()).isEqualTo("POST");
            assertThat(hidden.getUri()).hasToString("http://h:1/internal/v1/users/10/hidden");

            assertThat(gateway.request(Operation.of(Kind.BLOCK, 10, 30)).getUri())
                    .hasToString("http://gw:8080/v1/me/blocking/30");
            HttpUriRequestBase viaGateway = gateway.request(new Operation(Kind.HIDDEN, 20, 0, new long[] {10}));
            assertThat(viaGateway.getUri()).hasToString("http://gw:8080/v1/me/hidden");
            SignedJWT jwt = SignedJWT.parse(header(viaGateway, "Authorization").orElseThrow()
                    .substring("Bearer ".length()));
            assertThat(jwt.getJWTClaimsSet().getSubject()).as("the viewer is the token's subject").isEqualTo("20");
        }
    }

    @Test
    void pages_carryLimitAndCursor_onThePublicAndTheInternalPaths() throws Exception {
        try (HttpTarget direct = HttpTarget.direct(URI.create("http://h:1"), URI.create("http://h:2"), TOKEN, List.of());
             HttpTarget gateway = HttpTarget.gateway(URI.create("http://gw:8080"), SECRET, GRAPH, List.of())) {
            Operation common = Operation.page(Kind.COMMON_FOLLOWING, 10, 20, 37);
            assertThat(direct.request(common).getUri())
                    .hasToString("http://h:1/internal/v1/users/10/common-following/20?limit=37");
            assertThat(gateway.request(common).getUri())
                    .hasToString("http://gw:8080/v1/users/10/common-following/20?limit=37");
            assertThat(gateway.request(Operation.page(Kind.FOLLOWING_PAGE, 10, 0, 20)).getUri())
                    .hasToString("http://gw:8080/v1/users/10/following?limit=20");
            assertThat(gateway.request(Operation.page(Kind.FOLLOWERS_PAGE, 10, 0, 100).withCursor("AQ+/=")).getUri())
                    .hasToString("http://gw:8080/v1/users/10/followers?limit=100&cursor=AQ%2B%2F%3D");
            assertThat(gateway.request(Operation.of(Kind.COUNTS, 10, 0)).getUri())
                    .hasToString("http://gw:8080/v1/users/10/counts");
        }
    }

    @Test
    void nextCursor_readsThePagesCursor_nullOnTheLastPage() {
        assertThat(HttpTarget.nextCursor("""
                {"items":[{"userId":13,"followedAt":1}],"nextCursor":"AQAAAA"}""".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo("AQAAAA");
        assertThat(HttpTarget.nextCursor("""
                {"items":[],"nextCursor":null}""".getBytes(StandardCharsets.UTF_8))).isNull();
    }

    @Test
    void execute_aReadIsAnsweredOnlyBy200_andPageFollowsTheCursor() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/internal/v1/users/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            String query = exchange.getRequestURI().getQuery();
            byte[] body = query != null && query.contains("cursor=c2")
                    ? "{\"items\":[],\"nextCursor\":null}".getBytes(StandardCharsets.UTF_8)
                    : "{\"items\":[{\"userId\":1}],\"nextCursor\":\"c2\"}".getBytes(StandardCharsets.UTF_8);
            int status = path.endsWith("/counts") ? 204 : path.endsWith("/following/2") ? 503 : 200;
            exchange.sendResponseHeaders(status, status == 204 ? -1 : body.length);
            if (status != 204) {
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        server.start();
        URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        try (HttpTarget t = HttpTarget.direct(uri, uri, TOKEN, List.of())) {
            assertThat(t.execute(Operation.of(Kind.COUNTS, 1, 0)).get()).as("204 to a read")
                    .isEqualTo(Target.Outcome.ERROR);
            assertThat(t.execute(Operation.of(Kind.CHECK, 1, 2)).get()).isEqualTo(Target.Outcome.ERROR);
            Operation first = Operation.page(Kind.FOLLOWERS_PAGE, 1, 0, 20);
            assertThat(t.execute(first).get()).isEqualTo(Target.Outcome.OK);
            HttpTarget.PageAnswer page = t.page(first);
            assertThat(page).isEqualTo(new HttpTarget.PageAnswer(Target.Outcome.OK, "c2"));
            assertThat(t.page(first.withCursor(page.nextCursor())))
                    .isEqualTo(new HttpTarget.PageAnswer(Target.Outcome.OK, null));
            assertThat(t.page(Operation.of(Kind.CHECK, 1, 2)).outcome()).isEqualTo(Target.Outcome.ERROR);
        } finally {
            server.stop(0);
        }
    }

    /** The first value of header {@code name}, if {@code request} has one. */
    private static Optional<String> header(HttpUriRequestBase request, String name) {
        return Optional.ofNullable(request.getFirstHeader(name)).map(Header::getValue);
    }
}
