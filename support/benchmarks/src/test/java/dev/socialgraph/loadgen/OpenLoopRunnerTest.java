package dev.socialgraph.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenLoopRunnerTest {

    private static final EdgeList GRAPH = EdgeList.of(new long[] {1, 2, 3}, new long[] {2, 3, 1});

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void run_stallInTheTarget_countsAgainstEveryOperationDueDuringIt() throws Exception {
        // Answers at once, except that everything sent in a 400 ms window 0.5 s into the measurement waits for
        // the window's end. A closed-loop client would record one slow request; open loop records ~400.
        long measureStart = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20 + 200);
        long stallStart = measureStart + TimeUnit.MILLISECONDS.toNanos(500);
        long stallEnd = stallStart + TimeUnit.MILLISECONDS.toNanos(400);
        CompletableFuture<Target.Outcome> released = new CompletableFuture<>();
        scheduler.schedule(() -> released.complete(Target.Outcome.OK),
                stallEnd - System.nanoTime(), TimeUnit.NANOSECONDS);
        Target stalling = new FakeTarget(op -> {
            long now = System.nanoTime();
            return now >= stallStart && now < stallEnd ? released : CompletableFuture.completedFuture(Target.Outcome.OK);
        });
        OpenLoopRunner runner = new OpenLoopRunner(2_000, Duration.ofMillis(200), Duration.ofSeconds(2), 0.9);

        StepResult r = runner.run(stalling, Workload.CHECK_EXISTING, Workload.CHECK_EXISTING.source(GRAPH, 1), 1_000);

        assertThat(r.maxMillis()).isGreaterThan(300);
        // 20 % of the window was stalled, so the slowest 10 % all waited for part of the stall.
        assertThat(r.latencyMillis(90)).isGreaterThan(50);
        assertThat(r.latencyMicros().getTotalCount()).isBetween(1_900L, 2_000L);
        assertThat(r.errors()).isZero();
    }

    @Test
    void run_targetSlowerThanOffered_isSaturated() throws Exception {
        // One operation in flight, each taking 10 ms: at most 100/s against 500/s offered.
        Target slow = new FakeTarget(op -> {
            CompletableFuture<Target.Outcome> f = new CompletableFuture<>();
            scheduler.schedule(() -> f.complete(Target.Outcome.OK), 10, TimeUnit.MILLISECONDS);
            return f;
        });
        OpenLoopRunner runner = new OpenLoopRunner(1, Duration.ZERO, Duration.ofSeconds(1), 0.9);

        StepResult r = runner.run(slow, Workload.CHECK_EXISTING, Workload.CHECK_EXISTING.source(GRAPH, 1), 500);

        assertThat(r.saturated()).isTrue();
        assertThat(r.achievedRate()).isLessThan(150);
        assertThat(r.unsent()).isGreaterThan(0);
    }

    @Test
    void run_failuresAndRateLimits_areCountedSeparatelyAndNotAsThroughput() throws Exception {
        AtomicLong n = new AtomicLong();
        Target flaky = new FakeTarget(op -> CompletableFuture.completedFuture(switch ((int) (n.incrementAndGet() % 4)) {
            case 0 -> Target.Outcome.ERROR;
            case 1 -> Target.Outcome.RATE_LIMITED;
            default -> Target.Outcome.OK;
        }));
        OpenLoopRunner runner = new OpenLoopRunner(16, Duration.ZERO, Duration.ofSeconds(1), 0.9);

        StepResult r = runner.run(flaky, Workload.CHECK_EXISTING, Workload.CHECK_EXISTING.source(GRAPH, 1), 400);

        assertThat(r.ok() + r.errors()).isEqualTo(400);
        assertThat(r.errors()).isEqualTo(200);
        assertThat(r.rateLimited()).isEqualTo(100);
        assertThat(r.achievedRate()).isLessThanOrEqualTo(201);
        assertThat(r.saturated()).isTrue(); // half the offered rate succeeded
    }
}
