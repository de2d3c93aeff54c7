package dev.socialgraph.testsupport;

import dev.socialgraph.wire.Endpoint;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * A servlet service's routes against its part of graph-wire's {@code InternalApi}: what Spring MVC mapped, as
 * {@code METHOD /template} (the form of {@link Endpoint#toString}), and the assertion that the two are the same set.
 */
public final class WireRoutes {

    private WireRoutes() {
    }

    /**
     * Asserts that the service maps exactly {@code expected}, both ways: no endpoint without a handler, no handler
     * without an endpoint (Spring Boot's {@code /error} aside).
     *
     * @param mappings the service's {@code requestMappingHandlerMapping}
     * @param expected the service's list, e.g. {@code InternalApi.WRITE_SERVICE}
     * @throws AssertionError naming both sets when they differ
     */
    public static void assertServesExactly(RequestMappingHandlerMapping mappings, List<Endpoint> expected) {
        Set<String> served = new TreeSet<>();
        mappings.getHandlerMethods().keySet().forEach(info -> info.getPatternValues().forEach(pattern ->
                info.getMethodsCondition().getMethods().forEach(method -> served.add(method.name() + " " + pattern))));
        served.removeIf(route -> route.endsWith(" /error"));
        Set<String> described = new TreeSet<>();
        expected.forEach(endpoint -> described.add(endpoint.toString()));
        if (!served.equals(described)) {
            throw new AssertionError("the service maps " + served + " but its part of the wire is " + described);
        }
    }
}
