package dev.socialgraph.loadgen;

import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * One rate step of one workload against one target.
 *
 * @param target        target name
 * @param workload      workload
 * @param offeredRate   operations per second offered (open loop)
 * @param achievedRate  successful completions per second inside the measurement window
 * @param ok            recorded operations that succeeded
 * @param errors        recorded operations that failed, including 429s and unsent ones
 * @param rateLimited   of {@code errors}, HTTP 429 answers
 * @param unsent        of {@code errors}, operations due in the window the dispatcher never sent (saturation)
 * @param latencyMicros latency from due time to completion, microseconds, every recorded operation
 * @param seconds       length of the measurement window
 * @param serverCpu     CPU seconds used during the window per server process name
 * @param loadgenCpu    CPU seconds the load generator's JVM used during the window
 * @param loadAverage   1-minute load average at the window's end
 * @param saturated     achieved below the saturation ratio of offered, operations left unsent, or no drain
 */
record StepResult(String target, Workload workload, double offeredRate, double achievedRate, long ok, long errors,
                  long rateLimited, long unsent, Histogram latencyMicros, double seconds, Map<String, Double> serverCpu,
                  double loadgenCpu, double loadAverage, boolean saturated) {

    StepResult {
        serverCpu = Map.copyOf(new TreeMap<>(serverCpu));
    }

    /** Latency at {@code percentile} (0..100) in milliseconds; NaN when nothing was recorded. */
    double latencyMillis(double percentile) {
        return latencyMicros.getTotalCount() == 0 ? Double.NaN
                : latencyMicros.getValueAtPercentile(percentile) / 1000.0;
    }

    /** Maximum latency in milliseconds; NaN when nothing was recorded. */
    double maxMillis() {
        return latencyMicros.getTotalCount() == 0 ? Double.NaN : latencyMicros.getMaxValue() / 1000.0;
    }

    /** CPU seconds of every server process together. */
    double serverCpuSeconds() {
        double sum = 0;
        for (double v : serverCpu.values()) {
            sum += v;
        }
        return sum;
    }

    /** Cores the servers used on average during the window: CPU seconds / wall seconds. */
    double serverCores() {
        return serverCpuSeconds() / seconds;
    }

    /** Achieved operations per second per core the servers used; NaN when no CPU time was measured. */
    double ratePerCore() {
        double cores = serverCores();
        return cores > 0 ? achievedRate / cores : Double.NaN;
    }
}
