package dev.socialgraph.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClosedLoopRunnerTest {

    private static final EdgeList GRAPH = EdgeList.of(new long[] {1, 2, 3}, new long[] {2, 3, 1});

    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private CompletableFuture<Target.Outcome> after(long millis, Target.Outcome outcome) {
        CompletableFuture<Target.Outcome> f = new CompletableFuture<>();
        scheduler.schedule(() -> f.complete(outcome), millis, TimeUnit.MILLISECONDS);
        return f;
    }

    @Test
    void run_fourConnectionsOf10ms_givesAbout400PerSecondAndNeverMoreThanFourInFlight() throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        Target tenMillis = new FakeTarget(op -> {
            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            return after(10, Target.Outcome.OK).whenComplete((o, e) -> inFlight.decrementAndGet());
        });

        ClosedLoopRunner.Result r = new ClosedLoopRunner(4, Duration.ofMillis(200), Duration.ofSeconds(1))
                .run(tenMillis, Workload.CHECK_EXISTING.source(GRAPH, 1));

        // 4 clients × 1 answer per (10 ms + scheduling) each: at most 400/s, well above half of it.
        assertThat(r.throughput()).isBetween(200.0, 400.0);
        assertThat(most.get()).isEqualTo(4);
        assertThat(r.latencyMillis(50)).isBetween(9.0, 30.0);
        assertThat(r.errors()).isZero();
    }

    @Test
    void run_failuresAndSynchronousAnswers_areCountedAsErrorsNotThroughput() throws Exception {
        AtomicLong n = new AtomicLong();
        // Answers synchronously (the loop must not recurse) and fails one in four.
        Target flaky = new FakeTarget(op -> n.incrementAndGet() % 4 == 0
                ? CompletableFuture.failedFuture(new IllegalStateException("boom"))
                : CompletableFuture.completedFuture(Target.Outcome.OK));

        ClosedLoopRunner.Result r = new ClosedLoopRunner(1, Duration.ZERO, Duration.ofMillis(300))
                .run(flaky, Workload.CHECK_EXISTING.source(GRAPH, 1));

        assertThat(r.ok()).isGreaterThan(1000);
        assertThat((double) r.errors() / (r.ok() + r.errors())).isBetween(0.2, 0.3);
        assertThat(r.throughput()).isEqualTo(r.ok() / r.seconds());
    }

    @Test
    void constructor_badArguments_areRefused() {
        assertThatThrownBy(() -> new ClosedLoopRunner(0, Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ClosedLoopRunner(1, Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void run_recordsEveryAnswerUnderItsKind_too() throws Exception {
        EdgeList graph = EdgeList.of(new long[] {1, 2, 3, 4}, new long[] {2, 3, 4, 1});
        // Counts fail, everything else is answered at once.
        Target countsFail = new FakeTarget(op -> CompletableFuture.completedFuture(
                op.kind() == Operation.Kind.COUNTS ? Target.Outcome.ERROR : Target.Outcome.OK));

        ClosedLoopRunner.Result r = new ClosedLoopRunner(1, Duration.ZERO, Duration.ofMillis(200))
                .run(countsFail, Workload.TAO_MIX.source(graph, 1));

        assertThat(r.byKind()).containsOnlyKeys(Workload.TAO_MIX.kinds());
        assertThat(r.byKind().get(Operation.Kind.COUNTS).ok()).isZero();
        assertThat(r.byKind().get(Operation.Kind.COUNTS).errors()).isEqualTo(r.errors());
        assertThat(r.byKind().values().stream().mapToLong(ClosedLoopRunner.KindResult::ok).sum()).isEqualTo(r.ok());
        assertThat(r.byKind().values().stream().mapToLong(k -> k.latencyMicros().getTotalCount()).sum())
                .isEqualTo(r.latencyMicros().getTotalCount());
    }
}
