package dev.socialgraph.check.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.localruntime.RepositoryRoot;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.objenesis.ObjenesisStd;
import org.springframework.http.HttpMethod;
import org.springframework.web.reactive.function.server.RequestPredicate;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.yaml.snakeyaml.Yaml;

/**
 * The gateway passes every {@code GET} and {@code POST} under {@code /v1/users/} to this service's
 * {@code /internal/v1/users/} (and {@code /v1/me/blocking}, {@code /v1/me/muting}, {@code /v1/me/hidden} to the
 * caller's own), so what this service routes there is public: each such endpoint of {@link ReadRoutes} must be an
 * operation of {@code docs/openapi.yaml}, and each documented read must be an endpoint here. The gateway's own
 * routes are checked against the document by the gateway's {@code OpenApiDocumentTest}.
 */
class DocumentedReadsTest {

    private static final Path DOCUMENT = RepositoryRoot.find().resolve("docs/openapi.yaml");
    private static final String INTERNAL_USERS = "/internal/v1/users/{}/";

    @Test
    void everyUserEndpointOfTheCheckService_isADocumentedOperation_andNothingElseIs() throws Exception {
        assertThat(documentedReads()).isNotEmpty().isEqualTo(servedUserEndpoints());
    }

    /** {@code METHOD /internal/v1/users/{}/...} for every GET and POST the document has under /v1/users and /v1/me. */
    private static Set<String> documentedReads() throws Exception {
        Map<String, Object> document = new Yaml().load(Files.readString(DOCUMENT));
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> paths = (Map<String, Map<String, Object>>) document.get("paths");
        Set<String> reads = new TreeSet<>();
        paths.forEach((path, item) -> {
            String internal = internal(template(path));
            for (String key : item.keySet()) {
                String method = key.toUpperCase(Locale.ROOT);
                if (internal != null && (method.equals("GET") || method.equals("POST"))) {
                    reads.add(method + " " + internal);
                }
            }
        });
        return reads;
    }

    /** The check service's path for a public one, or {@code null} for one the gateway sends elsewhere. */
    private static String internal(String publicPath) {
        if (publicPath.startsWith("/v1/users/{}/")) {
            return "/internal" + publicPath;
        }
        String rest = publicPath.startsWith("/v1/me/") ? publicPath.substring("/v1/me/".length()) : null;
        // /v1/me/{list}: the caller's own list or hidden authors; /v1/me/{list}/{targetId} is a write.
        return rest != null && !rest.contains("/") ? INTERNAL_USERS + rest : null;
    }

    /** {@code METHOD path} of every route of {@link ReadRoutes} under /internal/v1/users/{id}/. */
    private static Set<String> servedUserEndpoints() throws Exception {
        Set<String> served = new TreeSet<>();
        RouterFunctions.Visitor routes = visitor(RouterFunctions.Visitor.class, (name, args) -> {
            if (name.equals("route")) {
                List<String> methods = new ArrayList<>();
                List<String> patterns = new ArrayList<>();
                ((RequestPredicate) args[0]).accept(visitor(RequestPredicates.Visitor.class, (n, a) -> {
                    if (n.equals("method")) {
                        @SuppressWarnings("unchecked")
                        Set<HttpMethod> set = (Set<HttpMethod>) a[0];
                        set.forEach(m -> methods.add(m.name()));
                    } else if (n.equals("path")) {
                        patterns.add(template((String) a[0]));
                    }
                }));
                // Routes without a method are the 405 answers for a path's other methods.
                for (String method : methods) {
                    for (String pattern : patterns) {
                        if (pattern.startsWith(INTERNAL_USERS)) {
                            served.add(method + " " + pattern);
                        }
                    }
                }
            }
        });
        routerFunction().accept(routes);
        return served;
    }

    /**
     * The router function {@link ReadRoutes} publishes, built with inert collaborators: its routes are only visited,
     * never called. Each parameter of the bean method gets an instance made without a constructor (Objenesis) or, for
     * an interface, a proxy that does nothing, so the test follows the method's signature as it changes.
     */
    private static RouterFunction<?> routerFunction() throws Exception {
        Method factory = Arrays.stream(ReadRoutes.class.getDeclaredMethods())
                .filter(m -> RouterFunction.class.isAssignableFrom(m.getReturnType())).findFirst().orElseThrow();
        Object[] arguments = Arrays.stream(factory.getParameterTypes()).map(DocumentedReadsTest::inert).toArray();
        factory.setAccessible(true);
        return (RouterFunction<?>) factory.invoke(new ReadRoutes(), arguments);
    }

    private static Object inert(Class<?> type) {
        if (type.isInterface()) {
            return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> null);
        }
        return new ObjenesisStd().newInstance(type);
    }

    /** A visitor of the given interface that hands each call's name and arguments to {@code calls}. */
    private static <T> T visitor(Class<T> type, Calls calls) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> {
                    calls.call(method.getName(), args == null ? new Object[0] : args);
                    return null;
                }));
    }

    private interface Calls {
        void call(String name, Object[] args);
    }

    /** A path or pattern with every variable written {@code {}}. */
    private static String template(String path) {
        return path.replaceAll("\\{[^}/]+}", "{}");
    }
}
