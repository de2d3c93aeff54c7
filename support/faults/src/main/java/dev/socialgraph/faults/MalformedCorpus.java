package dev.socialgraph.faults;

import dev.socialgraph.wire.InternalApi;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * At least 500 malformed requests to the gateway (ids, limits, cursors, bodies, headers, tokens, encodings,
 * methods), each written as raw HTTP/1.1 on its own connection so nothing in a client library normalises it away.
 * Every answer must be a 4xx with an {@code application/problem+json} body; none may be a 5xx, no answer, or an
 * empty body.
 */
public final class MalformedCorpus {

    private MalformedCorpus() {
    }

    /**
     * What the corpus got back.
     *
     * @param sent       requests sent
     * @param problem4xx 4xx answers with a problem+json body
     * @param failures   every other answer, described (status line, content type)
     */
    public record Result(int sent, int problem4xx, List<String> failures) {
    }

    /**
     * The corpus's requests, raw.
     *
     * @param bearer  a valid token of the acting user ({@code Bearer <jwt>})
     * @param expired an expired token of that user
     * @param noExp   a correctly signed token without {@code exp}
     * @param numericSub a correctly signed token whose {@code sub} is a JSON number
     * @return the requests, each a complete HTTP/1.1 request with {@code Connection: close}
     */
    public static List<String> requests(String bearer, String expired, String noExp, String numericSub) {
        List<String> out = new ArrayList<>();
        String[] badIds = {"0", "-1", "abc", "1.5", "1e3", "0x10", "+5", "%20", "9223372036854775808",
                "99999999999999999999999999", "1".repeat(5_000), "%zz", "%", "%00", "%2F", "..", "%2e%2e", "1;a=b",
                "1%3Bx", "١٢٣", "NaN", "null", "true", "[1]", "1,2", " 1", "1%20"};
        String[] readShapes = {"/v1/users/%s/following/2", "/v1/users/2/following/%s", "/v1/users/%s/following",
                "/v1/users/%s/followers", "/v1/users/%s/counts", "/v1/users/%s/common-following/2",
                "/v1/users/2/common-following/%s", "/v1/users/%s/relationship/2", "/v1/users/2/relationship/%s",
                "/v1/users/%s/suggestions"};
        for (String shape : readShapes) {
            for (String id : badIds) {
                out.add(get(shape.formatted(id), bearer));
            }
        }
        for (String id : badIds) {
            out.add(raw("POST", "/v1/users/" + id + "/following/contains", bearer, "application/json", "{\"ids\":[1]}"));
            out.add(get("/v1/users/" + id + "/followers?limit=5&cursor=x", bearer));
            out.add(raw("PUT", "/v1/me/following/" + id, bearer, null, null));
            out.add(raw("DELETE", "/v1/me/following/" + id, bearer, null, null));
        }
        String[] badLimits = {"0", "-1", "1001", "abc", "1.5", "99999999999999999999", "%zz", "+"};
        String[] badCursors = {"x", "!!!!", "AAAA", "a".repeat(5_000), "%zz", "eyJ9", "null", "%00"};
        for (String list : new String[] {"following", "followers"}) {
            for (String limit : badLimits) {
                out.add(get("/v1/users/2/" + list + "?limit=" + limit, bearer));
            }
            for (String cursor : badCursors) {
                out.add(get("/v1/users/2/" + list + "?cursor=" + cursor, bearer));
            }
        }
        for (String limit : badLimits) {
            out.add(get("/v1/users/2/common-following/3?limit=" + limit, bearer));
            out.add(get("/v1/users/2/suggestions?limit=" + limit, bearer));
        }
        String contains = "/v1/users/2/following/contains";
        String[] badBodies = {"", "{", "[]", "null", "{}", "{\"ids\":null}", "{\"ids\":\"1\"}",
                "{\"ids\":[0]}", "{\"ids\":[-1]}", "{\"ids\":[\"a\"]}", "{\"ids\":[1.5]}", "{\"ids\":[9223372036854775808]}",
                "{\"ids\":[" + "1,".repeat(1_000) + "1]}", "{\"ids\":[[1]]}", "{\"ids\":[{}]}", "{\"ids\":[1],}",
                "not json", "\u0000", "{\"ids\":[1]} trailing", "{\"ids\":[true]}"};
        for (String body : badBodies) {
            out.add(raw("POST", contains, bearer, "application/json", body));
        }
        out.add(raw("POST", contains, bearer, "application/json", "{\"ids\":[" + "1,".repeat(200_000) + "1]}"));
        // Over the 1 MB body limit of the gateway and the services: 413 before the body is read.
        out.add(raw("POST", contains, bearer, "application/json", "{\"ids\":[" + "1,".repeat(1_500_000) + "1]}"));
        String[] badTokens = {null, "", "Bearer", "Bearer ", "Bearer x", "Basic dXNlcjpwYXNz", bearer + " extra",
                expired, noExp, numericSub, bearer + "x", bearer.substring(0, bearer.length() - 5), "Bearer a.b.c",
                "Bearer " + "a".repeat(8_000)};
        String[] tokenPaths = {"/v1/users/2/following/3", "/v1/users/2/counts", "/v1/me/following/3"};
        for (String token : badTokens) {
            for (String path : tokenPaths) {
                String method = path.startsWith("/v1/me") ? "PUT" : "GET";
                out.add(raw(method, path, token, null, null));
            }
        }
        out.add("GET /v1/users/2/counts HTTP/1.1\r\nHost: x\r\nAuthorization: " + bearer + "\r\nAuthorization: "
                + bearer + "\r\nConnection: close\r\n\r\n");
        out.add("GET /v1/users/2/counts HTTP/1.1\r\nHost: x\r\nAuthorization: " + bearer + "\r\nX-Big: "
                + "a".repeat(9_000) + "\r\nConnection: close\r\n\r\n");
        String[] badPaths = {"//v1/users/2/counts", "/v1//users/2/counts", "/v1/users/2/counts;x=y", "/v1/users;x=y/2/counts",
                "/v1/users/2/../3/counts", "/v1/users/2/%2e%2e/counts", "/v1/users/2%2Fcounts", "/v1/users/2/counts%00",
                InternalApi.USERS + "/2/counts", "/admin/scans", "/v1/users/2/counts?%zz", "/v1/users/2/unknown",
                "/v1/users", "/v1", "/", "/v1/me/following", "/v1/me/following/", "/v1/users/2/following/3/x",
                "/" + "a".repeat(10_000), "/v1/users/2/counts%23frag"};
        for (String path : badPaths) {
            out.add(get(path, bearer));
        }
        for (String method : new String[] {"TRACE", "PATCH", "CONNECT", "FOO"}) {
            out.add(raw(method, "/v1/users/2/counts", bearer, null, null));
            out.add(raw(method, "/v1/me/following/3", bearer, null, null));
        }
        out.add(raw("POST", "/v1/me/following/3", bearer, null, null));
        out.add(raw("GET", "/v1/me/following/3", bearer, null, null));
        out.add(raw("PUT", "/v1/me/following/2/x", bearer, null, null));
        return out;
    }

