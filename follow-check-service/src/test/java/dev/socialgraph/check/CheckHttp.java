package dev.socialgraph.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.localruntime.ServiceProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A small HTTP client for the check service's ITs, on {@code 127.0.0.1:port}; it sends the tests' credential. */
final class CheckHttp {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final int port;

    CheckHttp(int port) {
        this.port = port;
    }

    /** GETs {@code path}; {@code headers} are name, value pairs. */
    HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("X-Service-Token", ServiceProcess.SERVICE_TOKEN);
        if (headers.length > 0) {
            request.headers(headers);
        }
        return HTTP.send(request.GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** POSTs a JSON {@code body} to {@code path}. */
    HttpResponse<String> post(String path, String body) throws Exception {
        return post(path, "application/json", body);
    }

    /** POSTs {@code body} with {@code contentType} to {@code path}. */
    HttpResponse<String> post(String path, String contentType, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("X-Service-Token", ServiceProcess.SERVICE_TOKEN)
                .header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** The body of a 200 answer as JSON; any other status fails the test, showing the body. */
    JsonNode json(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    /**
     * Walks a newest-first list with the given page size, asserting no page is longer.
     *
     * @param timeField the items' time member: {@code followedAt} for follow lists, {@code createdAt} for blocks
     * @return {@code [userId, time]} in order
     */
    List<List<Long>> walk(String path, int limit, String timeField, String... headers) throws Exception {
        List<List<Long>> out = new ArrayList<>();
        String cursor = null;
        do {
            JsonNode page = json(get(path + "?limit=" + limit + (cursor == null ? "" : "&cursor=" + cursor), headers));
            for (JsonNode item : page.get("items")) {
                out.add(List.of(item.get("userId").longValue(), item.get(timeField).longValue()));
            }
            assertThat(page.get("items").size()).isLessThanOrEqualTo(limit);
            cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").stringValue();
        } while (cursor != null);
        return out;
    }
}
