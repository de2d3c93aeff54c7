package dev.socialgraph.testsupport;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Checks, over real HTTP, what every service must serve from its first version: liveness and readiness probes
 * that answer UP, and a Prometheus scrape that carries the service's {@code application} tag.
 */
public final class ActuatorProbe {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ActuatorProbe() {
    }

    /**
     * GETs {@code http://127.0.0.1:port/path}.
     *
     * @return the response with its body as a string
     */
    public static HttpResponse<String> get(int port, String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).GET().build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException("GET " + path + " on port " + port + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Asserts that liveness and readiness answer 200 with status UP and that {@code /actuator/prometheus} serves
     * JVM metrics tagged {@code application="<application>"}.
     *
     * @throws AssertionError naming the endpoint that did not answer as expected
     */
    public static void assertProbesUpAndScraped(int port, String application) {
        for (String probe : new String[] {"/actuator/health/liveness", "/actuator/health/readiness"}) {
            HttpResponse<String> r = get(port, probe);
            if (r.statusCode() != 200 || !r.body().contains("\"status\":\"UP\"")) {
                throw new AssertionError(probe + " answered " + r.statusCode() + " " + r.body());
            }
        }
        HttpResponse<String> scrape = get(port, "/actuator/prometheus");
        String tag = "application=\"" + application + "\"";
        if (scrape.statusCode() != 200 || !scrape.body().contains("jvm_memory_used_bytes{") || !scrape.body().contains(tag)) {
            throw new AssertionError("/actuator/prometheus answered " + scrape.statusCode()
                    + " without jvm_memory_used_bytes tagged " + tag);
        }
    }
}
