package dev.socialgraph.web;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;

/**
 * The service credential rule both guards apply ({@link ServiceTokenFilter} on servlet services,
 * {@link ServiceTokenWebFilter} on reactive ones): a request passes when its {@code X-Service-Token} equals
 * {@code graph.service-token}, or {@code graph.service-token-previous} while a rotation is under way (docs/security.md),
 * compared with {@link MessageDigest#isEqual} (its time does not depend on the presented value's contents; every
 * accepted value is compared, so neither does it tell which one matched); the actuator's base path is exempt; refusals are counted as
 * {@code graph.web.rejected{reason=missing-service-token|wrong-service-token}}.
 */
final class CredentialRule {

    private static final Problems MISSING = Problems.missingToken();
    private static final Problems WRONG = Problems.wrongToken();

    private final byte[][] accepted;
    private final ActuatorPath actuator;
    private final Counter missing;
    private final Counter wrong;

    /**
     * @param serviceTokens    the credentials accepted: the current one and, during a rotation, the previous one;
     *                         none blank
     * @param actuatorBasePath the actuator's base path ({@code management.endpoints.web.base-path}), e.g.
     *                         {@code /actuator}; not {@code /}, which would exempt every path
     * @param meters           where the refusals are counted
     * @throws IllegalArgumentException for a blank token or a base path that is not below {@code /}
     */
    CredentialRule(List<String> serviceTokens, String actuatorBasePath, MeterRegistry meters) {
        if (serviceTokens.isEmpty() || serviceTokens.stream().anyMatch(t -> t == null || t.isBlank())) {
            throw new IllegalArgumentException("the service token must not be blank");
        }
        this.accepted = serviceTokens.stream().map(t -> t.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
        this.actuator = new ActuatorPath(actuatorBasePath);
        this.missing = Rejections.counter(meters, "missing-service-token");
        this.wrong = Rejections.counter(meters, "wrong-service-token");
    }

    /** Whether {@code path} is the actuator's base path or below it (nothing else about the path is judged). */
    boolean isActuator(String path) {
        return actuator.contains(path);
    }

    /**
     * Whether a request for {@code path} needs no credential: the actuator's path with no dot segment ({@code ..}) and
     * no path parameter ({@code ;}), which an actuator path never needs and which could lead a server's matching
     * elsewhere ({@code /actuator/../internal/...}). A stack whose matching sees more forms of the path judges those
     * too.
     *
     * @param path the request's path, as the stack matches it
     */
    boolean isExempt(String path) {
        return actuator.containsPlainly(path);
    }

    /** {@link #isExempt} for the raw path of a stack that matches it unresolved ({@link ActuatorPath#containsPlainlyRaw}). */
    boolean isExemptRaw(String rawPath) {
        return actuator.containsPlainlyRaw(rawPath);
    }

    /**
     * Judges a request's header and counts a refusal.
     *
     * @param presented the {@code X-Service-Token} header, or {@code null}
     * @return {@code null} when the request may pass, else the 401 problem to answer with
     */
    Problems refusal(String presented) {
        if (presented == null || presented.isEmpty()) {
            missing.increment();
            return MISSING;
        }
        byte[] bytes = presented.getBytes(StandardCharsets.UTF_8);
        boolean match = false;
        for (byte[] token : accepted) {
            match |= MessageDigest.isEqual(token, bytes);
        }
        if (!match) {
            wrong.increment();
            return WRONG;
        }
        return null;
    }
}
