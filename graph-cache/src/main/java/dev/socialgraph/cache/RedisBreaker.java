package dev.socialgraph.cache;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The circuit breaker in front of the following cache's Redis (Resilience4j's {@link CircuitBreaker}), one per
 * {@link RedisConnector}, so that every service that talks to Redis stops asking a Redis that does not answer.
 *
 * <p>A hung Redis (a stopped process, a long {@code DEBUG SLEEP}, a partition) keeps its socket open and refuses
 * nothing, so without a breaker every command waits out the command timeout: a read path that asks Redis first loses
 * its latency and most of its rate, and a writer waits once per write. With it:
 * <ul>
 *   <li><b>closed</b>: commands go to Redis; the last {@link Settings#window()} outcomes are kept;</li>
 *   <li><b>open</b> once at least {@link Settings#minimumCalls()} of them were recorded and
 *       {@link Settings#failureRateThreshold()} percent failed (a timeout, a refused or lost connection, an error
 *       reply): commands are not sent at all, and callers treat them as failed at once (reads miss, writes fail, as
 *       when Redis is down);</li>
 *   <li><b>half-open</b> after {@link Settings#openWait()}: {@link Settings#halfOpenCalls()} commands go to Redis as
 *       probes while every other command is still skipped; if they succeed the breaker closes, so the rate comes
 *       back within about one {@code openWait} of Redis answering again, even while the fault lasts longer; if they
 *       fail it opens again for another {@code openWait}.</li>
 * </ul>
 * While open, a hung Redis therefore costs its callers {@code halfOpenCalls} command timeouts per {@code openWait},
 * nothing more.
 *
 * <p>Meters ({@link #bindTo}): Resilience4j's {@code resilience4j.circuitbreaker.*} with the tag
 * {@code name=}{@link #NAME}; {@code resilience4j_circuitbreaker_state{name="redis",state="open"}} is 1 while open.
 *
 * <p>Thread-safe.
 */
public final class RedisBreaker {

    /** The breaker's name, the {@code name} tag of its meters. */
    public static final String NAME = "redis";

    private static final Logger log = LoggerFactory.getLogger(RedisBreaker.class);

    /**
     * When the breaker opens and how it probes, the same in every service ({@code graph.redis-breaker.*}).
     *
     * @param enabled              {@code false} sends every command to Redis (no breaker), to measure or rule it out
     * @param failureRateThreshold percent of failed commands among the recorded ones that opens the breaker, 1..100
     * @param window               how many of the latest outcomes are kept, at least 1
     * @param minimumCalls         outcomes needed before the rate is judged, 1..{@code window}
     * @param openWait             how long the breaker stays open before probing, positive
     * @param halfOpenCalls        probes let through while half-open, at least 1
     */
    public record Settings(boolean enabled, int failureRateThreshold, int window, int minimumCalls, Duration openWait,
                           int halfOpenCalls) {

        /** The defaults: open at half of the last 20 commands failed (5 at least), probe with 2 commands after 1 s. */
        public static final Settings DEFAULTS = new Settings(true, 50, 20, 5, Duration.ofSeconds(1), 2);

        /** The configuration prefix every service reads the settings from ({@link #from}). */
        public static final String PREFIX = "graph.redis-breaker";

        /**
         * The settings from configuration: each of {@code enabled}, {@code failure-rate-threshold}, {@code window},
         * {@code minimum-calls}, {@code open-wait} (e.g. {@code 1s}, {@code 500ms} or ISO-8601 {@code PT1S}) and
         * {@code half-open-calls} under {@link #PREFIX}, its default where absent. One reader for every service, so
         * the names and defaults are written once.
         *
         * @param property looks a full property name up ({@code graph.redis-breaker.window}), {@code null} when unset;
         *                 e.g. Spring's {@code Environment::getProperty}, which also finds relaxed forms such as
         *                 {@code GRAPH_REDISBREAKER_WINDOW}
         * @return the settings
         * @throws IllegalArgumentException naming the property when a value does not parse or is out of its range
         */
        public static Settings from(java.util.function.UnaryOperator<String> property) {
            Settings d = DEFAULTS;
            return new Settings(
                    parse(property, "enabled", d.enabled(), v -> switch (v.toLowerCase(java.util.Locale.ROOT)) {
                        case "true" -> true;
                        case "false" -> false;
                        default -> throw new IllegalArgumentException("not true or false");
                    }),
                    parse(property, "failure-rate-threshold", d.failureRateThreshold(), Integer::parseInt),
                    parse(property, "window", d.window(), Integer::parseInt),
                    parse(property, "minimum-calls", d.minimumCalls(), Integer::parseInt),
                    parse(property, "open-wait", d.openWait(), Settings::duration),
                    parse(property, "half-open-calls", d.halfOpenCalls(), Integer::parseInt));
        }

        private static <T> T parse(java.util.function.UnaryOperator<String> property, String name, T fallback,
                                   java.util.function.Function<String, T> parser) {
            String value = property.apply(PREFIX + "." + name);
            if (value == null || value.isBlank()) {
                return fallback;
            }
            try {
                return parser.apply(value.strip());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(PREFIX + "." + name + ": cannot read '" + value + "' ("
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

        /**
         * @throws IllegalArgumentException when a value is out of its range
         */
        public Settings {
            if (failureRateThreshold < 1 || failureRateThreshold > 100) {
                throw new IllegalArgumentException("Redis breaker failure-rate-threshold must be 1..100 (percent), was "
                        + failureRateThreshold);
            }
            if (window < 1 || minimumCalls < 1 || minimumCalls > window) {
                throw new IllegalArgumentException("Redis breaker needs window >= 1 and 1 <= minimum-calls <= window, "
                        + "were " + window + " and " + minimumCalls);
            }
            if (openWait == null || openWait.isNegative() || openWait.isZero()) {
                throw new IllegalArgumentException("Redis breaker open-wait must be positive, was " + openWait);
            }
            if (halfOpenCalls < 1) {
                throw new IllegalArgumentException("Redis breaker half-open-calls must be at least 1, was "
                        + halfOpenCalls);
            }
        }
    }

    private final CircuitBreakerRegistry registry;
    private final CircuitBreaker breaker;
    private final boolean enabled;

    /**
     * @param settings when to open and how to probe
     */
    public RedisBreaker(Settings settings) {
        this.enabled = settings.enabled();
        this.registry = CircuitBreakerRegistry.of(CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(settings.window())
                .minimumNumberOfCalls(settings.minimumCalls())
                .failureRateThreshold(settings.failureRateThreshold())
                .waitDurationInOpenState(settings.openWait())
                .permittedNumberOfCallsInHalfOpenState(settings.halfOpenCalls())
                // A probe whose outcome never comes (a caller that took a permission and failed before reporting
                // it) must not hold the breaker half-open for ever: back to open, and probe again after the wait.
                .maxWaitDurationInHalfOpenState(settings.openWait().multipliedBy(2))
                // Probing starts with the first command after the wait; a timer thread would add nothing.
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                // A failed command is a failure whatever it threw: Redis is a cache, every error means "skip it".
                .recordException(e -> true)
                .build());
        this.breaker = registry.circuitBreaker(NAME);
        breaker.getEventPublisher().onStateTransition(event -> log.warn("Redis circuit breaker {}: {}",
                event.getStateTransition(), switch (event.getStateTransition().getToState()) {
                    case OPEN -> "Redis is skipped; commands fail at once";
                    case HALF_OPEN -> "probing Redis";
                    case CLOSED -> "Redis is asked again";
                    default -> "";
                }));
    }

    /**
     * Runs one Redis command (or a pipelined batch awaited together) through the breaker.
     *
     * @param command the command; what it throws is recorded as a failure and rethrown
     * @param <T>     its result
     * @return its result
     * @throws CallNotPermittedException when the breaker is open (or half-open with its probes taken): nothing was
     *                                   sent to Redis
     */
    public <T> T call(Supplier<T> command) {
        if (!enabled) {
            return command.get();
        }
        return breaker.executeSupplier(command);
    }

    /**
     * Takes a permission for a command whose outcome is reported later with {@link #succeeded} or {@link #failed}
     * (a pipelined batch whose futures are awaited one by one).
     *
     * @return {@code false} when the breaker is open: send nothing
     */
    public boolean tryAcquire() {
        return !enabled || breaker.tryAcquirePermission();
    }

    /**
     * Records a command let through by {@link #tryAcquire} that Redis answered.
     *
     * @param startNanos {@link System#nanoTime()} when it was sent
     */
    public void succeeded(long startNanos) {
        if (enabled) {
            breaker.onSuccess(System.nanoTime() - startNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Records a command let through by {@link #tryAcquire} that failed.
     *
     * @param startNanos {@link System#nanoTime()} when it was sent
     * @param error      what failed
     */
    public void failed(long startNanos, Throwable error) {
        if (enabled) {
            breaker.onError(System.nanoTime() - startNanos, java.util.concurrent.TimeUnit.NANOSECONDS, error);
        }
    }

    /**
     * Tells {@code listener} of every state the breaker moves to, on the thread that moved it (a command's).
     *
     * @param listener told {@code OPEN}, {@code HALF_OPEN} or {@code CLOSED}; must not block
     */
    public void onTransition(java.util.function.Consumer<CircuitBreaker.State> listener) {
        breaker.getEventPublisher().onStateTransition(event -> listener.accept(event.getStateTransition().getToState()));
    }

    /** @return whether commands are skipped now (open, or half-open with every probe taken or failed) */
    public boolean isOpen() {
        CircuitBreaker.State state = breaker.getState();
        return enabled && (state == CircuitBreaker.State.OPEN || state == CircuitBreaker.State.FORCED_OPEN);
    }

    /** @return the state: {@code CLOSED}, {@code OPEN} or {@code HALF_OPEN} (always {@code CLOSED} when disabled) */
    public CircuitBreaker.State state() {
        return enabled ? breaker.getState() : CircuitBreaker.State.CLOSED;
    }

    /**
     * Registers the breaker's meters ({@code resilience4j.circuitbreaker.state}, {@code .calls},
     * {@code .not.permitted.calls}, {@code .failure.rate}, ...) tagged {@code name=redis}.
     *
     * @param meters the service's registry
     */
    public void bindTo(MeterRegistry meters) {
        TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(registry).bindTo(meters);
    }

    /** @return the exception {@link #call} throws for a command it skips, for callers that skip by themselves */
    public RuntimeException notPermitted() {
        return CallNotPermittedException.createCallNotPermittedException(breaker);
    }

    /**
     * @param error what a command threw
     * @return whether it was skipped by the breaker rather than failed in Redis
     */
    public static boolean skipped(Throwable error) {
        return error instanceof CallNotPermittedException;
    }
}
