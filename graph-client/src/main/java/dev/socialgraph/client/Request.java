package dev.socialgraph.client;

import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.Method;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One request of the internal API as a resource describes it, before any instance is chosen: the endpoint (graph-wire's
 * descriptor, so its method), the path its template gives for the ids, the query, the headers of this endpoint and a
 * JSON body; and, for a long-poll, how long the service may hold the answer back. The {@link Transport} adds the base
 * URI of the instance each attempt goes to and the headers every request carries (the service credential,
 * {@code Accept}).
 *
 * @param endpoint the endpoint, e.g. {@code InternalApi.CHECK}
 * @param path     {@code endpoint.path(ids...)}, e.g. {@code /internal/v1/users/12/following/13}
 * @param query    the query without {@code ?}, already encoded, or {@code null}
 * @param headers  the endpoint's own headers ({@code dev.socialgraph.wire.Headers} names); unmodifiable
 * @param body     a JSON body, or {@code null}; not copied (the array is built for this request and not changed)
 * @param patience time the service may take on top of the client's {@code requestTimeout} (a long-poll's wait),
 *                 {@link Duration#ZERO} for every ordinary request
 */
record Request(Endpoint endpoint, String path, String query, Map<String, String> headers, byte[] body,
               Duration patience) {

    Request {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(path, "path");
        headers = Map.copyOf(headers);
        if (patience == null || patience.isNegative()) {
            throw new IllegalArgumentException("patience must be >= 0, was " + patience);
        }
    }

    /**
     * A request of {@code endpoint} for {@code values}, its template's variables in order.
     *
     * @throws IllegalArgumentException for a wrong number of values or one that is no path segment (graph-wire's
     *                                  {@link Endpoint#path})
     */
    static Request to(Endpoint endpoint, Object... values) {
        return new Request(endpoint, endpoint.path(values), null, Map.of(), null, Duration.ZERO);
    }

    /** The HTTP method, the endpoint's. */
    Method method() {
        return endpoint.method();
    }

    /** This request with {@code query} (encoded, without {@code ?}). */
    Request query(String query) {
        return new Request(endpoint, path, query, headers, body, patience);
    }

    /** This request with header {@code name}, or unchanged when {@code value} is {@code null}. */
    Request header(String name, String value) {
        if (value == null) {
            return this;
        }
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new Request(endpoint, path, query, more, body, patience);
    }

    /** This request with a JSON body. */
    Request body(byte[] json) {
        return new Request(endpoint, path, query, headers, json, patience);
    }

    /** This request with {@code patience}: the service may answer that much later than an ordinary request. */
    Request patience(Duration patience) {
        return new Request(endpoint, path, query, headers, body, patience);
    }

    /** The path and query, as the request line has them: {@code /internal/v1/users/12/following?limit=50}. */
    String target() {
        return query == null ? path : path + '?' + query;
    }
}
