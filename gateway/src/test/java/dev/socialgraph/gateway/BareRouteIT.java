package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.socialgraph.testsupport.TestServers;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code graph.gateway.bare-route=true} (benchmarks only): the check path goes to the check service as it is, with no
 * token, no rate limit and no header of ours but the service credential (without it the service would refuse it);
 * every other route is unchanged. The check service is a stand-in HTTP
 * server that records the paths and headers it gets.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "graph.gateway.bare-route=true")
class BareRouteIT {

    static final HttpServer CHECK;
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    static {
        try {
            CHECK = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        CHECK.createContext("/", exchange -> {
            SEEN.add(exchange.getRequestURI().getRawPath() + " request-id="
                    + exchange.getRequestHeaders().getFirst(RequestIds.HEADER));
            byte[] body = "{\"following\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        CHECK.start();
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.jwt-secret", () -> "bare-route-it-jwt-secret-0123456789-abcdefgh");
        registry.add("graph.gateway.check-uri", () -> "http://127.0.0.1:" + CHECK.getAddress().getPort());
        registry.add("graph.gateway.write-uri", () -> "http://127.0.0.1:9");
        registry.add("spring.data.redis.host", () -> TestServers.redis().host());
        registry.add("spring.data.redis.port", () -> TestServers.redis().port());
    }

    @AfterAll
    static void stop() {
        CHECK.stop(0);
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private HttpResponse<String> send(String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theCheckPath_isProxiedAsItIs_withoutATokenOrARequestId() throws Exception {
        HttpResponse<String> r = send("GET", "/internal/v1/users/5/following/6");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"following\":true}");
        assertThat(r.headers().firstValue(RequestIds.HEADER)).isEmpty();
        assertThat(SEEN).containsExactly("/internal/v1/users/5/following/6 request-id=null");
    }

    @Autowired
    RouteLocator routes;

    @Test
    void theBareRoute_thenTheSingleCheck_areTheFirstRoutesTried() {
        List<String> ids = routes.getRoutes().map(Route::getId).collectList().block(Duration.ofSeconds(10));

        assertThat(ids).startsWith(RoutesConfiguration.BARE_ROUTE, "check");
    }

    @Test
    void nothingElseIsOpened_andThePublicRoutesStillNeedAToken() throws Exception {
        assertThat(send("PUT", "/internal/v1/users/5/following/6").statusCode()).isEqualTo(404);
        assertThat(send("GET", "/internal/v1/users/5/counts").statusCode()).isEqualTo(404);
        assertThat(send("GET", "/v1/users/5/following/6").statusCode()).isEqualTo(401);
        assertThat(SEEN).doesNotContain("/internal/v1/users/5/counts request-id=null");
    }
}
