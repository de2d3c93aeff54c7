package dev.socialgraph.check.api;

import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.ReadBatch;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.util.UriUtils;

/**
 * What a GET read takes from its request: path variables, query parameters and headers, whether it came as a request
 * of its own ({@link #of(ServerRequest)}) or inside a batch ({@link #of(Endpoint, ReadBatch.Read)}), so that each
 * read is parsed and answered by one piece of code ({@link GraphReadHandlers}) either way.
 */
interface ReadRequest {

    /**
     * A path variable, decoded.
     *
     * @param name the variable's name in the endpoint's template, e.g. {@code id}
     * @return its value
     */
    String pathVariable(String name);

    /**
     * A query parameter, decoded.
     *
     * @param name its name
     * @return its first value, {@code ""} for a name without {@code =}, or {@code null} when absent
     */
    String param(String name);

    /**
     * A header.
     *
     * @param name its name as the endpoint declares it
     * @return its first value, or {@code null}
     */
    String header(String name);

    /**
     * Whether the read is answered only when memory holds the answer (a read of a batch), and otherwise left unanswered
     * for the caller to ask as its own request, instead of waiting for Redis or a database.
     */
    default boolean memoryOnly() {
        return false;
    }

    /** A request of its own. */
    static ReadRequest of(ServerRequest request) {
        return new ReadRequest() {
            @Override
            public String pathVariable(String name) {
                return request.pathVariable(name);
            }

            @Override
            public String param(String name) {
                return request.queryParams().getFirst(name);
            }

            @Override
            public String header(String name) {
                return request.headers().firstHeader(name);
            }
        };
    }

    /**
     * A read of a batch, answered from memory only ({@link #memoryOnly}), its path variables and query parsed as
     * WebFlux parses a request's: the raw segment decoded, the query split on {@code &} and {@code =} and each part
     * decoded as {@code application/x-www-form-urlencoded}.
     *
     * @param endpoint the endpoint its path matches
     * @param read     the read
     * @return its variables, parameters and headers
     */
    static ReadRequest of(Endpoint endpoint, ReadBatch.Read read) {
        Map<String, String> variables = new HashMap<>(4);
        endpoint.variables(read.path()).forEach((name, raw) ->
                variables.put(name, UriUtils.decode(raw, StandardCharsets.UTF_8)));
        Map<String, String> params = Query.parse(read.query());
        return new ReadRequest() {
            @Override
            public String pathVariable(String name) {
                return variables.get(name);
            }

            @Override
            public String param(String name) {
                return params.get(name);
            }

            @Override
            public String header(String name) {
                return read.headers().get(name);
            }

            @Override
            public boolean memoryOnly() {
                return true;
            }
        };
    }

    /** A raw query's parameters, as WebFlux's {@code AbstractServerHttpRequest} splits and decodes them. */
    final class Query {

        private static final Pattern PARAMETER = Pattern.compile("([^&=]+)(=?)([^&]+)?");

        private Query() {
        }

        /** Each name's first value; {@code ""} for a name with {@code =} and no value, {@code null} without. */
        static Map<String, String> parse(String query) {
            if (query == null || query.isEmpty()) {
                return Map.of();
            }
            Map<String, String> params = new HashMap<>(4);
            Matcher matcher = PARAMETER.matcher(query);
            while (matcher.find()) {
                String name = decode(matcher.group(1));
                String value = matcher.group(3) != null ? decode(matcher.group(3))
                        : matcher.group(2).isEmpty() ? null : "";
                if (!params.containsKey(name)) {
                    params.put(name, value);
                }
            }
            return params;
        }

        private static String decode(String text) {
            try {
                return URLDecoder.decode(text, StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return text; // as WebFlux leaves a value it cannot decode
            }
        }
    }
}
