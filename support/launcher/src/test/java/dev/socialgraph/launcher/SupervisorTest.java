package dev.socialgraph.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.launcher.Supervisor.Child;
import dev.socialgraph.launcher.Supervisor.ServiceState;
import dev.socialgraph.launcher.Supervisor.State;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The supervisor's restart policy with fakes for the processes, the timer and the clock: no process is started and
 * no time passes but the fake clock's.
 */
class SupervisorTest {

    private static final ServiceFleet.Spec CHECK = new ServiceFleet.Spec("follow-check-service",
            "follow-check-service", 8081, "768m", Map.of());
    private static final ServiceFleet.Spec CDC = new ServiceFleet.Spec("cdc-consumer", "cdc-consumer", 8083, "384m",
            Map.of());

    private final FakeTimer timer = new FakeTimer();
    private final FakeServices services = new FakeServices();
    private final List<List<ServiceState>> published = new ArrayList<>();
    private final Supervisor supervisor = new Supervisor(services, timer, timer::now, RestartPolicy::standard,
            published::add);

    @Test
    void restartPolicy_backsOffExponentiallyToThirtySeconds() {
        RestartPolicy policy = RestartPolicy.standard();
        Instant t = Instant.parse("2026-11-24T20:00:00Z");
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            waits.add(policy.exited(t).toMillis());
            t = t.plusSeconds(40); // never ready in between: a crash during every start-up
        }
        assertThat(waits).containsExactly(1000L, 2000L, 4000L, 8000L, 16000L, 30000L, 30000L, 30000L);
    }

    @Test
    void restartPolicy_startsOverAfterSixtySecondsReady_notBefore() {
        RestartPolicy policy = RestartPolicy.standard();
        Instant t = Instant.parse("2026-11-24T20:00:00Z");
        policy.exited(t);
        policy.exited(t);
        policy.ready(t);
        assertThat(policy.exited(t.plusSeconds(59))).as("ready 59 s: still a crash loop").isEqualTo(Duration.ofSeconds(4));
        policy.ready(t.plusSeconds(100));
        assertThat(policy.exited(t.plusSeconds(160))).as("ready 60 s: a new run").isEqualTo(Duration.ofSeconds(1));
        assertThat(policy.exited(t.plusSeconds(161))).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void restartPolicy_refusesANonPositiveStart() {
        assertThatThrownBy(() -> new RestartPolicy(Duration.ZERO, Duration.ofSeconds(30), Duration.ofSeconds(60)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RestartPolicy(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(60)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void killedService_isStartedAgainAfterOneSecond_andReadyWithANewPid() {
        Child first = services.running(CHECK, 100);
        supervisor.watch(CHECK, first);
        assertThat(state(CHECK)).extracting(ServiceState::state, ServiceState::pid, ServiceState::restarts)
                .containsExactly(State.READY, 100L, 0);

        first.exit().complete(137); // kill -9
        assertThat(state(CHECK).state()).isEqualTo(State.RESTARTING);
        assertThat(state(CHECK).lastExitCode()).isEqualTo(137);
        assertThat(state(CHECK).restartAt()).isEqualTo(timer.now().plusSeconds(1));

        timer.advance(Duration.ofMillis(999));
        assertThat(services.started).as("not before the back-off ends").isEmpty();
        timer.advance(Duration.ofMillis(1));
        assertThat(services.started).containsExactly(CHECK.name());
        assertThat(state(CHECK)).extracting(ServiceState::state, ServiceState::pid, ServiceState::restarts)
                .containsExactly(State.STARTING, 1000L, 1);

        timer.advance(Duration.ofSeconds(5)); // the probe says no ten times
        assertThat(state(CHECK).state()).isEqualTo(State.STARTING);
        services.ready.add(CHECK.name());
        timer.advance(Supervisor.READINESS_POLL);
        assertThat(state(CHECK)).extracting(ServiceState::state, ServiceState::pid, ServiceState::restarts,
                ServiceState::lastExitCode).containsExactly(State.READY, 1000L, 1, 137);
        assertThat(published.getLast()).isEqualTo(supervisor.states());
    }

    @Test
    void crashLoop_waitsLongerEachTime_upToThirtySeconds() {
        supervisor.watch(CDC, services.running(CDC, 100));
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            services.current(CDC).exit().complete(1); // dies during start-up, never ready
            ServiceState s = state(CDC);
            waits.add(Duration.between(timer.now(), s.restartAt()).toSeconds());
            timer.advance(Duration.between(timer.now(), s.restartAt()));
            assertThat(state(CDC).state()).isEqualTo(State.STARTING);
        }
        assertThat(waits).containsExactly(1L, 2L, 4L, 8L, 16L, 30L, 30L);
        assertThat(state(CDC).restarts()).isEqualTo(7);
        assertThat(services.started).hasSize(7);
    }

    @Test
    void backOff_startsOverOnceTheServiceWasReadyForAMinute() {
        supervisor.watch(CDC, services.running(CDC, 100));
        services.ready.add(CDC.name());
        for (int i = 0; i < 3; i++) { // 1 s, 2 s, 4 s; each time ready after half a second
            services.current(CDC).exit().complete(1);
            timer.advance(Duration.between(timer.now(), state(CDC).restartAt()).plus(Supervisor.READINESS_POLL));
            assertThat(state(CDC).state()).isEqualTo(State.READY);
        }
        timer.advance(Duration.ofSeconds(30));
        services.current(CDC).exit().complete(1);
        assertThat(Duration.between(timer.now(), state(CDC).restartAt())).as("ready 30 s").isEqualTo(Duration.ofSeconds(8));

        timer.advance(Duration.ofSeconds(8).plus(Supervisor.READINESS_POLL));
        timer.advance(Duration.ofSeconds(60));
        services.current(CDC).exit().complete(1);
        assertThat(Duration.between(timer.now(), state(CDC).restartAt())).as("ready 60 s").isEqualTo(Duration.ofSeconds(1));
        assertThat(state(CDC).restarts()).isEqualTo(4);
    }

    @Test
    void stop_cancelsAWaitingRestart_andLeavesLaterExitsDown() {
        supervisor.watch(CHECK, services.running(CHECK, 100));
        supervisor.watch(CDC, services.running(CDC, 200));
        services.current(CHECK).exit().complete(137);
        assertThat(state(CHECK).state()).isEqualTo(State.RESTARTING);

        supervisor.stop();
        assertThat(supervisor.states()).extracting(ServiceState::state).containsOnly(State.STOPPING);
        assertThat(published.getLast()).extracting(ServiceState::state).containsOnly(State.STOPPING);
        int publications = published.size();

        services.current(CDC).exit().complete(143); // SIGTERM from the shutdown
        timer.advance(Duration.ofMinutes(5));
        assertThat(services.started).as("nothing is started during the shutdown").isEmpty();
        assertThat(timer.pending()).isZero();
        assertThat(state(CDC)).extracting(ServiceState::state, ServiceState::lastExitCode)
                .containsExactly(State.STOPPED, 143);
        assertThat(published).as("nothing published after the last STOPPING").hasSize(publications);
        assertThatThrownBy(() -> supervisor.watch(new ServiceFleet.Spec("gateway", "gateway", 8080, "384m", Map.of()),
                services.child(300))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void stop_whileAServiceIsStarting_endsItsReadinessPolls() {
        supervisor.watch(CHECK, services.running(CHECK, 100));
        services.current(CHECK).exit().complete(137);
        timer.advance(Duration.ofSeconds(1));
        assertThat(state(CHECK).state()).isEqualTo(State.STARTING);

        supervisor.stop();
        services.ready.add(CHECK.name());
        timer.advance(Duration.ofSeconds(5));
        assertThat(state(CHECK).state()).isEqualTo(State.STOPPING);
        assertThat(services.probes).as("no probe after stop").isZero();
    }

    @Test
    void aFailedStart_countsAsACrash_andIsTriedAgainLater() {
        supervisor.watch(CHECK, services.running(CHECK, 100));
        services.failStarts = 1;
        services.current(CHECK).exit().complete(137);
        timer.advance(Duration.ofSeconds(1));
        assertThat(state(CHECK)).extracting(ServiceState::state, ServiceState::restarts)
                .containsExactly(State.RESTARTING, 1);
        assertThat(Duration.between(timer.now(), state(CHECK).restartAt())).isEqualTo(Duration.ofSeconds(2));
        timer.advance(Duration.ofSeconds(2));
        assertThat(state(CHECK)).extracting(ServiceState::state, ServiceState::restarts)
                .containsExactly(State.STARTING, 2);
    }

    @Test
    void serviceState_roundTripsThroughProperties_andStatusSeesADeadProcessAsCrashed() {
        ServiceState s = new ServiceState("cdc-consumer", State.RESTARTING, 4242, 3, 137,
                Instant.parse("2026-11-24T20:01:02.345Z"), Instant.parse("2026-11-24T20:01:06.345Z"));
        Properties p = new Properties();
        s.write(p);
        assertThat(ServiceState.read(p, "cdc-consumer")).contains(s);
        assertThat(ServiceState.read(p, "gateway")).isEmpty();

        ServiceState ready = new ServiceState("gateway", State.READY, 7, 0, null, null, null);
        ready.write(p);
        assertThat(ServiceState.read(p, "gateway")).contains(ready);
        assertThat(ready.seen(true)).isEqualTo(State.READY);
        assertThat(ready.seen(false)).isEqualTo(State.CRASHED);
        assertThat(s.seen(false)).as("the supervisor has it in hand").isEqualTo(State.RESTARTING);

        String row = GraphLauncher.Status.row("cdc-consumer", "8083", Optional.of(s), false, "not answering");
        assertThat(row.split("\\s+")).startsWith("cdc-consumer", "8083", "restarting", "4242", "3");
        assertThat(row).endsWith("137 at 2026-11-24T20:01:02Z, starts again at 2026-11-24T20:01:06Z");
        assertThat(GraphLauncher.Status.row("gateway", "8080", Optional.of(ready), false, "not answering").split("\\s+"))
                .startsWith("gateway", "8080", "crashed", "7", "0");
    }

    @Test
    void statusRow_ofAStoreWhoseExitCodeIsUnknown_saysExited() {
        ServiceState postgres = new ServiceState("postgres", State.RESTARTING, 515, 1, ProcessWatch.UNKNOWN_EXIT,
                Instant.parse("2026-11-27T09:00:00Z"), Instant.parse("2026-11-27T09:00:01Z"));

        String row = GraphLauncher.Status.row("postgres", "15432", Optional.of(postgres), false, "not answering");

        assertThat(row.split("\\s+")).startsWith("postgres", "15432", "restarting", "515", "1", "not", "answering");
        assertThat(row).endsWith("exited at 2026-11-27T09:00:00Z, starts again at 2026-11-27T09:00:01Z");
    }

    @Test
    void fleetState_isReadyOnlyWhileEveryServiceAndStoreIs() {
        assertThat(GraphLauncher.Status.fleetState(false, List.of("postgres"))).isEqualTo("starting");
        assertThat(GraphLauncher.Status.fleetState(true, List.of())).isEqualTo("ready");
        assertThat(GraphLauncher.Status.fleetState(true, List.of("postgres", "redis")))
                .isEqualTo("degraded (not ready: postgres, redis)");
    }

    @Test
    void processWatch_ofAProcessThatIsNotItsChild_completesOnceItIsGone() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "30").start();
        Child watched = ProcessWatch.of(sleeper.pid());
        assertThat(watched.exit()).isNotDone();

        sleeper.destroyForcibly().waitFor();

        assertThat(watched.exit().get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(ProcessWatch.UNKNOWN_EXIT);
        assertThat(ProcessWatch.of(sleeper.pid()).exit()).as("gone already").isCompletedWithValue(ProcessWatch.UNKNOWN_EXIT);
    }

    private ServiceState state(ServiceFleet.Spec spec) {
        return supervisor.states().stream().filter(s -> s.name().equals(spec.name())).findFirst().orElseThrow();
    }

    @Test
    void aProbeThatThrows_doesNotEndTheReadinessPolling() {
        Child first = services.running(CHECK, 100);
        supervisor.watch(CHECK, first);
        first.exit().complete(137);
        timer.advance(Duration.ofSeconds(1));
        services.throwingProbes = 3; // a class the probe needs cannot be loaded, for a while

        timer.advance(Supervisor.READINESS_POLL.multipliedBy(3));
        assertThat(state(CHECK).state()).isEqualTo(State.STARTING);
        services.ready.add(CHECK.name());
        timer.advance(Supervisor.READINESS_POLL);

        assertThat(state(CHECK).state()).isEqualTo(State.READY);
    }

    /** Processes that exit when a test completes their exit future; pids 1000, 1001 ... for restarts. */
    private static final class FakeServices implements Supervisor.Services {
        final List<String> started = new ArrayList<>();
        final Set<String> ready = new HashSet<>();
        final Map<String, Child> current = new HashMap<>();
        int probes;
        int failStarts;
        int throwingProbes;
        private long nextPid = 1000;

        Child child(long pid) {
            return new Child(pid, new CompletableFuture<>());
        }

        /** A process of {@code spec} that runs already, for {@link Supervisor#watch}. */
        Child running(ServiceFleet.Spec spec, long pid) {
            Child c = child(pid);
            current.put(spec.name(), c);
            return c;
        }

        Child current(ServiceFleet.Spec spec) {
            return current.get(spec.name());
        }

        @Override
        public Child start(ServiceFleet.Spec spec) throws IOException {
            if (failStarts > 0) {
                failStarts--;
                throw new IOException("no such file: java");
            }
            started.add(spec.name());
            Child c = child(nextPid++);
            current.put(spec.name(), c);
            return c;
        }

        @Override
        public boolean ready(ServiceFleet.Spec spec) {
            probes++;
            if (throwingProbes > 0) {
                throwingProbes--;
                throw new NoClassDefFoundError("org/apache/kafka/clients/admin/Admin");
            }
            return ready.contains(spec.name());
        }
    }

    /** A clock that moves only when told, running the tasks that fall due on the way in time order. */
    private final class FakeTimer implements Supervisor.Timer {
        private record Task(Instant due, long seq, Runnable body, CompletableFuture<Void> future) {
        }

        private final List<Task> tasks = new ArrayList<>();
        private Instant now = Instant.parse("2026-11-24T20:00:00Z");
        private long seq;

        Instant now() {
            return now;
        }

        @Override
        public Future<?> schedule(Runnable task, Duration delay) {
            Task t = new Task(now.plus(delay), seq++, task, new CompletableFuture<>());
            tasks.add(t);
            return t.future();
        }

        int pending() {
            tasks.removeIf(t -> t.future().isCancelled());
            return tasks.size();
        }

        void advance(Duration d) {
            Instant end = now.plus(d);
            while (true) {
                tasks.removeIf(t -> t.future().isCancelled());
                Optional<Task> next = tasks.stream().filter(t -> !t.due().isAfter(end))
                        .min(Comparator.comparing(Task::due).thenComparingLong(Task::seq));
                if (next.isEmpty()) {
                    break;
                }
                Task t = next.get();
                tasks.remove(t);
                now = t.due();
                t.body().run();
                t.future().complete(null);
            }
            now = end;
        }
    }
}
