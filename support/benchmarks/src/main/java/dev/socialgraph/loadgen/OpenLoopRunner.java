package dev.socialgraph.loadgen;

import dev.socialgraph.loadgen.Target.Outcome;
import dev.socialgraph.loadgen.Target.ServerProcess;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Open-loop load at one fixed rate (the method of Gil Tene's wrk2): operation {@code i} is due at
 * {@code start + i / rate}, and its latency is measured from that due time, not from when it was sent. A stall in the
 * system under test (or a full connection budget) therefore shows up in every operation that was due during it,
 * instead of silently lowering the offered rate: no coordinated omission.
 *
 * <p>One dispatcher thread sends; at most {@code concurrency} operations are in flight (the client's connection
 * budget); when none is free the dispatcher waits and sends the overdue operations as soon as permits return. Only
 * operations due after the warm-up are recorded, in microseconds, in an HdrHistogram (3 significant digits, up to
 * 1 hour). Achieved throughput counts successful completions inside the measurement window. When the dispatcher falls
 * more than {@link #MAX_LAG} behind at the window's end, the operations not yet sent are counted as {@code unsent}
 * (and as errors) and the step is saturated.
 */
final class OpenLoopRunner {

    /** How far behind schedule the dispatcher may fall at the end of the window before it gives up. */
    static final Duration MAX_LAG = Duration.ofSeconds(2);
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(15);

    private final int concurrency;
    private final Duration warmup;
    private final Duration measure;
    private final double saturationRatio;

    /**
     * @param concurrency     operations in flight at most (the same for every target)
     * @param warmup          load before recording starts
     * @param measure         recording window
     * @param saturationRatio a step is saturated when achieved / offered falls below this (e.g. 0.9)
     */
    OpenLoopRunner(int concurrency, Duration warmup, Duration measure, double saturationRatio) {
        if (concurrency < 1 || measure.isZero() || measure.isNegative() || warmup.isNegative()) {
            throw new IllegalArgumentException("concurrency must be ≥ 1, measure > 0 and warmup ≥ 0");
        }
        this.concurrency = concurrency;
        this.warmup = warmup;
        this.measure = measure;
        this.saturationRatio = saturationRatio;
    }

    /** Offers {@code rate} operations per second of {@code source} to {@code target} and measures them. */
    StepResult run(Target target, Workload workload, Workload.Source source, double rate) throws InterruptedException {
        if (!(rate > 0)) {
            throw new IllegalArgumentException("rate must be > 0: " + rate);
        }
        Histogram latency = new ConcurrentHistogram(TimeUnit.HOURS.toMicros(1), 3);
        LongAdder ok = new LongAdder();
        LongAdder okInWindow = new LongAdder();
        LongAdder errors = new LongAdder();
        LongAdder rateLimited = new LongAdder();
        Semaphore permits = new Semaphore(concurrency);
        double periodNanos = 1e9 / rate;

        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        long windowStart = start + warmup.toNanos();
        long windowEnd = windowStart + measure.toNanos();
        long due = start;
        // CPU is read at the window's edges by another thread, so reading /proc never delays the dispatcher.
        // The process list is taken once, so both edges of the window read the same processes.
        AtomicReference<Sample> before = new AtomicReference<>();
        AtomicReference<List<ServerProcess>> processes = new AtomicReference<>();
        Thread sampler = Thread.ofPlatform().daemon().name("cpu-sampler").start(() -> {
            parkUntil(windowStart);
            processes.set(target.processes());
            before.set(Sample.take(processes.get()));
        });
        long unsent = 0;
        long sent = 0;
        for (long i = 0; ; i++) {
            due = start + (long) (i * periodNanos);
            if (due >= windowEnd) {
                break;
            }
            long now = System.nanoTime();
            if (now < due) {
                parkUntil(due);
            } else if (now - windowEnd > MAX_LAG.toNanos()) {
                unsent = (long) Math.ceil((windowEnd - due) / periodNanos);
                break;
            }
            permits.acquireUninterruptibly();
            Operation op = source.next();
            boolean recorded = due >= windowStart;
            final long dueAt = due;
            sent++;
            target.execute(op).whenComplete((outcome, failure) -> {
                long done = System.nanoTime();
                permits.release();
                Outcome o = failure != null ? Outcome.ERROR : outcome;
                if (o == Outcome.OK && done >= windowStart && done < windowEnd) {
                    okInWindow.increment();
                }
                if (recorded) {
                    latency.recordValue(Math.max(0, (done - dueAt) / 1000));
                    switch (o) {
                        case OK -> ok.increment();
                        case RATE_LIMITED -> rateLimited.increment();
                        case ERROR -> errors.increment();
                    }
                }
            });
        }
        parkUntil(windowEnd);
        sampler.join();
        Sample after = Sample.take(processes.get());
        boolean drained = permits.tryAcquire(concurrency, DRAIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (drained) {
            permits.release(concurrency);
        }
        double seconds = measure.toNanos() / 1e9;
        double achieved = okInWindow.sum() / seconds;
        long failed = errors.sum() + rateLimited.sum() + unsent;
        boolean saturated = unsent > 0 || !drained || achieved < saturationRatio * rate;
        // Per process, and only processes alive at both edges: a backend that ended mid-window is left out
        // rather than subtracting its whole history.
        Map<String, Double> cpu = new HashMap<>();
        for (Map.Entry<ServerProcess, Double> e : after.server().entrySet()) {
            Double atStart = before.get().server().get(e.getKey());
            if (atStart != null) {
                cpu.merge(e.getKey().name(), e.getValue() - atStart, Double::sum);
            }
        }
        return new StepResult(target.name(), workload, rate, achieved, ok.sum(), failed, rateLimited.sum(), unsent,
                latency, seconds, cpu, after.self() - before.get().self(), CpuTimes.loadAverage(), saturated);
    }

    /** CPU seconds so far of the target's processes and of this JVM. */
    private record Sample(Map<ServerProcess, Double> server, double self) {
        static Sample take(List<ServerProcess> processes) {
            return new Sample(CpuTimes.sampleEach(processes), CpuTimes.self());
        }
    }

    private static void parkUntil(long nanoTime) {
        for (long now = System.nanoTime(); now < nanoTime; now = System.nanoTime()) {
            LockSupport.parkNanos(nanoTime - now);
        }
    }
}
