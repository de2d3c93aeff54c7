package dev.socialgraph.launcher;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the fleet's services running once they were ready, as Kubernetes keeps a pod's containers running: a service
 * whose process exits (a crash, an out-of-memory exit, {@code kill -9}) is started again after its
 * {@link RestartPolicy}'s back-off, then watched until its readiness probe answers UP. Each service's state (see
 * {@link State}), pid, restart count and last exit are handed to a publisher on every change; the launcher writes
 * them to {@code run/services.properties}, where {@code ./graph status}, a separate process, reads them.
 *
 * <p>{@link #stop()} ends supervision before the fleet is shut down: a restart that is waiting is cancelled, and a
 * process that exits afterwards stays down.
 *
 * <p>Thread-safe. Process exits arrive on the JDK's process reaper thread, restarts and readiness polls on the
 * {@link Timer}'s; every state change happens under this object's lock, the readiness probe (an HTTP request) outside it.
 */
final class Supervisor {

    private static final Logger log = LoggerFactory.getLogger(Supervisor.class);

    /** How often a started service's readiness probe is asked until it answers UP. */
    static final Duration READINESS_POLL = Duration.ofMillis(500);

    /** What the supervisor does to the services: {@link ServiceFleet} in the launcher, a fake in tests. */
    interface Services {
        /**
         * Starts the service's process again.
         *
         * @throws IOException when the process cannot be started
         */
        Child start(ServiceFleet.Spec spec) throws IOException;

        /** Whether the service's readiness probe answers UP now; may block for the probe's timeout. */
        boolean ready(ServiceFleet.Spec spec);
    }

    /** Runs a task once after a delay: a {@code ScheduledExecutorService} in the launcher, a manual queue in tests. */
    interface Timer {
        Future<?> schedule(Runnable task, Duration delay);
    }

    /**
     * A started process.
     *
     * @param pid  its process id
     * @param exit completes with its exit code when it exits
     */
    record Child(long pid, CompletableFuture<Integer> exit) {
        static Child of(Process process) {
            return new Child(process.pid(), process.onExit().thenApply(Process::exitValue));
        }
    }

    /** A service's state as {@code ./graph status} shows it. */
    enum State {
        /** The process runs; its readiness probe has not answered UP yet since it was (re)started. */
        STARTING,
        /** The readiness probe answered UP (it is asked again only after a restart; status asks it live). */
        READY,
        /** The process exited; it is started again at the back-off's end ({@code restart-at}). */
        RESTARTING,
        /** The process is gone and no restart is coming: seen by status before the supervisor noticed, or without one. */
        CRASHED,
        /** Supervision has ended: the fleet is shutting down. */
        STOPPING,
        /** The process exited after supervision ended. */
        STOPPED;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One supervised service.
     *
     * @param name         the service's name ({@code run/<name>.pid})
     * @param state        its state
     * @param pid          the process id of its current (or last) process
     * @param restarts     how often the supervisor started it again since the fleet started
     * @param lastExitCode the exit code of its last process that exited, {@code null} when none did
     * @param lastExitAt   when that process exited, {@code null} when none did
     * @param restartAt    when it will be started again, {@code null} unless {@code RESTARTING}
     */
    record ServiceState(String name, State state, long pid, int restarts, Integer lastExitCode, Instant lastExitAt,
                        Instant restartAt) {

        /**
         * What status shows: {@code CRASHED} for a service recorded as starting or ready whose process is gone (the
         * supervisor restarts it within moments, or there is no supervisor any more), {@code STOPPED} for one that
         * is gone while the fleet stops.
         */
        State seen(boolean processAlive) {
            if (processAlive) {
                return state;
            }
            return switch (state) {
                case STARTING, READY -> State.CRASHED;
                case STOPPING -> State.STOPPED;
                default -> state;
            };
        }

        /** Adds this state to a {@code services.properties} under {@code <name>.*}; {@link #read} reads it back. */
        void write(Properties p) {
            p.setProperty(name + ".state", state.label());
            p.setProperty(name + ".pid", Long.toString(pid));
            p.setProperty(name + ".restarts", Integer.toString(restarts));
            if (lastExitCode != null) {
                p.setProperty(name + ".last-exit-code", Integer.toString(lastExitCode));
                p.setProperty(name + ".last-exit-at", lastExitAt.toString());
            }
            if (restartAt != null) {
                p.setProperty(name + ".restart-at", restartAt.toString());
            }
        }

        /**
         * The state of {@code name} in a {@code services.properties}.
         *
         * @return empty when the file has none or a malformed one (a file written by another version)
         */
        static Optional<ServiceState> read(Properties p, String name) {
            String state = p.getProperty(name + ".state");
            if (state == null) {
                return Optional.empty();
            }
            try {
                String code = p.getProperty(name + ".last-exit-code");
                String exitAt = p.getProperty(name + ".last-exit-at");
                String restartAt = p.getProperty(name + ".restart-at");
                return Optional.of(new ServiceState(name, State.valueOf(state.toUpperCase(Locale.ROOT)),
                        Long.parseLong(p.getProperty(name + ".pid")), Integer.parseInt(p.getProperty(name + ".restarts")),
                        code == null ? null : Integer.valueOf(code), exitAt == null ? null : Instant.parse(exitAt),
                        restartAt == null ? null : Instant.parse(restartAt)));
            } catch (RuntimeException e) {
                return Optional.empty();
            }
        }
    }

    /** One watched service; guarded by the supervisor's lock. */
    private static final class Watched {
        final ServiceFleet.Spec spec;
        final RestartPolicy policy;
        Child child;
        State state;
        int restarts;
        Integer lastExitCode;
        Instant lastExitAt;
        Instant restartAt;
        Future<?> pending; // the scheduled restart or readiness poll

        Watched(ServiceFleet.Spec spec, RestartPolicy policy, Child child) {
            this.spec = spec;
            this.policy = policy;
            this.child = child;
        }

        ServiceState snapshot() {
            return new ServiceState(spec.name(), state, child.pid(), restarts, lastExitCode, lastExitAt, restartAt);
        }
    }

    private final Services services;
    private final Timer timer;
    private final InstantSource clock;
    private final Supplier<RestartPolicy> policies;
    private final Consumer<List<ServiceState>> publisher;
    private final Map<String, Watched> watched = new LinkedHashMap<>();
    private boolean stopped;

    /**
     * @param services  starts services and asks their readiness
     * @param timer     runs restarts and readiness polls later
     * @param clock     the time of exits, restarts and readiness
     * @param policies  a new restart policy per service
     * @param publisher receives every service's state after each change, under the supervisor's lock (keep it short)
     */
    Supervisor(Services services, Timer timer, InstantSource clock, Supplier<RestartPolicy> policies,
               Consumer<List<ServiceState>> publisher) {
        this.services = services;
        this.timer = timer;
        this.clock = clock;
        this.policies = policies;
        this.publisher = publisher;
    }

    /**
     * Starts watching a service that is ready now.
     *
     * @throws IllegalStateException after {@link #stop()}, or when a service of the same name is watched already
     */
    synchronized void watch(ServiceFleet.Spec spec, Child child) {
        if (stopped) {
            throw new IllegalStateException("supervision has stopped");
        }
        if (watched.containsKey(spec.name())) {
            throw new IllegalStateException(spec.name() + " is watched already");
        }
        Watched w = new Watched(spec, policies.get(), child);
        w.state = State.READY;
        w.policy.ready(clock.instant());
        watched.put(spec.name(), w);
        publish();
        whenExited(w, child);
    }

    /**
     * Ends supervision: cancels waiting restarts and readiness polls, marks every service {@code STOPPING} and
     * publishes that for the last time. Processes that exit afterwards are not started again. Idempotent.
     */
    synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        for (Watched w : watched.values()) {
            cancelPending(w);
            w.restartAt = null;
            w.state = State.STOPPING;
        }
        publisher.accept(states());
    }

    /** Every watched service's state, in the order they were watched. */
    synchronized List<ServiceState> states() {
        List<ServiceState> out = new ArrayList<>();
        for (Watched w : watched.values()) {
            out.add(w.snapshot());
        }
        return out;
    }

    private void whenExited(Watched w, Child child) {
        // Runs at once when the process has exited already (on this thread, which may hold the lock: it is reentrant).
        child.exit().whenComplete((code, error) -> exited(w, child, code != null ? code : -1));
    }

    private synchronized void exited(Watched w, Child child, int code) {
        if (w.child != child) {
            return; // an earlier process of this service
        }
        Instant now = clock.instant();
        w.lastExitCode = code;
        w.lastExitAt = now;
        cancelPending(w);
        if (stopped) {
            w.state = State.STOPPED;
            return;
        }
        scheduleRestart(w, now, "(pid " + child.pid() + ") exited"
                + (code == ProcessWatch.UNKNOWN_EXIT ? "" : " with code " + code));
    }

    private void scheduleRestart(Watched w, Instant now, String what) {
        Duration wait = w.policy.exited(now);
        w.state = State.RESTARTING;
        w.restartAt = now.plus(wait);
        log.warn("{} {}; starting it again in {} ms (restart {})", w.spec.name(), what, wait.toMillis(),
                w.restarts + 1);
        w.pending = timer.schedule(() -> restart(w), wait);
        publish();
    }

    private synchronized void restart(Watched w) {
        if (stopped || w.state != State.RESTARTING) {
            return;
        }
        w.pending = null;
        w.restartAt = null;
        w.restarts++;
        Child child;
        try {
            child = services.start(w.spec);
        } catch (IOException | RuntimeException e) {
            scheduleRestart(w, clock.instant(), "could not be started: " + e);
            return;
        }
        w.child = child;
        w.state = State.STARTING;
        log.info("{} started again (pid {}, restart {})", w.spec.name(), child.pid(), w.restarts);
        w.pending = timer.schedule(() -> pollReadiness(w, child), READINESS_POLL);
        publish();
        whenExited(w, child);
    }

    private void pollReadiness(Watched w, Child child) {
        synchronized (this) {
            if (!awaitingReadiness(w, child)) {
                return;
            }
        }
        boolean up;
        try {
            up = services.ready(w.spec); // an HTTP request: outside the lock
        } catch (RuntimeException | LinkageError e) {
            // A probe that throws must not end the polling (the scheduled task would die silently).
            log.warn("{}: readiness probe failed: {}", w.spec.name(), e.toString());
            up = false;
        }
        synchronized (this) {
            if (!awaitingReadiness(w, child)) {
                return;
            }
            if (up) {
                w.pending = null;
                w.state = State.READY;
                w.policy.ready(clock.instant());
                log.info("{} ready again (pid {}, restart {})", w.spec.name(), child.pid(), w.restarts);
                publish();
            } else {
                w.pending = timer.schedule(() -> pollReadiness(w, child), READINESS_POLL);
            }
        }
    }

    private boolean awaitingReadiness(Watched w, Child child) {
        return !stopped && w.child == child && w.state == State.STARTING;
    }

    private static void cancelPending(Watched w) {
        if (w.pending != null) {
            w.pending.cancel(false);
            w.pending = null;
        }
    }

    private void publish() {
        if (!stopped) {
            publisher.accept(states());
        }
    }
}
