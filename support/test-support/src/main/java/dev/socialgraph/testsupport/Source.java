package dev.socialgraph.testsupport;

import java.util.Locale;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/** Where a server for the tests comes from; see {@link TestServers} for the order. */
enum Source {
    /** An already running server named by an environment variable. */
    ENVIRONMENT,
    /** A Docker container started by Testcontainers. */
    CONTAINERS,
    /** A server started by this module on this machine, in this JVM or as a child process. */
    EMBEDDED;

    /** Opts in to Testcontainers when set to {@code true}. */
    static final String CONTAINERS_VARIABLE = "GRAPH_TEST_CONTAINERS";

    /**
     * Chooses the source of one server.
     *
     * @param serverVariable the environment variable naming an external server, e.g. {@code
     *     GRAPH_TEST_REDIS_URL}
     * @param environment reads an environment variable; {@code null} when unset
     * @param dockerAvailable asked only when Testcontainers are opted in to
     */
    static Source choose(String serverVariable, UnaryOperator<String> environment, BooleanSupplier dockerAvailable) {
        String external = environment.apply(serverVariable);
        if (external != null && !external.isBlank()) {
            return ENVIRONMENT;
        }
        if (wantsContainers(environment) && dockerAvailable.getAsBoolean()) {
            return CONTAINERS;
        }
        return EMBEDDED;
    }

    static boolean wantsContainers(UnaryOperator<String> environment) {
        String value = environment.apply(CONTAINERS_VARIABLE);
        return value != null && value.strip().toLowerCase(Locale.ROOT).equals("true");
    }
}
