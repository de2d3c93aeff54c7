package dev.socialgraph.common.breaker;

import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * When a store's circuit breaker opens and how it probes: one shape for every store the services call (Redis, each
 * shard database), read from configuration by one reader and turned into Resilience4j's
 * {@link CircuitBreakerConfig} by one builder, so the two breakers cannot drift apart in what a setting means.
 *
 * <p>The breaker judges a count-based window of the latest outcomes: once {@code failureRateThreshold} percent of the
 * last {@code window} (at least {@code minimumCalls} of them) failed, it stays open for {@code openWait}, then lets
 * {@code halfOpenCalls} callers through as probes.
 *
 * @param enabled              {@code false}: no breaker, every call goes to the store as before
 * @param failureRateThreshold percent of failed outcomes that opens the breaker, 1..100
 * @param window               how many of the latest outcomes are kept, at least 1
 * @param minimumCalls         outcomes needed before the rate is judged, 1..{@code window}
 * @param openWait             how long the breaker stays open before probing, positive
 * @param halfOpenCalls        probes let through while half-open, at least 1
 */
public record BreakerSettings(boolean enabled, int failureRateThreshold, int window, int minimumCalls,
                              Duration openWait, int halfOpenCalls) {

    /**
     * @throws IllegalArgumentException naming the setting when a value is out of its range
     */
    public BreakerSettings {
        if (failureRateThreshold < 1 || failureRateThreshold > 100) {
            throw new IllegalArgumentException("breaker failure-rate-threshold must be 1..100 (percent), was "
                    + failureRateThreshold);
        }
        if (window < 1 || minimumCalls < 1 || minimumCalls > window) {
            throw new IllegalArgumentException("breaker needs window >= 1 and 1 <= minimum-calls <= window, were "
                    + window + " and " + minimumCalls);
        }
        if (openWait == null || openWait.isNegative() || openWait.isZero()) {
            throw new IllegalArgumentException("breaker open-wait must be positive, was " + openWait);
        }
        if (halfOpenCalls < 1) {
            throw new IllegalArgumentException("breaker half-open-calls must be at least 1, was " + halfOpenCalls);
        }
    }

    /**
     * The Resilience4j configuration of these settings. Probing starts with the first call after the open wait (no
     * timer thread), and a breaker half-open for twice the open wait goes back to open: a probe whose outcome never
     * comes (a caller that took a permission and failed before reporting it) must not hold it half-open for ever.
     *
     * @param recorded which errors are failures; any other error neither opens nor closes the breaker
     * @return the configuration
     */
    public CircuitBreakerConfig config(Predicate<Throwable> recorded) {
        return CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(window)
                .minimumNumberOfCalls(minimumCalls)
                .failureRateThreshold(failureRateThreshold)
                .waitDurationInOpenState(openWait)
                .permittedNumberOfCallsInHalfOpenState(halfOpenCalls)
                .maxWaitDurationInHalfOpenState(openWait.multipliedBy(2))
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                .recordException(recorded)
                .build();
    }

    /**
     * The settings from configuration: each of {@code enabled}, {@code failure-rate-threshold}, {@code window},
     * {@code minimum-calls}, {@code open-wait} (e.g. {@code 1s}, {@code 500ms} or ISO-8601 {@code PT1S}) and
     * {@code half-open-calls} under {@code prefix}, its value in {@code defaults} where absent.
     *
     * @param prefix   the properties' prefix, e.g. {@code graph.redis-breaker}
     * @param property looks a full property name up ({@code graph.redis-breaker.window}), {@code null} when unset;
     *                 e.g. Spring's {@code Environment::getProperty}, which also finds relaxed forms such as
     *                 {@code GRAPH_REDISBREAKER_WINDOW}
     * @param defaults what an absent property takes
     * @return the settings
     * @throws IllegalArgumentException naming the property when a value does not parse or is out of its range
     */
    public static BreakerSettings from(String prefix, UnaryOperator<String> property, BreakerSettings defaults) {
        BreakerSettings d = defaults;
        return new BreakerSettings(
                parse(prefix, property, "enabled", d.enabled(), v -> switch (v.toLowerCase(Locale.ROOT)) {
                    case "true" -> true;
                    case "false" -> false;
                    default -> throw new IllegalArgumentException("not true or false");
                }),
                parse(prefix, property, "failure-rate-threshold", d.failureRateThreshold(), Integer::parseInt),
                parse(prefix, property, "window", d.window(), Integer::parseInt),
                parse(prefix, property, "minimum-calls", d.minimumCalls(), Integer::parseInt),
                parse(prefix, property, "open-wait", d.openWait(), BreakerSettings::duration),
                parse(prefix, property, "half-open-calls", d.halfOpenCalls(), Integer::parseInt));
    }

    private static <T> T parse(String prefix, UnaryOperator<String> property, String name, T fallback,
                               Function<String, T> parser) {
        String value = property.apply(prefix + "." + name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return parser.apply(value.strip());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(prefix + "." + name + ": cannot read '" + value + "' ("
                    + e.getMessage() + ")", e);
        }
    }

    private static Duration duration(String value) {
        if (value.startsWith("P") || value.startsWith("p")) {
            return Duration.parse(value);
        }
        if (value.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
        }
        if (value.endsWith("s")) {
            return Duration.ofSeconds(Long.parseLong(value.substring(0, value.length() - 1)));
        }
        throw new IllegalArgumentException("a duration is <n>ms, <n>s or ISO-8601");
    }
}
