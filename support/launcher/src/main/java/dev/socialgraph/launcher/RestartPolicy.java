package dev.socialgraph.launcher;

import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;
import java.time.Instant;

/**
 * When to start one supervised service again after its process exited: Kubernetes' crash-loop back-off. The n-th
 * exit in a row waits {@code initial × 2^(n-1)}, at most {@code max} (1 s, 2 s, 4 s … 30 s by default; the sequence
 * is Resilience4j's {@link IntervalFunction#ofExponentialBackoff(Duration, double, Duration)}). An exit after the
 * service had been ready for at least {@code stableAfter} (60 s by default) starts a new run at {@code initial}: a
 * service that crashes once a day restarts at once, one that crashes during every start-up backs off to one attempt
 * every 30 s, so a crash loop costs one JVM start per 30 s rather than a spinning CPU.
 *
 * <p>Not thread-safe: the {@link Supervisor} calls it under its lock. Times come from the caller, so the policy
 * can be tested without a clock.
 */
final class RestartPolicy {

    /** The first back-off, its growth factor, its ceiling and how long a service must be ready to reset it. */
    static final Duration INITIAL = Duration.ofSeconds(1);
    static final double MULTIPLIER = 2.0;
    static final Duration MAX = Duration.ofSeconds(30);
    /**
     * Twice the longest back-off: a service that keeps failing shortly after it became ready still backs off. (Kubernetes
     * waits 10 minutes; a local fleet's services start in seconds.)
     */
    static final Duration STABLE_AFTER = Duration.ofSeconds(60);

    /** Exits counted beyond this do not change the wait any more (it has reached {@code max} long before). */
    private static final int MAX_COUNTED_EXITS = 64;

    private final IntervalFunction backoff;
    private final Duration stableAfter;
    private int exitsInARow;
    private Instant readySince;

    /**
     * @param initial     the wait after the first exit of a run, positive
     * @param max         the longest wait, at least {@code initial}
     * @param stableAfter how long the service must have been ready before an exit for the run to start over
     * @throws IllegalArgumentException for a non-positive {@code initial} or {@code stableAfter}, or {@code max < initial}
     */
    RestartPolicy(Duration initial, Duration max, Duration stableAfter) {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0
                || stableAfter.isNegative() || stableAfter.isZero()) {
            throw new IllegalArgumentException("back-off must satisfy 0 < initial <= max and stableAfter > 0, was "
                    + initial + ", " + max + ", " + stableAfter);
        }
        this.backoff = IntervalFunction.ofExponentialBackoff(initial, MULTIPLIER, max);
        this.stableAfter = stableAfter;
    }

    /** The default policy: 1 s doubling to 30 s, reset after 60 s ready. */
    static RestartPolicy standard() {
        return new RestartPolicy(INITIAL, MAX, STABLE_AFTER);
    }

    /** The service answered its readiness probe with UP at {@code now} (after a start). */
    void ready(Instant now) {
        if (readySince == null) {
            readySince = now;
        }
    }

    /**
     * The service's process exited at {@code now}.
     *
     * @return how long to wait before starting it again
     */
    Duration exited(Instant now) {
        if (readySince != null && !now.isBefore(readySince.plus(stableAfter))) {
            exitsInARow = 0;
        }
        readySince = null;
        exitsInARow = Math.min(exitsInARow + 1, MAX_COUNTED_EXITS);
        return Duration.ofMillis(backoff.apply(exitsInARow));
    }
}