    /**
     * Sends every request and classifies the answers.
     *
     * @param gateway  the gateway's base URI ({@code http://host:port})
     * @param requests raw requests from {@link #requests}
     * @return the classification; a request that got no answer is a failure
     */
    public static Result send(URI gateway, List<String> requests) {
        int ok = 0;
        List<String> failures = new ArrayList<>();
        for (String request : requests) {
            String answer = exchange(gateway, request);
            String firstLine = answer.lines().findFirst().orElse("(no answer)");
            int status = status(firstLine);
            String head = answer.contains("\r\n\r\n") ? answer.substring(0, answer.indexOf("\r\n\r\n")) : answer;
            String body = answer.contains("\r\n\r\n") ? answer.substring(answer.indexOf("\r\n\r\n") + 4) : "";
            boolean problem = head.toLowerCase(Locale.ROOT).contains("content-type: application/problem+json")
                    && body.contains("\"status\"");
            if (status >= 400 && status < 500 && problem) {
                ok++;
            } else {
                String shown = request.length() > 120 ? request.substring(0, 120) + "..." : request;
                failures.add(firstLine + (problem ? "" : " (no problem+json body)") + " <- "
                        + shown.lines().findFirst().orElse(""));
            }
        }
        return new Result(requests.size(), ok, failures);
    }

    /**
     * Writes one raw request on a new connection and reads the answer until the server closes. The request is
     * written from another thread: a server may answer (413) and close before it has read a large body, and the
     * answer must still be read when the rest of the write fails.
     */
    private static String exchange(URI gateway, String request) {
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        try (Socket socket = new Socket(gateway.getHost(), gateway.getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    out.write(request.getBytes(StandardCharsets.UTF_8));
                    out.flush();
                } catch (IOException e) {
                    // The server closed first; what it answered is read below.
                }
            });
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8192];
            try {
                for (int n; (n = in.read(buffer)) > 0; ) {
                    answer.write(buffer, 0, n);
                }
            } catch (IOException e) {
                // A reset after the answer: keep what arrived; no answer at all is reported as such.
            }
            socket.close();
            writer.join();
        } catch (IOException e) {
            // Not even connected: "(no answer)".
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return answer.toString(StandardCharsets.ISO_8859_1);
    }

    private static int status(String statusLine) {
        String[] parts = statusLine.split(" ");
        try {
            return parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String get(String path, String bearer) {
        return raw("GET", path, bearer, null, null);
    }

    private static String raw(String method, String path, String authorization, String contentType, String body) {
        StringBuilder sb = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: localhost\r\n");
        if (authorization != null) {
            sb.append("Authorization: ").append(authorization).append("\r\n");
        }
        if (contentType != null) {
            sb.append("Content-Type: ").append(contentType).append("\r\n");
        }
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (body != null) {
            sb.append("Content-Length: ").append(bytes.length).append("\r\n");
        }
        sb.append("Connection: close\r\n\r\n");
        if (body != null) {
            sb.append(body);
        }
        return sb.toString();
    }
}
