package dev.socialgraph.cache;

import dev.socialgraph.common.breaker.BreakerSettings;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
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
 *   <li><b>closed</b>: commands go to Redis; the last {@link BreakerSettings#window()} outcomes are kept;</li>
 *   <li><b>open</b> once at least {@link BreakerSettings#minimumCalls()} of them were recorded and
 *       {@link BreakerSettings#failureRateThreshold()} percent failed (a timeout, a refused or lost connection, an
 *       error reply): commands are not sent at all, and callers treat them as failed at once (reads miss, writes fail, as
 *       when Redis is down);</li>
 *   <li><b>half-open</b> after {@link BreakerSettings#openWait()}: {@link BreakerSettings#halfOpenCalls()}
 *       commands go to Redis as probes while every other command is still skipped; if they succeed the breaker closes, so the rate comes
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

    /** The configuration prefix every service reads the settings from ({@link #settings}). */
    public static final String PREFIX = "graph.redis-breaker";

    /** The defaults: open at half of the last 20 commands failed (5 at least), probe with 2 commands after 1 s. */
    public static final BreakerSettings DEFAULTS = new BreakerSettings(true, 50, 20, 5, Duration.ofSeconds(1), 2);

    /**
     * The settings under {@link #PREFIX} ({@link BreakerSettings#from}), the {@link #DEFAULTS} where absent. One
     * reader for every service, so the names and defaults are written once.
     *
     * @param property looks a full property name up, {@code null} when unset (e.g. Spring's
     *                 {@code Environment::getProperty})
     * @return the settings
     * @throws IllegalArgumentException naming the property when a value does not parse or is out of its range
     */
    public static BreakerSettings settings(UnaryOperator<String> property) {
        return BreakerSettings.from(PREFIX, property, DEFAULTS);
    }

    private final CircuitBreakerRegistry registry;
    private final CircuitBreaker breaker;
    private final boolean enabled;

    /**
     * @param settings when to open and how to probe
     */
    public RedisBreaker(BreakerSettings settings) {
        this.enabled = settings.enabled();
        // A failed command is a failure whatever it threw: Redis is a cache, every error means "skip it".
        this.registry = CircuitBreakerRegistry.of(settings.config(e -> true));
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
