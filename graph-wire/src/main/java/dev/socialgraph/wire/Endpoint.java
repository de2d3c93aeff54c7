package dev.socialgraph.wire;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One endpoint of the fleet's HTTP API, described once: its method, its path template, and the request headers and
 * query parameters it reads. The server that answers it registers its route from {@link #template()}; every client
 * builds its request path with {@link #path}; tests hold the catalogue against the documentation.
 *
 * <p>A template is an absolute path of literal segments and variables {@code {name}}, each variable one whole
 * segment, e.g. {@code /internal/v1/users/{id}/following/{targetId}}; it has no query and no trailing slash.
 *
 * <p>Immutable; equal when method and template are.
 */
public final class Endpoint {

    private final String name;
    private final Method method;
    private final String template;
    private final Set<String> headers;
    private final Set<String> queryParameters;
    /** The template's segments, and which of them are variables: {@link #matches} scans with them, allocating nothing. */
    private final String[] segments;
    private final boolean[] variable;

    /**
     * @param name            a stable name for messages and tests, e.g. {@code check}
     * @param method          the HTTP method
     * @param template        the path template
     * @param headers         the request headers it reads ({@link Headers}), besides the service credential every
     *                        internal endpoint needs
     * @param queryParameters the query parameters it reads
     * @throws IllegalArgumentException for a template that is not absolute, ends in {@code /}, or has a variable that
     *                                  is not a whole segment
     */
    public Endpoint(String name, Method method, String template, Set<String> headers, Set<String> queryParameters) {
        this.name = Objects.requireNonNull(name, "name");
        this.method = Objects.requireNonNull(method, "method");
        this.template = template;
        this.headers = Set.copyOf(headers);
        this.queryParameters = Set.copyOf(queryParameters);
        if (!template.startsWith("/") || template.endsWith("/") || template.contains("?")) {
            throw new IllegalArgumentException("a template is an absolute path without a trailing / or a query: "
                    + template);
        }
        this.segments = segments(template);
        this.variable = new boolean[segments.length];
        for (int i = 0; i < segments.length; i++) {
            String segment = segments[i];
            variable[i] = isVariable(segment);
            if ((segment.contains("{") || segment.contains("}")) && !variable[i]) {
                throw new IllegalArgumentException("a variable must be a whole segment: " + template);
            }
            if (segment.isEmpty()) {
                throw new IllegalArgumentException("a template has no empty segment: " + template);
            }
        }
    }

    /** A stable name for messages and tests; a public operation's {@code operationId}. */
    public String name() {
        return name;
    }

    /** The HTTP method. */
    public Method method() {
        return method;
    }

    /** The path template, e.g. {@code /internal/v1/users/{id}/following/{targetId}}. */
    public String template() {
        return template;
    }

    /** The request headers it reads. */
    public Set<String> headers() {
        return headers;
    }

    /** The query parameters it reads. */
    public Set<String> queryParameters() {
        return queryParameters;
    }

    /** An endpoint that reads no header and no query parameter. */
    public static Endpoint of(String name, Method method, String template) {
        return new Endpoint(name, method, template, Set.of(), Set.of());
    }

    /** This endpoint, also reading {@code headers}. */
    public Endpoint withHeaders(String... names) {
        return new Endpoint(name, method, template, Set.of(names), queryParameters);
    }

    /** This endpoint, also reading the query parameters {@code names}. */
    public Endpoint withQuery(String... names) {
        return new Endpoint(name, method, template, headers, Set.of(names));
    }

    /** The template's variables, in order, e.g. {@code [id, targetId]}. */
    public List<String> variables() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < segments.length; i++) {
            if (variable[i]) {
                names.add(segments[i].substring(1, segments[i].length() - 1));
            }
        }
        return names;
    }

    /**
     * The path of one request: the template with each variable replaced, in order, by a value's decimal or string
     * form. Values are ids and job ids, whose forms need no percent-encoding; a value holding {@code /}, {@code ?},
     * {@code #}, {@code %} or a space is refused rather than encoded.
     *
     * @param values one value per variable, in order (a {@code long} id, or a string)
     * @return e.g. {@code /internal/v1/users/12/following/13}
     * @throws IllegalArgumentException for a wrong number of values or a value that would need encoding
     */
    public String path(Object... values) {
        StringBuilder path = new StringBuilder(template.length() + 16 * values.length);
        int next = 0;
        for (int i = 0; i < segments.length; i++) {
            String segment = segments[i];
            path.append('/');
            if (variable[i]) {
                if (next >= values.length) {
                    throw new IllegalArgumentException(name + " takes " + variables().size() + " values: " + template);
                }
                String value = String.valueOf(values[next++]);
                if (value.isEmpty() || value.chars().anyMatch(c -> c == '/' || c == '?' || c == '#' || c == '%'
                        || c <= ' ')) {
                    throw new IllegalArgumentException("not a path segment: '" + value + "'");
                }
                path.append(value);
            } else {
                path.append(segment);
            }
        }
        if (next != values.length) {
            throw new IllegalArgumentException(name + " takes " + next + " values: " + template);
        }
        return path.toString();
    }

    /**
     * {@link #path(Object...)} for a template of one variable, without boxing: the form a client's per-request path
     * takes.
     *
     * @param id the variable's value, e.g. a positive user id
     * @return e.g. {@code /internal/v1/users/12/counts}
     * @throws IllegalArgumentException when the template has not exactly one variable
     */
    public String path(long id) {
        return path(new String[] {Long.toString(id)});
    }

    /**
     * {@link #path(Object...)} for a template of two variables, without boxing.
     *
     * @param first  the first variable's value
     * @param second the second's
     * @return e.g. {@code /internal/v1/users/12/following/13}
     * @throws IllegalArgumentException when the template has not exactly two variables
     */
    public String path(long first, long second) {
        return path(new String[] {Long.toString(first), Long.toString(second)});
    }

    /**
     * Whether a request of {@code method} for {@code path} (no query) is one of this endpoint: the same number of
     * segments, each literal equal and each variable any non-empty segment. Allocates nothing: servers ask it per
     * request.
     */
    public boolean matches(Method method, String path) {
        return this.method == method && matches(path);
    }

    /** Whether {@code path} (no query) fits the template, whatever the method; see {@link #matches(Method, String)}. */
    public boolean matches(String path) {
        if (path == null || path.isEmpty() || path.charAt(0) != '/' || path.indexOf('?') >= 0) {
            return false;
        }
        int at = 1;
        for (int i = 0; i < segments.length; i++) {
            if (at > path.length()) {
                return false;
            }
            int end = path.indexOf('/', at);
            if (end < 0) {
                end = path.length();
            }
            if (variable[i] ? end == at
                    : end - at != segments[i].length() || !path.regionMatches(at, segments[i], 0, end - at)) {
                return false;
            }
            if (i < segments.length - 1 && end == path.length()) {
                return false;
            }
            at = end + 1;
        }
        return at == path.length() + 1;
    }

    /**
     * The values of the template's variables in {@code path}, raw (as sent: percent-encoded).
     *
     * @param path a path this endpoint {@link #matches(String)}
     * @return variable name → its segment of {@code path}, in the template's order
     * @throws IllegalArgumentException when {@code path} does not match the template
     */
    public Map<String, String> variables(String path) {
        if (!matches(path)) {
            throw new IllegalArgumentException(path + " is not a path of " + template);
        }
        Map<String, String> values = new LinkedHashMap<>(4);
        int at = 1;
        for (int i = 0; i < segments.length; i++) {
            int end = path.indexOf('/', at);
            if (end < 0) {
                end = path.length();
            }
            if (variable[i]) {
                values.put(segments[i].substring(1, segments[i].length() - 1), path.substring(at, end));
            }
            at = end + 1;
        }
        return values;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Endpoint other && method == other.method && template.equals(other.template);
    }

    @Override
    public int hashCode() {
        return method.hashCode() * 31 + template.hashCode();
    }

    @Override
    public String toString() {
        return method + " " + template;
    }

    private static String[] segments(String path) {
        return path.substring(1).split("/", -1);
    }

    private static boolean isVariable(String segment) {
        return segment.length() > 2 && segment.startsWith("{") && segment.endsWith("}")
                && segment.indexOf('{', 1) < 0 && segment.indexOf('}') == segment.length() - 1;
    }
}
