package dev.socialgraph.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The guard in a real Tomcat: credential, actuator exemption, and the body limit for sized and chunked bodies. */
@SpringBootTest(classes = GuardedApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"graph.service-token=" + ServiceGuardIT.TOKEN, "management.endpoints.web.exposure.include=health"})
class ServiceGuardIT {

    static final String TOKEN = "service-guard-it-token-0123456789abcdef";
    static final int LIMIT = 1024 * 1024;

    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry meters;

    @BeforeEach
    void resetCount() {
        GuardedApplication.Endpoints.RECEIVED.set(0);
    }

    @Test
    void request_withoutToken_gets401ProblemJson() throws Exception {
        double before = rejected("missing-service-token");

        HttpResponse<String> r = send(get("/internal/v1/hello"));

        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("\"type\":\"https://socialgraph.dev/problems/service-credential\"",
                "\"title\":\"Unauthorized\"", "\"status\":401", "\"parameter\":\"X-Service-Token\"",
                "needs the service credential");
        assertThat(rejected("missing-service-token")).isEqualTo(before + 1);
    }

    @Test
    void request_withWrongToken_gets401WithoutEchoingIt() throws Exception {
        String forged = "forged-token-that-must-never-be-echoed-back";
        double before = rejected("wrong-service-token");

        HttpResponse<String> r = send(get("/internal/v1/hello").header("X-Service-Token", forged));

        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("does not hold this deployment's service credential").doesNotContain(forged)
                .doesNotContain(TOKEN);
        assertThat(rejected("wrong-service-token")).isEqualTo(before + 1);
        // Same length, one byte off.
        String almost = TOKEN.substring(0, TOKEN.length() - 1) + "g";
        assertThat(send(get("/internal/v1/hello").header("X-Service-Token", almost)).statusCode()).isEqualTo(401);
    }

    @Test
    void request_withToken_isServed() throws Exception {
        HttpResponse<String> r = send(get("/internal/v1/hello").header("X-Service-Token", TOKEN));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"hello\":\"world\"}");
    }

    @Test
    void actuator_needsNoToken() throws Exception {
        HttpResponse<String> r = send(get("/actuator/health"));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"status\":\"UP\"");
    }

    @Test
    void dotSegmentsOutOfTheActuator_needTheToken() throws Exception {
        HttpResponse<String> r = send(get("/actuator/../internal/v1/hello"));
        HttpResponse<String> encoded = send(get("/actuator/%2e%2e/internal/v1/hello"));

        assertThat(r.statusCode()).isIn(400, 401);
        assertThat(encoded.statusCode()).isIn(400, 401);
        assertThat(r.body()).doesNotContain("world");
        assertThat(encoded.body()).doesNotContain("world");
    }

    @Test
    void bodyOverTheLimit_withContentLength_gets413BeforeTheServiceSeesIt() throws Exception {
        double before = rejected("body-too-large");

        HttpResponse<String> r = send(post("/internal/v1/echo",
                HttpRequest.BodyPublishers.ofByteArray(new byte[2_000_000])).header("X-Service-Token", TOKEN));

        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("\"type\":\"https://socialgraph.dev/problems/body-too-large\"", "\"status\":413",
                "\"parameter\":\"body\"", "larger than 1048576 bytes");
        assertThat(GuardedApplication.Endpoints.RECEIVED).hasValue(0);
        assertThat(rejected("body-too-large")).isEqualTo(before + 1);
    }

    @Test
    void bodyOverTheLimit_chunked_gets413BeforeTheServiceSeesIt() throws Exception {
        HttpResponse<String> r = send(post("/internal/v1/echo", chunked(2_000_000)).header("X-Service-Token", TOKEN));

        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(GuardedApplication.Endpoints.RECEIVED).hasValue(0);
    }

    @Test
    void bodyAtTheLimit_isServed_sizedAndChunked() throws Exception {
        HttpResponse<String> sized = send(post("/internal/v1/echo",
                HttpRequest.BodyPublishers.ofByteArray(new byte[LIMIT])).header("X-Service-Token", TOKEN));
        HttpResponse<String> chunked = send(post("/internal/v1/echo", chunked(LIMIT)).header("X-Service-Token", TOKEN));
        HttpResponse<String> small = send(post("/internal/v1/echo", chunked(1000)).header("X-Service-Token", TOKEN));

        assertThat(sized.statusCode()).isEqualTo(200);
        assertThat(sized.body()).isEqualTo("{\"bytes\":" + LIMIT + "}");
        assertThat(chunked.statusCode()).isEqualTo(200);
        assertThat(chunked.body()).isEqualTo("{\"bytes\":" + LIMIT + "}");
        assertThat(small.body()).isEqualTo("{\"bytes\":1000}");
        assertThat(GuardedApplication.Endpoints.RECEIVED).hasValue(3);
    }

    @Test
    void bodyOverTheLimit_withoutToken_gets401() throws Exception {
        HttpResponse<String> r = send(post("/internal/v1/echo", HttpRequest.BodyPublishers.ofByteArray(new byte[2_000_000])));

        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(GuardedApplication.Endpoints.RECEIVED).hasValue(0);
    }

    private double rejected(String reason) {
        var counter = meters.find(Rejections.METER).tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }

    /** A body of unknown length: the JDK client sends it with Transfer-Encoding: chunked. */
    private static HttpRequest.BodyPublisher chunked(int bytes) {
        return HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(new byte[bytes]));
    }

    private HttpRequest.Builder get(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30)).GET();
    }

    private HttpRequest.Builder post(String path, HttpRequest.BodyPublisher body) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/octet-stream").POST(body);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
