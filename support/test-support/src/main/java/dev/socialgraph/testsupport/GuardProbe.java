package dev.socialgraph.testsupport;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Checks, over real HTTP, the service guard every service runs (graph-web): an endpoint refuses requests without
 * the service credential or with a wrong one (401 problem+json, the presented value not echoed), and a body over
 * the 1 MB limit, sized or chunked, gets 413 problem+json. What the endpoint did not do (no write, no scan) is for
 * the calling test to assert.
 */
public final class GuardProbe {

    /** The credential header. */
    public static final String HEADER = "X-Service-Token";

    /** A body larger than the services' default limit (1 MB), below Tomcat's 2 MB swallow size (kept alive). */
    public static final int OVERSIZED_BODY = 2_000_000;

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private GuardProbe() {
    }

    /**
     * Asserts that {@code method path} without {@code X-Service-Token}, and with a wrong one, is answered 401
     * {@code application/problem+json} naming the header, without echoing the wrong value.
     *
     * @throws AssertionError naming the case that was answered otherwise
     */
    public static void assertRefusedWithoutCredential(int port, String method, String path) {
        expectProblem(send(request(port, method, path, HttpRequest.BodyPublishers.noBody())), 401,
                "X-Service-Token", method + " " + path + " without a credential");
        String forged = "forged-service-token-0123456789-0123456789";
        HttpResponse<String> wrong = send(request(port, method, path, HttpRequest.BodyPublishers.noBody())
                .header(HEADER, forged));
        expectProblem(wrong, 401, "X-Service-Token", method + " " + path + " with a wrong credential");
        if (wrong.body().contains(forged)) {
            throw new AssertionError("the 401 echoed the presented credential: " + wrong.body());
        }
    }

    /**
     * Asserts that {@code method path} with the credential and a {@link #OVERSIZED_BODY}-byte JSON-typed body is
     * answered 413 {@code application/problem+json}, once with {@code Content-Length} and once chunked.
     *
     * @param token the service's credential, so that the body limit (not the credential) is what refuses it
     * @throws AssertionError naming the case that was answered otherwise
     */
    public static void assertOversizedBodyRefused(int port, String method, String path, String token) {
        byte[] body = new byte[OVERSIZED_BODY];
        expectProblem(send(request(port, method, path, HttpRequest.BodyPublishers.ofByteArray(body))
                .header(HEADER, token)), 413, "body", method + " " + path + " with a 2 MB body");
        // Unknown length: the JDK client sends it chunked.
        expectProblem(send(request(port, method, path,
                        HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
                .header(HEADER, token)), 413, "body", method + " " + path + " with a chunked 2 MB body");
    }

    /**
     * Asserts that a path Tomcat refuses itself, before any filter (an encoded NUL), is answered 400 problem+json, not
     * with Tomcat's HTML page: graph-web's error report valve is installed.
     *
     * @param port  the servlet service's API port
     * @param token its service credential
     * @throws AssertionError otherwise
     */
    public static void assertTomcatRefusalIsProblem(int port, String token) {
        HttpResponse<String> r = call(port, "GET", "/internal/v1/users/%00/following", token);
        String type = r.headers().firstValue("Content-Type").orElse("");
        if (r.statusCode() != 400 || !type.startsWith("application/problem+json") || !r.body().contains("\"status\":400")
                || r.body().contains("<html")) {
            throw new AssertionError("an encoded NUL in the path: expected 400 problem+json, got " + r.statusCode() + " "
                    + type + " " + r.body());
        }
    }

    /**
     * Sends {@code method path} without a body, with {@code X-Service-Token: token}.
     *
     * @return the response with its body as a string
     */
    public static HttpResponse<String> call(int port, String method, String path, String token) {
        return send(request(port, method, path, HttpRequest.BodyPublishers.noBody()).header(HEADER, token));
    }

    private static HttpRequest.Builder request(int port, String method, String path, HttpRequest.BodyPublisher body) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").method(method, body);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(request.build().method() + " " + request.build().uri() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void expectProblem(HttpResponse<String> r, int status, String parameter, String what) {
        String type = r.headers().firstValue("Content-Type").orElse("");
        if (r.statusCode() != status || !type.startsWith("application/problem+json")
                || !r.body().contains("\"status\":" + status) || !r.body().contains("\"parameter\":\"" + parameter + "\"")) {
            throw new AssertionError(what + ": expected " + status + " problem+json naming " + parameter + ", got "
                    + r.statusCode() + " " + type + " " + r.body());
        }
    }
}
