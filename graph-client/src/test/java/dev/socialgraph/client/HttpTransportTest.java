package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The transport on its own, against a JDK HTTP server that records what reaches it: the request line and headers it
 * sends for a {@link Request}, base URIs with a path prefix, which failures move a call to the next instance, where a
 * read about no user goes, and a long-poll's longer timeout.
 */
class HttpTransportTest {

    /** One request as the server saw it; header names lower case. */
    record Seen(String method, String path, String query, Map<String, String> headers, String body) {

        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private HttpServer server;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            Map<String, String> headers = new HashMap<>();
            exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT),
                    String.join(", ", values)));
            seen.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                    exchange.getRequestURI().getRawQuery(), headers,
                    new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            String query = exchange.getRequestURI().getRawQuery();
            if (query != null && query.startsWith("sleep=")) {
                try {
                    Thread.sleep(Long.parseLong(query.substring("sleep=".length()))); // a long-poll holding back
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] answer = "{\"ok\":true}".getBytes(StandardCharsets.US_ASCII);
            exchange.sendResponseHeaders(200, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private URI base(String prefix) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + prefix);
    }

    private static Settings settings(Map<String, URI> checks, List<URI> writes) {
        return new Settings(checks, writes, WriteBalancing.ROUND_ROBIN, false, Duration.ofSeconds(5), 256,
                Duration.ofMillis(500), Duration.ofSeconds(1), 4, 2, Duration.ZERO, "svc", 1000);
    }

    @Test
    void write_toAPathPrefixedInstance_keepsThePrefix_andSendsTheServiceTokenAndTheRequestsHeaders() {
        try (HttpTransport transport = new HttpTransport(settings(Map.of(), List.of(base("/edge/"))))) {
            byte[] body = transport.write(Request.to(InternalApi.FOLLOW, 1L, 2L).header(Headers.FOLLOW_TOKEN, "t"));

            assertThat(new String(body, StandardCharsets.US_ASCII)).isEqualTo("{\"ok\":true}");
        }
        assertThat(seen).singleElement().satisfies(s -> {
            assertThat(s.method()).isEqualTo("PUT");
            assertThat(s.path()).isEqualTo("/edge/internal/v1/users/1/following/2");
            assertThat(s.header(Headers.SERVICE_TOKEN)).isEqualTo("svc");
            assertThat(s.header(Headers.FOLLOW_TOKEN)).isEqualTo("t");
            assertThat(s.header("Accept")).isEqualTo("application/json, application/problem+json");
        });
    }

    @Test
    void read_withABody_postsItAsJson_withTheQuery() {
        try (HttpTransport transport = new HttpTransport(settings(Map.of("check-0", base("")), List.of()))) {
            transport.read(7, Request.to(InternalApi.HIDDEN, 7L).query("x=1")
                    .body("{\"ids\":[1]}".getBytes(StandardCharsets.US_ASCII)));
        }
        assertThat(seen).singleElement().satisfies(s -> {
            assertThat(s.method()).isEqualTo("POST");
            assertThat(s.path()).isEqualTo("/internal/v1/users/7/hidden");
            assertThat(s.query()).isEqualTo("x=1");
            assertThat(s.body()).isEqualTo("{\"ids\":[1]}");
            assertThat(s.header("Content-Type")).startsWith("application/json");
            assertThat(s.header(Headers.FOLLOW_TOKEN)).isNull();
        });
    }

    @Test
    void readAny_startsEachCallAtTheNextCheckInstance() {
        Map<String, URI> checks = new java.util.LinkedHashMap<>();
        checks.put("check-0", base("/a"));
        checks.put("check-1", base("/b"));
        try (HttpTransport transport = new HttpTransport(settings(checks, List.of()))) {
            for (int i = 0; i < 3; i++) {
                transport.readAny(Request.to(InternalApi.CHANGES_HEAD));
            }
        }
        assertThat(seen).extracting(Seen::path).containsExactly("/a/internal/v1/changes/head",
                "/b/internal/v1/changes/head", "/a/internal/v1/changes/head");
    }

    @Test
    void aRequestsPatience_extendsTheResponseTimeout_forThatRequestOnly() {
        try (HttpTransport transport = new HttpTransport(settings(Map.of("check-0", base("")), List.of()))) {
            Request slow = Request.to(InternalApi.CHANGES).query("sleep=1500");

            assertThat(transport.readAny(slow.patience(Duration.ofSeconds(2)))).isNotEmpty();
            assertThatThrownBy(() -> transport.readAny(slow))
                    .isInstanceOfSatisfying(UnavailableException.class,
                            e -> assertThat(e.status()).isEqualTo(GraphClientException.NO_RESPONSE));
        }
    }

    @Test
    void withoutInstancesOfAKind_itsCallsThrow_beforeAnyRequest() {
        try (HttpTransport readsOnly = new HttpTransport(settings(Map.of("check-0", base("")), List.of()));
             HttpTransport writesOnly = new HttpTransport(settings(Map.of(), List.of(base(""))))) {
            assertThatThrownBy(() -> readsOnly.write(Request.to(InternalApi.FOLLOW, 1L, 2L)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("writeInstance");
            assertThatThrownBy(() -> writesOnly.read(1, Request.to(InternalApi.COUNTS, 1L)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("Builder.instance");
            assertThatThrownBy(() -> writesOnly.readAny(Request.to(InternalApi.CHANGES_HEAD)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("Builder.instance");
            assertThat(writesOnly.instanceIds()).isEmpty();
        }
        assertThat(seen).isEmpty();
    }

    @Test
    void base_dropsOneTrailingSlash_andKeepsAPathPrefix() {
        assertThat(HttpTransport.base(URI.create("http://h:1"))).isEqualTo("http://h:1");
        assertThat(HttpTransport.base(URI.create("http://h:1/"))).isEqualTo("http://h:1");
        assertThat(HttpTransport.base(URI.create("https://h/graph/"))).isEqualTo("https://h/graph");
    }

    @Test
    void retryable_areTransportFailuresAnd503_only() {
        assertThat(HttpTransport.retryable(new java.net.ConnectException("refused"))).isTrue();
        assertThat(HttpTransport.retryable(new java.net.SocketTimeoutException("read"))).isTrue();
        assertThat(HttpTransport.retryable(Problems.of("GET /", 503, new byte[0], null, java.time.Instant.now())))
                .isTrue();
        assertThat(HttpTransport.retryable(Problems.of("GET /", 429, new byte[0], null, java.time.Instant.now())))
                .isFalse();
        assertThat(HttpTransport.retryable(Problems.of("GET /", 500, new byte[0], null, java.time.Instant.now())))
                .isFalse();
        assertThat(HttpTransport.retryable(Problems.noResponse("none", null))).isFalse();
        assertThat(HttpTransport.retryable(new IllegalStateException())).isFalse();
    }

    @Test
    void retryable_isNothing_onceTheCallingThreadIsInterrupted() {
        Thread.currentThread().interrupt();
        try {
            assertThat(HttpTransport.retryable(new java.io.InterruptedIOException())).isFalse();
            assertThat(HttpTransport.retryable(Problems.of("GET /", 503, new byte[0], null,
                    java.time.Instant.now()))).isFalse();
        } finally {
            assertThat(Thread.interrupted()).isTrue();
        }
    }
}
