package dev.socialgraph.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The shared error mapping in a real Tomcat: every error is problem+json naming the bad input in {@code parameter}. */
@SpringBootTest(classes = GuardedApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"graph.service-token=" + ServiceGuardIT.TOKEN, "management.endpoints.web.exposure.include=health"})
class ProblemAdviceIT {

    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @LocalServerPort
    int port;

    @ParameterizedTest(name = "{0} {1} -> {2} naming {3}")
    @CsvSource(delimiter = '|', value = {
            "GET  | /internal/v1/users/0              |                          | 400 | id",
            "GET  | /internal/v1/users/abc            |                          | 400 | id",
            "GET  | /internal/v1/users/7?limit=101    |                          | 400 | limit",
            "GET  | /internal/v1/users/7?limit=x      |                          | 400 | limit",
            "POST | /internal/v1/ranges               | not json                 | 400 | body",
            "POST | /internal/v1/ranges               | {\"first\":\"x\",\"last\":1} | 400 | first",
            "POST | /internal/v1/ranges               | {\"first\":-1,\"last\":1}  | 400 | first",
            "GET  | /internal/v1/teapot               |                          | 418 | kettle"})
    void badInput_isProblemJsonNamingIt(String method, String path, String body, int status, String parameter)
            throws Exception {
        int rejectedBefore = GuardedApplication.Problems.REJECTED.get();

        HttpResponse<String> r = send(method, path, body);

        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("\"status\":" + status, "\"parameter\":\"" + parameter + "\"");
        assertThat(GuardedApplication.Problems.REJECTED.get()).isEqualTo(rejectedBefore + (status == 400 ? 1 : 0));
    }

    @Test
    void invalidBody_listsEveryBadField() throws Exception {
        HttpResponse<String> r = send("POST", "/internal/v1/ranges", "{\"first\":-1}");

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("\"errors\":[", "\"parameter\":\"first\"", "\"parameter\":\"last\"");
    }

    @Test
    void unavailableShard_is503WithRetryAfter() throws Exception {
        HttpResponse<String> r = send("GET", "/internal/v1/down", null);

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("\"title\":\"Shard unavailable\"").doesNotContain("graph_following_0");
    }

    @Test
    void bug_is500WithoutInternals() throws Exception {
        HttpResponse<String> r = send("GET", "/internal/v1/bug", null);

        assertThat(r.statusCode()).isEqualTo(500);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("\"title\":\"Internal error\"").doesNotContain("secret internals");
    }

    @Test
    void errorsTheContainerAnswersItself_areProblemJsonToo() throws Exception {
        HttpResponse<String> r = send("TRACE", "/internal/v1/hello", null);

        assertThat(r.statusCode()).isEqualTo(405);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                ct -> assertThat(ct).startsWith("application/problem+json"));
        assertThat(r.body()).contains("\"status\":405");
    }

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("X-Service-Token", ServiceGuardIT.TOKEN)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
