package dev.socialgraph.floors.bare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The bare gateway floor, started as HopBench starts it ({@link BareGatewayApplication#run}), in front of a stand-in
 * check service (the JDK's HTTP server) that records what reaches it: the check path goes through as it is, with the
 * service credential and nothing of the client's in its place, and the service's answer comes back as it was sent.
 */
class BareGatewayIT {

    static final String TOKEN = "bare-gateway-it-service-token-0123456789";

    /** What the stand-in saw: {@code <method> <path and query> <X-Service-Token>}. */
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    static HttpServer check;
    static ConfigurableApplicationContext gateway;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() throws IOException {
        check = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        check.createContext("/", exchange -> {
            SEEN.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " "
                    + exchange.getRequestHeaders().getFirst("X-Service-Token"));
            boolean refused = exchange.getRequestURI().getPath().startsWith("/internal/v1/users/401/");
            byte[] body = (refused ? "{\"status\":401}" : "{\"following\":true}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type",
                    refused ? "application/problem+json" : "application/json");
            exchange.getResponseHeaders().set("X-Served-By", "stand-in");
            exchange.sendResponseHeaders(refused ? 401 : 200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        check.start();
        gateway = BareGatewayApplication.run("--server.port=0", "--management.server.port=0",
                "--floor.bare.check-uri=http://127.0.0.1:" + check.getAddress().getPort(),
                "--floor.bare.service-token=" + TOKEN);
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        check.stop(0);
    }

    @BeforeEach
    void forget() {
        SEEN.clear();
    }

    private HttpResponse<String> send(String method, String path, String serviceToken) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port("local.server.port")
                        + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10));
        if (serviceToken != null) {
            b.header("X-Service-Token", serviceToken);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int port(String property) {
        return Integer.parseInt(gateway.getEnvironment().getProperty(property));
    }

    @Test
    void theCheckPath_isForwardedAsItIs_withTheServiceToken_andTheAnswerRelayed() throws Exception {
        HttpResponse<String> r = send("GET", "/internal/v1/users/5/following/6?x=1", null);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"following\":true}");
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(r.headers().firstValue("X-Served-By")).hasValue("stand-in");
        assertThat(SEEN).containsExactly("GET /internal/v1/users/5/following/6?x=1 " + TOKEN);
    }

    @Test
    void aClientsServiceToken_isReplacedByTheFloors() throws Exception {
        assertThat(send("GET", "/internal/v1/users/5/following/6", "forged-by-the-client").statusCode())
                .isEqualTo(200);

        assertThat(SEEN).containsExactly("GET /internal/v1/users/5/following/6 " + TOKEN);
    }

    @Test
    void theServicesRefusal_isRelayedAsItWas() throws Exception {
        HttpResponse<String> r = send("GET", "/internal/v1/users/401/following/6", null);

        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.body()).isEqualTo("{\"status\":401}");
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    }

    @Test
    void nothingButTheSingleCheck_isRouted() throws Exception {
        assertThat(send("PUT", "/internal/v1/users/5/following/6", null).statusCode()).isEqualTo(404);
        assertThat(send("GET", "/internal/v1/users/5/counts", null).statusCode()).isEqualTo(404);
        assertThat(send("GET", "/v1/users/5/following/6", null).statusCode()).isEqualTo(404);
        assertThat(SEEN).isEmpty();
    }

    @Test
    void readiness_isUpOnTheManagementPort() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + port("local.management.port") + "/actuator/health/readiness")).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"UP\"");
    }

    @Test
    void withoutAServiceToken_itDoesNotStart() {
        assertThatThrownBy(() -> BareGatewayApplication.run("--server.port=0", "--management.server.port=0",
                "--floor.bare.service-token="))
                .hasStackTraceContaining("GRAPH_SERVICE_TOKEN");
    }
}
