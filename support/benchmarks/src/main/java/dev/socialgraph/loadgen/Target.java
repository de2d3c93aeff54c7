package dev.socialgraph.loadgen;

import dev.socialgraph.loadgen.Operation.Kind;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A system under measurement: the fleet (directly or through the gateway) or one of the peers. Implementations are
 * asynchronous and thread-safe; the runner bounds how many operations are outstanding at once.
 */
interface Target extends AutoCloseable {

    /** Short name used in reports: {@code fleet}, {@code gateway}, {@code client}, {@code redis}, {@code postgres}. */
    String name();

    /** Whether this target can answer {@code kind} (the raw Redis sets have no lists or counts, for example). */
    boolean supports(Kind kind);

    /** Sends {@code operation}; the future completes (never exceptionally) when the answer or a failure is in. */
    CompletableFuture<Outcome> execute(Operation operation);

    /**
     * The server processes whose CPU time is this target's cost, looked up when a measurement starts (the naive
     * PostgreSQL peer's backends exist only once its pool is connected).
     */
    List<ServerProcess> processes();

    @Override
    void close();

    /** How one operation ended. */
    enum Outcome {
        /** A 2xx answer (or a successful command or query). */
        OK,
        /** HTTP 429 from the gateway's rate limiter: counted as an error, and separately. */
        RATE_LIMITED,
        /** Any other status, a timeout or a connection failure. */
        ERROR
    }

    /**
     * A process whose CPU time is counted.
     *
     * @param name role, e.g. {@code follow-check-service} or {@code postgres}
     * @param pid  operating-system process id on this machine
     */
    record ServerProcess(String name, long pid) { }
}
