package dev.socialgraph.reactiveweb;

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

/**
 * graph-web's reactive guard and problem mapping on a real Reactor Netty server: the same credential rule, body
 * limit and problem+json answers as the servlet guard ({@code ServiceGuardIT}, {@code ProblemAdviceIT}).
 */
@SpringBootTest(classes = ReactiveGuardedApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.main.web-application-type=reactive", "graph.service-token=" + ReactiveServiceGuardIT.TOKEN,
                "management.endpoints.web.exposure.include=health"})
class ReactiveServiceGuardIT {

    static final String TOKEN = "reactive-guard-it-token-0123456789abcdef";
    static final int LIMIT = 1024 * 1024;

    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry meters;

    @BeforeEach
    void resetCount() {
        ReactiveGuardedApplication.RECEIVED.set(0);
    }

    @Test
    void withoutOrWithAWrongToken_is401ProblemJson_counted_andNotEchoed() throws Exception {
        double missingBefore = rejected("missing-service-token");
        double wrongBefore = rejected("wrong-service-token");
        String forged = "forged-token-that-must-never-be-echoed-back";

        HttpResponse<String> missing = send(get("/internal/v1/hello"));
        HttpResponse<String> wrong = send(get("/internal/v1/hello").header("X-Service-Token", forged));

        for (HttpResponse<String> r : java.util.List.of(missing, wrong)) {
            assertThat(r.statusCode()).isEqualTo(401);
            assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(r.body()).contains("\"type\":\"https://socialgraph.dev/problems/service-credential\"",
                    "\"parameter\":\"X-Service-Token\"").doesNotContain("world", forged, TOKEN);
        }
        assertThat(rejected("missing-service-token")).isEqualTo(missingBefore + 1);
        assertThat(rejected("wrong-service-token")).isEqualTo(wrongBefore + 1);
        assertThat(send(get("/internal/v1/hello").header("X-Service-Token", TOKEN)).body())
                .isEqualTo("{\"hello\":\"world\"}");
    }

    @Test
    void actuator_needsNoToken_butDotSegmentsOutOfItDo() throws Exception {
        assertThat(send(get("/actuator/health")).statusCode()).isEqualTo(200);
        for (String path : new String[] {"/actuator/../internal/v1/hello", "/actuator/%2e%2e/internal/v1/hello",
                "/actuator;x=y/../internal/v1/hello"}) {
            HttpResponse<String> r = send(get(path));
            assertThat(r.statusCode()).as(path).isIn(400, 401, 404);
            assertThat(r.body()).as(path).doesNotContain("world");
        }
    }

    @Test
    void bodyOverTheLimit_sizedOrChunked_is413BeforeTheServiceSeesIt() throws Exception {
        double before = rejected("body-too-large");

        HttpResponse<String> sized = send(post("/internal/v1/echo",
                HttpRequest.BodyPublishers.ofByteArray(new byte[2_000_000])).header("X-Service-Token", TOKEN));
        HttpResponse<String> chunked = send(post("/internal/v1/echo", chunked(2_000_000))
                .header("X-Service-Token", TOKEN));

        for (HttpResponse<String> r : java.util.List.of(sized, chunked)) {
            assertThat(r.statusCode()).isEqualTo(413);
            assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(r.body()).contains("\"type\":\"https://socialgraph.dev/problems/body-too-large\"",
                    "\"parameter\":\"body\"");
        }
        assertThat(ReactiveGuardedApplication.RECEIVED).hasValue(0);
        assertThat(rejected("body-too-large")).isEqualTo(before + 2);
    }

    @Test
    void bodyAtTheLimit_isServed_sizedAndChunked() throws Exception {
        HttpResponse<String> sized = send(post("/internal/v1/echo",
                HttpRequest.BodyPublishers.ofByteArray(new byte[LIMIT])).header("X-Service-Token", TOKEN));
        HttpResponse<String> chunked = send(post("/internal/v1/echo", chunked(LIMIT)).header("X-Service-Token", TOKEN));

        assertThat(sized.body()).isEqualTo("{\"bytes\":" + LIMIT + "}");
        assertThat(chunked.body()).isEqualTo("{\"bytes\":" + LIMIT + "}");
        assertThat(ReactiveGuardedApplication.RECEIVED).hasValue(2);
    }

    @Test
    void bodyUnderTheLimit_isDecoded_evenAboveTheCodecsDefaultBuffer() throws Exception {
        int size = 600 * 1024; // over Spring's default 256 KB in-memory limit, under the guard's 1 MB
        HttpResponse<String> r = send(post("/internal/v1/decode", HttpRequest.BodyPublishers.ofByteArray(
                "x".repeat(size).getBytes(java.nio.charset.StandardCharsets.US_ASCII)))
                .header("X-Service-Token", TOKEN));

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"chars\":" + size + "}");
    }

    @Test
    void errors_areProblemJsonNamingTheInput() throws Exception {
        assertProblem(send(get("/internal/v1/users/abc").header("X-Service-Token", TOKEN)), 400, "id");
        assertProblem(send(get("/internal/v1/users/5?limit=500").header("X-Service-Token", TOKEN)), 400, "limit");
        HttpResponse<String> down = send(get("/internal/v1/down").header("X-Service-Token", TOKEN));
        assertProblem(down, 503, null);
        assertThat(down.headers().firstValue("Retry-After")).hasValue("1");
        HttpResponse<String> bug = send(get("/internal/v1/bug").header("X-Service-Token", TOKEN));
        assertProblem(bug, 500, null);
        assertThat(bug.body()).doesNotContain("secret internals");
        assertProblem(send(get("/internal/v1/nothing").header("X-Service-Token", TOKEN)), 404, null);
    }

    @Test
    void aFullQueueOfBlockingWork_is503WithRetryAfter_andNoInternals() throws Exception {
        HttpResponse<String> busy = send(get("/internal/v1/busy").header("X-Service-Token", TOKEN));
        assertProblem(busy, 503, null);
        assertThat(busy.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(busy.body()).doesNotContain("queue of blocking reads");
    }

    /** Netty answers these before any filter runs; {@code MalformedRequests} gives them problem+json bodies. */
    @Test
    void whatNettyRefusesItself_isProblemJsonNamingThePart() throws Exception {
        HttpResponse<String> longLine = send(get("/internal/v1/users/" + "1".repeat(5_000))
                .header("X-Service-Token", TOKEN));
        assertThat(longLine.statusCode()).isEqualTo(414);
        assertThat(longLine.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(longLine.body()).contains("\"status\":414", "\"parameter\":\"uri\"");

        HttpResponse<String> bigHeaders = send(get("/internal/v1/hello").header("X-Service-Token", TOKEN)
                .header("X-Padding", "p".repeat(9_000)));
        assertThat(bigHeaders.statusCode()).isEqualTo(431);
        assertThat(bigHeaders.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(bigHeaders.body()).contains("\"status\":431", "\"parameter\":\"headers\"");
    }

    private static void assertProblem(HttpResponse<String> r, int status, String parameter) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("\"status\":" + status, "\"instance\":\"" + r.uri().getPath() + "\"");
        if (parameter != null) {
            assertThat(r.body()).contains("\"parameter\":\"" + parameter + "\"");
        }
    }

    private double rejected(String reason) {
        var counter = meters.find("graph.web.rejected").tag("reason", reason).counter();
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
