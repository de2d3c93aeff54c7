package dev.socialgraph.web;

/**
 * Which request paths are the actuator's: its base path ({@code management.endpoints.web.base-path}) and below,
 * judged one way for the API port's service credential ({@link CredentialRule}) and the management port's
 * {@link ActuatorOnlyWebFilter}.
 */
final class ActuatorPath {

    private final String basePath;

    /**
     * @param basePath the actuator's base path, e.g. {@code /actuator}; not {@code /}, which would be every path
     * @throws IllegalArgumentException for a base path that is not below {@code /}
     */
    ActuatorPath(String basePath) {
        if (!basePath.startsWith("/") || basePath.length() < 2) {
            throw new IllegalArgumentException("management.endpoints.web.base-path must be a path below /, was '"
                    + basePath + "'");
        }
        this.basePath = basePath.endsWith("/") ? basePath.substring(0, basePath.length() - 1) : basePath;
    }

    /** Whether {@code path} is the actuator's base path or below it (nothing else about the path is judged). */
    boolean contains(String path) {
        return path.equals(basePath) || path.startsWith(basePath + "/");
    }

    /**
     * Whether {@code path} is plainly the actuator's: below its base path with no dot segment ({@code ..}) and no path
     * parameter ({@code ;}), which an actuator path never needs and which could lead a server's matching elsewhere
     * ({@code /actuator/../internal/...}). A stack whose matching sees more forms of the path judges those too.
     *
     * @param path the request's path, as the stack matches it
     */
    boolean containsPlainly(String path) {
        return contains(path) && !path.contains("..") && !path.contains(";");
    }

    /**
     * {@link #containsPlainly} for a stack that matches the raw path, as WebFlux does: no percent-encoding either,
     * which an actuator path never needs and which could hide a dot segment ({@code /actuator/%2e%2e/...}).
     *
     * @param rawPath the request's path as sent
     */
    boolean containsPlainlyRaw(String rawPath) {
        return containsPlainly(rawPath) && !rawPath.contains("%");
    }
}
