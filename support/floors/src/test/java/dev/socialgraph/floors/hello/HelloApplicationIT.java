package dev.socialgraph.floors.hello;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The hello floor, started as HopBench starts it ({@link HelloApplication#run}): the constant answer behind the
 * services' guard, and none of the bare gateway's machinery, which shares the jar.
 */
class HelloApplicationIT {

    static final String TOKEN = "hello-floor-it-service-token-0123456789ab";

    static ConfigurableApplicationContext hello;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() {
        hello = HelloApplication.run("--server.port=0", "--management.server.port=0",
                "--graph.service-token=" + TOKEN);
    }

    @AfterAll
    static void stop() {
        hello.close();
    }

    private static int port(String property) {
        return Integer.parseInt(hello.getEnvironment().getProperty(property));
    }

    private HttpResponse<String> get(String path, String serviceToken) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port("local.server.port")
                + path)).timeout(Duration.ofSeconds(10));
        if (serviceToken != null) {
            b.header("X-Service-Token", serviceToken);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void hello_withTheServiceToken_answersTheConstant() throws Exception {
        HttpResponse<String> r = get("/internal/v1/hello", TOKEN);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"hello\":\"world\"}");
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
    }

    @Test
    void hello_withoutTheServiceToken_isRefusedByTheServicesGuard() throws Exception {
        HttpResponse<String> r = get("/internal/v1/hello", null);

        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    }

    @Test
    void otherPaths_areNotFound() throws Exception {
        assertThat(get("/internal/v1/users/1/following/2", TOKEN).statusCode()).isEqualTo(404);
    }

    @Test
    void springCloudGateway_isOffHere() {
        assertThat(hello.getBeansOfType(RouteLocator.class)).isEmpty();
        assertThat(hello.getBeansOfType(GlobalFilter.class)).isEmpty();
        assertThat(hello.getBeanFactory().getBeanNamesIterator()).toIterable()
                .map(name -> hello.getBeanFactory().getType(name))
                .filteredOn(type -> type != null)
                .noneMatch(type -> type.getName().startsWith("org.springframework.cloud.gateway."));
    }

    @Test
    void readiness_isUpOnTheManagementPort() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + port("local.management.port") + "/actuator/health/readiness")).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"UP\"");
    }
}
