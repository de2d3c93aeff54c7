package dev.socialgraph.write;

import dev.socialgraph.localruntime.ServiceProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A small HTTP client for the write service's ITs; it sends the tests' service credential. */
final class WriteHttp {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final int port;

    WriteHttp(int port) {
        this.port = port;
    }

    /** A reply: status, content type, the body as JSON (or null when empty) and Retry-After (or null). */
    record Reply(int status, String contentType, JsonNode body, String retryAfter) {
    }

    Reply follow(Object followerId, Object followeeId) {
        return send("PUT", path(followerId, followeeId));
    }

    Reply unfollow(Object followerId, Object followeeId) {
        return send("DELETE", path(followerId, followeeId));
    }

    /** PUT ({@code on}) or DELETE of {@code /internal/v1/users/{userId}/{list}/{targetId}}, list blocking or muting. */
    Reply relation(String list, boolean on, Object userId, Object targetId) {
        return send(on ? "PUT" : "DELETE", "/internal/v1/users/" + userId + "/" + list + "/" + targetId);
    }

    static String path(Object followerId, Object followeeId) {
        return "/internal/v1/users/" + followerId + "/following/" + followeeId;
    }

    /** GETs {@code path} and returns the body as text. */
    String text(String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("X-Service-Token", ServiceProcess.SERVICE_TOKEN)
                .timeout(Duration.ofSeconds(30)).build();
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Sends a request without body; {@code headers} are name, value pairs. */
    Reply send(String method, String path, String... headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("X-Service-Token", ServiceProcess.SERVICE_TOKEN)
                .timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (headers.length > 0) {
            builder.headers(headers);
        }
        HttpRequest request = builder.build();
        try {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            String body = response.body();
            return new Reply(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                    body == null || body.isEmpty() ? null : JSON.readTree(body),
                    response.headers().firstValue("Retry-After").orElse(null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
