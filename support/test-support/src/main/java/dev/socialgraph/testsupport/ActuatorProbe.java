package dev.socialgraph.testsupport;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Checks, over real HTTP, what every service must serve from its first version: liveness and readiness probes
 * that answer UP, and a Prometheus scrape that carries the service's {@code application} tag, all on the management
 * port ({@code management.server.port}), and nothing of the actuator on the API port.
 */
public final class ActuatorProbe {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ActuatorProbe() {
    }

    /** Actuator paths every service serves on its management port, and none may serve on its API port. */
    public static final List<String> ACTUATOR_PATHS = List.of("/actuator", "/actuator/health",
            "/actuator/health/liveness", "/actuator/health/readiness", "/actuator/prometheus", "/actuator/info");

    /**
     * GETs {@code http://127.0.0.1:port/path}.
     *
     * @return the response with its body as a string
     */
    public static HttpResponse<String> get(int port, String path) {
        return get(port, path, Map.of());
    }

    /**
     * GETs {@code http://127.0.0.1:port/path} with extra request headers.
     *
     * @param headers header name to value, e.g. the service credential
     * @return the response with its body as a string
     */
    public static HttpResponse<String> get(int port, String path, Map<String, String> headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).GET();
        headers.forEach(builder::header);
        HttpRequest request = builder.build();
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
        // Callers pass the management port: that is where the actuator lives.
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

    /**
     * Asserts that no actuator endpoint answers on an API port: each of {@link #ACTUATOR_PATHS}, asked with the
     * service credential (so a guard's 401 cannot hide an endpoint behind it), answers 404.
     *
     * @param apiPort the service's API port ({@code server.port})
     * @param headers sent with each request, e.g. {@code X-Service-Token}
     * @throws AssertionError naming the first path that answered otherwise
     */
    public static void assertNoActuatorOn(int apiPort, Map<String, String> headers) {
        for (String path : ACTUATOR_PATHS) {
            HttpResponse<String> r = get(apiPort, path, headers);
            if (r.statusCode() != 404) {
                throw new AssertionError(path + " on the API port " + apiPort + " answered " + r.statusCode()
                        + " (expected 404: the actuator lives on the management port only): " + r.body());
            }
        }
    }

    /**
     * Asserts what a management port serves: the actuator and nothing else. Each of {@code apiPaths} (paths the
     * service answers on its API port), asked with {@code headers} (the service credential, a bearer token: so no
     * guard's 401 can hide a route behind it), answers 404; and health shows each component's status but no details
     * (no {@code "details"} member anywhere in {@code /actuator/health}).
     *
     * @param managementPort the service's management port ({@code management.server.port})
     * @param apiPaths       GET paths of the service's own API
     * @param headers        sent with each request
     * @throws AssertionError naming the first path that answered otherwise
     */
    public static void assertOnlyActuatorOn(int managementPort, List<String> apiPaths, Map<String, String> headers) {
        for (String path : apiPaths) {
            HttpResponse<String> r = get(managementPort, path, headers);
            if (r.statusCode() != 404) {
                throw new AssertionError(path + " on the management port " + managementPort + " answered "
                        + r.statusCode() + " (expected 404: it serves the actuator only): " + r.body());
            }
        }
        HttpResponse<String> health = get(managementPort, "/actuator/health");
        if (health.statusCode() != 200 || !health.body().contains("\"components\"")
                || health.body().contains("\"details\"")) {
            throw new AssertionError("/actuator/health answered " + health.statusCode()
                    + " (expected the components' status without details): " + health.body());
        }
    }
}
