package dev.socialgraph.loadgen;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Writes a run's results: {@code results.md} (machine, settings, a summary per workload with ratios to the peers,
 * every step), {@code results.csv} (one row per step, CPU seconds per process) and one {@code <workload>.png} per
 * workload (XChart: p50 and p99 latency against achieved throughput, one line per target).
 */
final class Report {

    /** The reference design's capacity plan: follow checks per second per core. */
    static final double PLANNED_CHECKS_PER_CORE = 2_000;

    private final List<StepResult> steps;
    private final Map<String, String> header;

    /**
     * @param steps  every step of the run, in run order
     * @param header ordered key → value lines for the report's head (machine, commit, settings)
     */
    Report(List<StepResult> steps, Map<String, String> header) {
        this.steps = List.copyOf(steps);
        this.header = new LinkedHashMap<>(header);
    }

    /** Writes the three kinds of file into {@code directory}, creating it. */
    void write(Path directory) {
        try {
            Files.createDirectories(directory);
            Files.writeString(directory.resolve("results.md"), markdown());
            Files.writeString(directory.resolve("results.csv"), csv());
            for (Workload w : workloads()) {
                BitmapEncoder.saveBitmap(chart(w), directory.resolve(w.label() + ".png").toString(),
                        BitmapEncoder.BitmapFormat.PNG);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report to " + directory, e);
        }
    }

    private List<Workload> workloads() {
        List<Workload> list = new ArrayList<>();
        for (StepResult s : steps) {
            if (!list.contains(s.workload())) {
                list.add(s.workload());
            }
        }
        return list;
    }

    private List<String> targets(Workload w) {
        List<String> list = new ArrayList<>();
        for (StepResult s : steps) {
            if (s.workload() == w && !list.contains(s.target())) {
                list.add(s.target());
            }
        }
        return list;
    }

    /**
     * The step that stands for a target on a workload: the highest achieved throughput among unsaturated steps, or
     * among all steps when every one saturated.
     */
    Optional<StepResult> best(Workload w, String target) {
        StepResult best = null;
        boolean bestSaturated = true;
        for (StepResult s : steps) {
            if (s.workload() != w || !s.target().equals(target)) {
                continue;
            }
            boolean better = best == null
                    || (bestSaturated && !s.saturated())
                    || (bestSaturated == s.saturated() && s.achievedRate() > best.achievedRate());
            if (better) {
                best = s;
                bestSaturated = s.saturated();
            }
        }
        return Optional.ofNullable(best);
    }

    String markdown() {
        StringBuilder md = new StringBuilder("# Benchmark: the fleet and its peers\n\n");
        for (Map.Entry<String, String> e : header.entrySet()) {
            md.append("- **").append(e.getKey()).append("**: ").append(e.getValue()).append('\n');
        }
        md.append("""

                Latencies in ms from each request's scheduled start (open loop), warm-up excluded. "Sustained" is the
                highest achieved rate of a step that kept up with its offered rate (≥ the saturation ratio, nothing
                left unsent); "cores" is the CPU seconds of the target's server processes per wall second in the
                measurement window, and "req/s/core" achieved req/s divided by it. Ratios compare a row with the
                peers on the same workload (throughput and req/s/core; > 1 means this row does more). "plan" is
                req/s/core divided by the capacity plan's 2,000 checks/s per core.

                ## Summary

                | workload | target | sustained req/s | p50 | p99 | p99.9 | errors | cores | req/s/core | × plan | tput vs redis | tput vs postgres | per-core vs redis | per-core vs postgres |
                |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
                """);
        for (Workload w : workloads()) {
            Optional<StepResult> redis = best(w, "redis");
            Optional<StepResult> postgres = best(w, "postgres");
            for (String t : targets(w)) {
                StepResult s = best(w, t).orElseThrow();
                md.append("| ").append(w.label()).append(" | ").append(t).append(" | ")
                        .append(num(s.achievedRate(), 0)).append(s.saturated() ? " (saturated)" : "").append(" | ")
                        .append(num(s.latencyMillis(50), 2)).append(" | ")
                        .append(num(s.latencyMillis(99), 2)).append(" | ")
                        .append(num(s.latencyMillis(99.9), 2)).append(" | ")
                        .append(s.errors()).append(" | ")
                        .append(num(s.serverCores(), 2)).append(" | ")
                        .append(num(s.ratePerCore(), 0)).append(" | ")
                        .append(num(s.ratePerCore() / PLANNED_CHECKS_PER_CORE, 2)).append(" | ")
                        .append(ratio(s.achievedRate(), redis.map(StepResult::achievedRate))).append(" | ")
                        .append(ratio(s.achievedRate(), postgres.map(StepResult::achievedRate))).append(" | ")
                        .append(ratio(s.ratePerCore(), redis.map(StepResult::ratePerCore))).append(" | ")
                        .append(ratio(s.ratePerCore(), postgres.map(StepResult::ratePerCore))).append(" |\n");
            }
        }
        md.append("""

                ## Every step

                | workload | target | offered | achieved | p50 | p90 | p99 | p99.9 | max | errors (429) | cores | req/s/core | loadgen cores | load avg | saturated |
                |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
                """);
        for (StepResult s : steps) {
            md.append("| ").append(s.workload().label()).append(" | ").append(s.target()).append(" | ")
                    .append(num(s.offeredRate(), 0)).append(" | ").append(num(s.achievedRate(), 0)).append(" | ")
                    .append(num(s.latencyMillis(50), 2)).append(" | ").append(num(s.latencyMillis(90), 2)).append(" | ")
                    .append(num(s.latencyMillis(99), 2)).append(" | ").append(num(s.latencyMillis(99.9), 2))
                    .append(" | ").append(num(s.maxMillis(), 1)).append(" | ")
                    .append(s.errors()).append(" (").append(s.rateLimited()).append(") | ")
                    .append(num(s.serverCores(), 2)).append(" | ").append(num(s.ratePerCore(), 0)).append(" | ")
                    .append(num(s.loadgenCpu() / s.seconds(), 2)).append(" | ").append(num(s.loadAverage(), 2))
                    .append(" | ").append(s.saturated() ? "yes" : "").append(" |\n");
        }
        md.append("\nPlots: ");
        for (Workload w : workloads()) {
            md.append("[").append(w.label()).append("](").append(w.label()).append(".png) ");
        }
        return md.append('\n').toString();
    }

    String csv() {
        TreeSet<String> processes = new TreeSet<>();
        for (StepResult s : steps) {
            processes.addAll(s.serverCpu().keySet());
        }
        StringBuilder csv = new StringBuilder("workload,target,offered_rps,achieved_rps,ok,errors,rate_limited,unsent,"
                + "p50_ms,p90_ms,p99_ms,p999_ms,max_ms,window_s,server_cpu_s,server_cores,rps_per_core,loadgen_cpu_s,"
                + "load_avg,saturated");
        for (String p : processes) {
            csv.append(",cpu_s_").append(p);
        }
        csv.append('\n');
        for (StepResult s : steps) {
            csv.append(s.workload().label()).append(',').append(s.target()).append(',')
                    .append(plain(s.offeredRate(), 1)).append(',').append(plain(s.achievedRate(), 1)).append(',')
                    .append(s.ok()).append(',').append(s.errors()).append(',').append(s.rateLimited()).append(',')
                    .append(s.unsent()).append(',')
                    .append(plain(s.latencyMillis(50), 3)).append(',').append(plain(s.latencyMillis(90), 3)).append(',')
                    .append(plain(s.latencyMillis(99), 3)).append(',').append(plain(s.latencyMillis(99.9), 3)).append(',')
                    .append(plain(s.maxMillis(), 3)).append(',').append(plain(s.seconds(), 1)).append(',')
                    .append(plain(s.serverCpuSeconds(), 2)).append(',').append(plain(s.serverCores(), 3)).append(',')
                    .append(plain(s.ratePerCore(), 1)).append(',').append(plain(s.loadgenCpu(), 2)).append(',')
                    .append(plain(s.loadAverage(), 2)).append(',').append(s.saturated());
            for (String p : processes) {
                csv.append(',').append(plain(s.serverCpu().getOrDefault(p, 0.0), 2));
            }
            csv.append('\n');
        }
        return csv.toString();
    }

    XYChart chart(Workload w) {
        XYChart chart = new XYChartBuilder().width(900).height(540)
                .title(w.label() + ": latency against throughput")
                .xAxisTitle("achieved req/s (log)").yAxisTitle("latency from scheduled start, ms (log)").build();
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setXAxisDecimalPattern("#,##0");
        chart.getStyler().setYAxisDecimalPattern("#,##0.###");
        chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
        chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        for (String t : targets(w)) {
            for (double p : new double[] {50, 99}) {
                List<Double> x = new ArrayList<>();
                List<Double> y = new ArrayList<>();
                for (StepResult s : steps) {
                    if (s.workload() == w && s.target().equals(t) && s.latencyMicros().getTotalCount() > 0) {
                        x.add(s.achievedRate());
                        y.add(Math.max(0.001, s.latencyMillis(p)));
                    }
                }
                if (!x.isEmpty()) {
                    XYSeries series = chart.addSeries(t + " p" + (int) p, x, y);
                    series.setMarker(p == 50 ? SeriesMarkers.CIRCLE : SeriesMarkers.DIAMOND);
                }
            }
        }
        return chart;
    }

    private static String ratio(double value, Optional<Double> peer) {
        return peer.isPresent() && peer.get() > 0 && !Double.isNaN(value) ? num(value / peer.get(), 2) + "×" : "–";
    }

    static String num(double value, int decimals) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "NaN";
        }
        return String.format(Locale.ROOT, "%,." + decimals + "f", value);
    }

    /** A CSV number: no grouping, empty when undefined. */
    static String plain(double value, int decimals) {
        return Double.isNaN(value) || Double.isInfinite(value) ? ""
                : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
