package dev.socialgraph.loadgen;

import dev.socialgraph.loadgen.Operation.Kind;
import dev.socialgraph.loadgen.Target.Outcome;
import dev.socialgraph.loadgen.Target.ServerProcess;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Closed-loop load for maximum throughput: {@code connections} clients each send the next operation as soon as the
 * previous one is answered (wrk's method), for a warm-up and then a measurement window. The throughput is the number
 * of successful answers inside the window per second; the latency (send to answer, microseconds, HdrHistogram with
 * 3 significant digits) is the service time under that load. Closed-loop latency hides stalls (coordinated
 * omission), so latency claims come from {@link OpenLoopRunner} at a fixed rate; this runner answers "how fast can
 * it go at this many connections". Every answer is also recorded under its operation's kind, so a mixed workload's
 * run gives each kind's latency and errors beside the whole mix's.
 */
final class ClosedLoopRunner {

    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(15);

    private final int connections;
    private final Duration warmup;
    private final Duration measure;

    /**
     * @param connections clients, each with one operation in flight (≥ 1)
     * @param warmup      load before recording starts (≥ 0)
     * @param measure     recording window (&gt; 0)
     */
    ClosedLoopRunner(int connections, Duration warmup, Duration measure) {
        if (connections < 1 || measure.isZero() || measure.isNegative() || warmup.isNegative()) {
            throw new IllegalArgumentException("connections must be ≥ 1, measure > 0 and warmup ≥ 0");
        }
        this.connections = connections;
        this.warmup = warmup;
        this.measure = measure;
    }

    /**
     * One closed-loop run.
     *
     * @param throughput    successful answers inside the window per second
     * @param ok            successful answers inside the window
     * @param errors        failed answers (including 429s) inside the window
     * @param latencyMicros send-to-answer latency of every answer inside the window, microseconds
     * @param seconds       length of the window
     * @param serverCpu     CPU seconds each of the target's processes used inside the window, by process name
     * @param byKind        the same answers by operation kind: only the kinds answered inside the window
     */
    record Result(double throughput, long ok, long errors, Histogram latencyMicros, double seconds,
                  Map<String, Double> serverCpu, Map<Kind, KindResult> byKind) {

        /** A result without a breakdown by kind. */
        Result(double throughput, long ok, long errors, Histogram latencyMicros, double seconds,
               Map<String, Double> serverCpu) {
            this(throughput, ok, errors, latencyMicros, seconds, serverCpu, Map.of());
        }

        /** CPU microseconds per successful answer of every process measured together; NaN when none was. */
        double totalCpuMicrosPerOk() {
            double cpu = serverCpu.values().stream().mapToDouble(Double::doubleValue).sum();
            return serverCpu.isEmpty() || ok == 0 ? Double.NaN : cpu * 1e6 / ok;
        }

        /** CPU microseconds per successful answer that process {@code name} used; NaN when not measured. */
        double cpuMicrosPerOk(String name) {
            Double cpu = serverCpu.get(name);
            return cpu == null || ok == 0 ? Double.NaN : cpu * 1e6 / ok;
        }

        /** Latency at {@code percentile} (0..100) in milliseconds; NaN when nothing was recorded. */
        double latencyMillis(double percentile) {
            return latencyMicros.getTotalCount() == 0 ? Double.NaN
                    : latencyMicros.getValueAtPercentile(percentile) / 1000.0;
        }
    }

    /**
     * One kind's share of a run.
     *
     * @param ok            successful answers of this kind inside the window
     * @param errors        failed answers of this kind inside the window
     * @param latencyMicros their send-to-answer latency, microseconds
     */
    record KindResult(long ok, long errors, Histogram latencyMicros) {

        /** Latency at {@code percentile} (0..100) in milliseconds; NaN when nothing was recorded. */
        double latencyMillis(double percentile) {
            return latencyMicros.getTotalCount() == 0 ? Double.NaN
                    : latencyMicros.getValueAtPercentile(percentile) / 1000.0;
        }
    }

    /** Drives {@code target} with operations of {@code source} (drawn under a lock: sources are not thread-safe). */
    Result run(Target target, Workload.Source source) throws InterruptedException {
        Histogram latency = new ConcurrentHistogram(TimeUnit.HOURS.toMicros(1), 3);
        LongAdder ok = new LongAdder();
        LongAdder errors = new LongAdder();
        PerKind perKind = new PerKind();
        long start = System.nanoTime();
        long windowStart = start + warmup.toNanos();
        long windowEnd = windowStart + measure.toNanos();
        CountDownLatch stopped = new CountDownLatch(connections);
        Client[] clients = new Client[connections];
        for (int i = 0; i < connections; i++) {
            clients[i] = new Client(target, source, windowStart, windowEnd, latency, ok, errors, perKind, stopped);
        }
        for (Client c : clients) {
            c.next();
        }
        List<ServerProcess> processes = target.processes();
        sleepUntil(windowStart);
        Map<ServerProcess, Double> before = CpuTimes.sampleEach(processes);
        sleepUntil(windowEnd);
        Map<ServerProcess, Double> after = CpuTimes.sampleEach(processes);
        Map<String, Double> cpu = new TreeMap<>();
        for (Map.Entry<ServerProcess, Double> e : after.entrySet()) {
            Double atStart = before.get(e.getKey());
            if (atStart != null) {
                cpu.merge(e.getKey().name(), e.getValue() - atStart, Double::sum);
            }
        }
        if (!stopped.await(DRAIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            System.err.println(target.name() + ": operations still in flight " + DRAIN_TIMEOUT.toSeconds()
                    + " s after the window; counted as they stand");
        }
        double seconds = measure.toNanos() / 1e9;
        return new Result(ok.sum() / seconds, ok.sum(), errors.sum(), latency, seconds, Map.copyOf(cpu),
                perKind.results());
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long wait = nanoTime - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }

    /** Answers by kind: a histogram and two counters per kind, made up front so recording allocates nothing. */
    private static final class PerKind {
        private final Histogram[] latency = new Histogram[Kind.values().length];
        private final LongAdder[] ok = new LongAdder[latency.length];
        private final LongAdder[] errors = new LongAdder[latency.length];

        PerKind() {
            for (int k = 0; k < latency.length; k++) {
                latency[k] = new ConcurrentHistogram(TimeUnit.HOURS.toMicros(1), 3);
                ok[k] = new LongAdder();
                errors[k] = new LongAdder();
            }
        }

        void record(Kind kind, long micros, boolean answered) {
            latency[kind.ordinal()].recordValue(micros);
            (answered ? ok : errors)[kind.ordinal()].increment();
        }

        Map<Kind, KindResult> results() {
            Map<Kind, KindResult> byKind = new EnumMap<>(Kind.class);
            for (Kind k : Kind.values()) {
                int i = k.ordinal();
                if (latency[i].getTotalCount() > 0) {
                    byKind.put(k, new KindResult(ok[i].sum(), errors[i].sum(), latency[i]));
                }
            }
            return byKind;
        }
    }

    /** One connection's loop: the answer to one operation sends the next, until the window ends. */
    private record Client(Target target, Workload.Source source, long windowStart, long windowEnd, Histogram latency,
                          LongAdder ok, LongAdder errors, PerKind perKind, CountDownLatch stopped) {

        void next() {
            // A loop rather than recursion: a target that answers synchronously (a failure while building the
            // request) would otherwise grow the stack by one frame per operation.
            while (true) {
                long sent = System.nanoTime();
                if (sent >= windowEnd) {
                    stopped.countDown();
                    return;
                }
                Operation op;
                synchronized (source) {
                    op = source.next();
                }
                var answer = target.execute(op);
                if (!answer.isDone()) {
                    answer.whenComplete((outcome, failure) -> {
                        record(op.kind(), sent, failure != null ? Outcome.ERROR : outcome);
                        next();
                    });
                    return;
                }
                record(op.kind(), sent, answer.handle((outcome, failure) -> failure != null ? Outcome.ERROR : outcome).join());
            }
        }

        private void record(Kind kind, long sent, Outcome outcome) {
            long done = System.nanoTime();
            if (sent < windowStart || done >= windowEnd) {
                return;
            }
            long micros = Math.max(0, (done - sent) / 1000);
            latency.recordValue(micros);
            perKind.record(kind, micros, outcome == Outcome.OK);
            if (outcome == Outcome.OK) {
                ok.increment();
            } else {
                errors.increment();
            }
        }
    }
}
