package dev.socialgraph.e2e;

import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Follow and unfollow through the write service's internal HTTP API (HTTP/1.1, kept-alive connections; safe
 * for concurrent use).
 */
public final class WriteClient {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final String base;
    private final String admin;
    private final String serviceToken;

    /**
     * A client of the write service on {@code 127.0.0.1:port}.
     *
     * @param serviceToken the service's credential, sent as {@code X-Service-Token} on every request
     */
    public WriteClient(int port, String serviceToken) {
        this.base = "http://127.0.0.1:" + port + InternalApi.USERS + "/";
        this.admin = "http://127.0.0.1:" + port + InternalApi.ADMIN + "/";
        this.serviceToken = serviceToken;
    }

    /**
     * A reply of the write service.
     *
     * @param status      HTTP status
     * @param following   whether the edge exists after the request
     * @param followedAt  epoch ms of the follow, -1 when the edge does not exist
     * @param version     the follower's following-row version
     * @param followToken the follower's follow token, to send to the check service as {@code X-Follow-Token}
     *                    (read-your-writes); {@code null} unless the status is 200
     */
    public record Reply(int status, boolean following, long followedAt, long version, String followToken) {
    }

    /** PUT: {@code followerId} follows {@code followeeId}. */
    public Reply follow(long followerId, long followeeId) {
        return send("PUT", followerId, followeeId);
    }

    /** DELETE: {@code followerId} unfollows {@code followeeId}. */
    public Reply unfollow(long followerId, long followeeId) {
        return send("DELETE", followerId, followeeId);
    }

    /**
     * PUT ({@code on}) or DELETE of a block or mute: {@code /internal/v1/users/{userId}/{list}/{targetId}}.
     *
     * @param list {@code "blocking"} or {@code "muting"}
     * @return the HTTP status
     */
    public int relation(String list, boolean on, long userId, long targetId) {
        return send(on ? "PUT" : "DELETE", userId, list, targetId).status();
    }

    /**
     * An answer of the account lifecycle API (docs/account-lifecycle.md).
     *
     * @param status HTTP status
     * @param body   the JSON body (a state, a job, or problem+json)
     */
    public record AccountReply(int status, JsonNode body) {

        /** The state's {@code jobId}, or {@code null}. */
        public String jobId() {
            JsonNode id = body.get("jobId");
            return id == null || id.isNull() ? null : id.asString();
        }
    }

    /** PUT {@code admin/users/{id}/deactivation}. */
    public AccountReply deactivate(long userId) {
        return admin("PUT", "users/" + userId + "/deactivation");
    }

    /** DELETE {@code admin/users/{id}/deactivation}: reactivates. */
    public AccountReply reactivate(long userId) {
        return admin("DELETE", "users/" + userId + "/deactivation");
    }

    /** DELETE {@code admin/users/{id}}: erases. */
    public AccountReply erase(long userId) {
        return admin("DELETE", "users/" + userId);
    }

    /**
     * PUT ({@code on}) or DELETE {@code users/{id}/protection}: makes the account protected, or public again
     * (docs/decisions/0064-follow-requests.md); making it public answers the job that accepts its pending requests.
     */
    public AccountReply protection(boolean on, long userId) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + userId + "/protection"))
                .timeout(Duration.ofSeconds(30))
                .header(Headers.SERVICE_TOKEN, serviceToken)
                .method(on ? "PUT" : "DELETE", HttpRequest.BodyPublishers.noBody())
                .build();
        HttpResponse<String> response = exchange(request);
        return new AccountReply(response.statusCode(), JSON.readTree(response.body()));
    }

    /**
     * PUT ({@code accept}) or DELETE {@code users/{userId}/follow-requests/{requesterId}}: the protected account
     * accepts or declines the request; the reply is the requester's follow of it.
     */
    public Reply answerRequest(boolean accept, long userId, long requesterId) {
        return send(accept ? "PUT" : "DELETE", userId, "follow-requests", requesterId);
    }

    /** GET {@code admin/jobs/{jobId}}. */
    public AccountReply job(String jobId) {
        return admin("GET", "jobs/" + jobId);
    }

    private AccountReply admin(String method, String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(admin + path))
                .timeout(Duration.ofSeconds(30))
                .header(Headers.SERVICE_TOKEN, serviceToken)
                .method(method, HttpRequest.BodyPublishers.noBody())
                .build();
        HttpResponse<String> response = exchange(request);
        return new AccountReply(response.statusCode(), JSON.readTree(response.body()));
    }

    /** Sends {@code request}; I/O errors and interruption become unchecked. */
    private HttpResponse<String> exchange(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private Reply send(String method, long followerId, long followeeId) {
        return send(method, followerId, "following", followeeId);
    }

    private Reply send(String method, long followerId, String list, long followeeId) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + followerId + "/" + list + "/" + followeeId))
                .timeout(Duration.ofSeconds(30))
                .header(Headers.SERVICE_TOKEN, serviceToken)
                .method(method, HttpRequest.BodyPublishers.noBody())
                .build();
        HttpResponse<String> response = exchange(request);
        if (response.statusCode() == 202) { // a pending follow request: no follow
            return new Reply(202, false, -1, JSON.readTree(response.body()).get("version").asLong(), null);
        }
        if (response.statusCode() != 200) {
            return new Reply(response.statusCode(), false, -1, -1, null);
        }
        JsonNode body = JSON.readTree(response.body());
        JsonNode token = body.get("followToken");
        String followToken = token == null || token.isNull() ? null : token.asString();
        if (!body.has("following")) {
            return new Reply(200, false, -1, body.get("version").asLong(), followToken);
        }
        JsonNode followedAt = body.get("followedAt");
        return new Reply(200, body.get("following").asBoolean(),
                followedAt == null || followedAt.isNull() ? -1 : followedAt.asLong(), body.get("version").asLong(),
                followToken);
    }
}
