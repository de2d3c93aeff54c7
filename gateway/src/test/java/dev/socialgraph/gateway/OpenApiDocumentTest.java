package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.localruntime.RepositoryRoot;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.cloud.gateway.handler.predicate.PathRoutePredicateFactory;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.yaml.snakeyaml.Yaml;
import reactor.core.publisher.Mono;

/**
 * {@code docs/openapi.yaml} against the gateway that serves it, in a gateway started without any service or Redis
 * (routing is decided before either is asked): the document is served byte for byte as {@code application/yaml},
 * every path and method a route of the gateway serves is documented, and every documented operation is routed, so
 * neither can change without the other. The routes are the gateway's own {@link RouteLocator}: their path patterns
 * come from the path predicates, their methods from evaluating each route's predicate on a request of every method.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OpenApiDocumentTest {

    /** The one home of the document; the build copies it into the jar. */
    static final Path DOCUMENT = RepositoryRoot.find().resolve("docs/openapi.yaml");

    /** The methods a route could admit: every method the gateway's firewall lets through. */
    private static final List<HttpMethod> METHODS = List.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.POST,
            HttpMethod.PUT, HttpMethod.DELETE, HttpMethod.PATCH, HttpMethod.OPTIONS);

    private static final Pattern VARIABLE = Pattern.compile("\\{[^}/]+}");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.jwt-secret", () -> "openapi-document-test-jwt-secret-0123456789");
        // Nothing listens here: no request of this test reaches a service or Redis.
        registry.add("graph.gateway.check-uri", () -> "http://127.0.0.1:9");
        registry.add("graph.gateway.write-uri", () -> "http://127.0.0.1:9");
        registry.add("spring.data.redis.port", () -> "9");
    }

    private static Map<String, Object> document;

    @LocalServerPort
    int port;

    @Autowired
    RouteLocator routeLocator;

    @BeforeAll
    static void readDocument() throws Exception {
        document = new Yaml().load(Files.readString(DOCUMENT));
    }

    @Test
    void servedDocument_isDocsOpenapiYaml_byteForByte_asApplicationYaml() throws Exception {
        HttpResponse<byte[]> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + OpenApiDocument.PATH)).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofByteArray());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(MediaType.parseMediaType(r.headers().firstValue("Content-Type").orElseThrow()))
                .matches(MediaType.APPLICATION_YAML::isCompatibleWith, "compatible with application/yaml");
        assertThat(r.body()).isEqualTo(Files.readAllBytes(DOCUMENT));
    }

    @Test
    void everyRoutedPathAndMethod_isDocumented() {
        Map<String, Set<String>> documented = documentedOperations();
        List<String> undocumented = new ArrayList<>();
        for (Route route : routes()) {
            Set<String> routeMethods = new TreeSet<>();
            boolean anyDocumented = false;
            for (String pattern : pathPatterns(route)) {
                if (pattern.endsWith("/**")) {
                    // The catch-all of reads (/v1/users/**): what it serves is what the check service answers, and
                    // every documented path it takes is checked below; a pattern alone names no operation.
                    continue;
                }
                Set<String> methods = admittedMethods(route, example(pattern));
                routeMethods.addAll(methods);
                Set<String> documentedHere = documented.get(template(pattern));
                if (documentedHere == null) {
                    undocumented.add("route " + route.getId() + ": path " + pattern + " " + methods);
                    continue;
                }
                for (String method : methods) {
                    anyDocumented |= documentedHere.contains(method);
                }
            }
            // A route admits several methods on several paths (GET /v1/me/blocking and POST /v1/me/hidden, say); the
            // pairs nobody serves answer 405 from the service. Each method must be documented on one of its paths.
            for (String method : routeMethods) {
                boolean somewhere = pathPatterns(route).stream().filter(p -> !p.endsWith("/**"))
                        .anyMatch(p -> documented.getOrDefault(template(p), Set.of()).contains(method));
                if (!somewhere) {
                    undocumented.add("route " + route.getId() + ": method " + method + " on " + pathPatterns(route));
                }
            }
            if (!routeMethods.isEmpty() && !anyDocumented) {
                undocumented.add("route " + route.getId() + ": no documented operation");
            }
        }

        assertThat(undocumented).as("routes the document does not describe").isEmpty();
    }

    @Test
    void everyDocumentedOperation_isRouted() {
        List<Route> routes = routes();
        List<String> unrouted = new ArrayList<>();
        documentedOperations().forEach((path, methods) -> {
            if (path.equals(OpenApiDocument.PATH)) {
                return; // a static resource, not a route: served as the first test shows
            }
            for (String method : methods) {
                String example = example(path);
                boolean routed = routes.stream().anyMatch(r -> matches(r, HttpMethod.valueOf(method), example));
                if (!routed) {
                    unrouted.add(method + " " + path);
                }
            }
        });

        assertThat(documentedOperations()).containsKey(OpenApiDocument.PATH);
        assertThat(unrouted).as("documented operations no route serves").isEmpty();
    }

    @Test
    void everyOperationAnsweringUserIds_takesStringifyIds_andNoOtherDoes() {
        @SuppressWarnings("unchecked")
        Map<String, Object> paths = (Map<String, Object>) document.get("paths");
        List<String> wrong = new ArrayList<>();
        paths.forEach((path, item) -> operations(item).forEach((method, operation) -> {
            boolean answersIds = mentionsUserId(((Map<?, ?>) operation.get("responses")).get("200"),
                    new LinkedHashSet<>());
            boolean takesStringifyIds = String.valueOf(operation.get("parameters"))
                    .contains("#/components/parameters/stringifyIds");
            if (answersIds != takesStringifyIds) {
                wrong.add(method + " " + path + (answersIds ? " answers user ids without" : " takes")
                        + " stringify_ids");
            }
        }));

        assertThat(wrong).isEmpty();
    }

    /** Does this part of the document, with the components it refers to, hold a {@code UserId}? */
    private static boolean mentionsUserId(Object node, Set<String> seen) {
        if (node instanceof Map<?, ?> map) {
            Object ref = map.get("$ref");
            if ("#/components/schemas/UserId".equals(ref)) {
                return true;
            }
            if (ref instanceof String r && seen.add(r)) {
                return mentionsUserId(resolve(r), seen);
            }
            return map.entrySet().stream()
                    .filter(e -> !"headers".equals(e.getKey())) // response headers hold no ids
                    .anyMatch(e -> mentionsUserId(e.getValue(), seen));
        }
        if (node instanceof List<?> list) {
            return list.stream().anyMatch(e -> mentionsUserId(e, seen));
        }
        return false;
    }

    private static Object resolve(String ref) {
        Object node = document;
        for (String part : ref.substring(2).split("/")) {
            node = ((Map<?, ?>) node).get(part);
        }
        return node;
    }

    /** Documented path (variables as {@code {}}) → its methods, upper case. */
    private static Map<String, Set<String>> documentedOperations() {
        @SuppressWarnings("unchecked")
        Map<String, Object> paths = (Map<String, Object>) document.get("paths");
        Map<String, Set<String>> operations = new LinkedHashMap<>();
        paths.forEach((path, item) -> operations.put(template(path),
                new TreeSet<>(operations(item).keySet())));
        return operations;
    }

    /** The operations of a path item by upper-case method. */
    private static Map<String, Map<String, Object>> operations(Object pathItem) {
        Map<String, Map<String, Object>> operations = new LinkedHashMap<>();
        ((Map<?, ?>) pathItem).forEach((key, value) -> {
            String method = ((String) key).toUpperCase(Locale.ROOT);
            if (METHODS.stream().anyMatch(m -> m.name().equals(method))) {
                @SuppressWarnings("unchecked")
                Map<String, Object> operation = (Map<String, Object>) value;
                operations.put(method, operation);
            }
        });
        return operations;
    }

    /** The gateway's routes in the order it tries them; none of them under {@code /internal}. */
    private List<Route> routes() {
        List<Route> routes = routeLocator.getRoutes().collectList().block(Duration.ofSeconds(10));
        assertThat(routes).isNotEmpty()
                .noneMatch(r -> pathPatterns(r).stream().anyMatch(p -> p.startsWith("/internal")));
        return routes;
    }

    /** The patterns of a route's path predicates. */
    private static List<String> pathPatterns(Route route) {
        List<String> patterns = new ArrayList<>();
        route.getPredicate().accept(predicate -> {
            if (predicate.getConfig() instanceof PathRoutePredicateFactory.Config path) {
                patterns.addAll(path.getPatterns());
            }
        });
        assertThat(patterns).as("path patterns of route " + route.getId()).isNotEmpty();
        return patterns;
    }

    /** The methods the route admits on this path. */
    private static Set<String> admittedMethods(Route route, String path) {
        Set<String> methods = new TreeSet<>();
        for (HttpMethod method : METHODS) {
            if (matches(route, method, path)) {
                methods.add(method.name());
            }
        }
        return methods;
    }

    private static boolean matches(Route route, HttpMethod method, String path) {
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.method(method, path));
        return Boolean.TRUE.equals(Mono.from(route.getPredicate().apply(exchange)).block(Duration.ofSeconds(5)));
    }

    /** A path or pattern with every variable written {@code {}}, so that their names do not matter. */
    private static String template(String path) {
        return VARIABLE.matcher(path).replaceAll("{}");
    }

    /** A concrete path of a template or pattern: each variable a user id. */
    private static String example(String path) {
        Matcher m = VARIABLE.matcher(path);
        StringBuilder out = new StringBuilder();
        int id = 12;
        while (m.find()) {
            m.appendReplacement(out, String.valueOf(id++));
        }
        m.appendTail(out);
        return out.toString();
    }
}
