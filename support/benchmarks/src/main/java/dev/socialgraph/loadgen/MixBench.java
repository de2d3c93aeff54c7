package dev.socialgraph.loadgen;

import dev.socialgraph.loadgen.ClosedLoopRunner.KindResult;
import dev.socialgraph.loadgen.Operation.Kind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The fleet under a realistic read mix ({@link Workload#TAO_MIX}, Facebook TAO's reads without object reads) from one
 * run of one fleet: what the mix costs next to the single check, next to going direct, and in CPU of the whole fleet.
 *
 * <p>Per round (the order of the three rotating between rounds), closed loop at {@code --connections} (32) for
 * {@code --warmup} + {@code --measure}: the mix through the gateway ("mix public"), the mix directly on
 * follow-check-service's internal API ("mix direct"), the single check through the gateway ("check public",
 * {@code --check-workload}). Then, through the gateway on one connection: the mix for {@code --latency-measure},
 * its latency split by kind, and the most followed user's followers walked page after page with the cursor
 * ({@code nextCursor} → {@code cursor}), starting over after the last page.
 *
 * <p>Reported, as medians over rounds of the per-round values: mix public req/s ÷ check public req/s; mix public ÷
 * mix direct; the fleet's CPU per answered mix public request in µs: CPU time of every process with a pid file in
 * {@code --pid-dir} (all of {@code ./graph up}'s: launcher, gateway, check instances, write service, cdc-consumer,
 * reconciler, PostgreSQL with its backends, Redis, Kafka) in the measurement window, divided by the answers in it.
 * Then p50 and p99 by kind on one connection, and of the celebrity's pages. Every answer is checked: a read is
 * answered on 200 only; everything else is counted as an error, the first few printed to standard error, and a
 * run with any error says so on its last line and exits 3.
 *
 * <p>Output: a log line per run and a Markdown summary on standard output; every number in {@code --out} (CSV, one
 * row per run and per kind of it). Exit status 0, 3 when any answer was not a 200 (summary and file written), 2 on
 * bad options.
 */
@Command(name = "mix-bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "TAO's read mix on the fleet: mix vs single check, public vs direct, fleet CPU per request, "
                + "latency by kind.")
public final class MixBench implements Callable<Integer> {

    static final String MIX_PUBLIC = "mix public";
    static final String MIX_DIRECT = "mix direct";
    static final String CHECK_PUBLIC = "check public";

    /** The round of the initial warm-up's runs. */
    static final int WARMUP_ROUND = 0;
    /** The round of the one-connection run of the mix, after the rounds. */
    static final int LATENCY_ROUND = -1;

    /** The kinds of the per-kind table, in its order. */
    static final List<Kind> KINDS = List.of(Kind.CHECK, Kind.FOLLOWING_PAGE, Kind.FOLLOWERS_PAGE, Kind.COUNTS,
            Kind.COMMON_FOLLOWING);

    /** Exit status of a run that printed its summary but had answers other than 200. */
    static final int EXIT_ERRORS = 3;

    @Option(names = "--dataset", required = true, description = "edge list the fleet was imported from (gzip or plain)")
    Path dataset;

    @Option(names = "--fleet", defaultValue = ".graph",
            description = "the launcher's data directory: run/*.pid, run/ports.properties, jwt-secret, service-token (default: ${DEFAULT-VALUE})")
    Path fleetDir;

    @Option(names = "--pid-dir", description = "directory of <process>.pid files, every one of them the fleet's CPU (default: <fleet>/run)")
    Path pidDir;

    @Option(names = "--gateway-url", description = "gateway (default: port 'gateway' of ports.properties, else http://127.0.0.1:8080)")
    URI gatewayUrl;

    @Option(names = "--check-url", description = "follow-check-service for the direct runs (default: ports.properties, else http://127.0.0.1:8081)")
    URI checkUrl;

    @Option(names = "--jwt-secret", description = "gateway HS256 secret (default: env GRAPH_JWT_SECRET, else <fleet>/jwt-secret, else the dev default)")
    String jwtSecret;

    @Option(names = "--service-token", description = "service credential of the direct runs (default: env GRAPH_SERVICE_TOKEN, else <fleet>/service-token)")
    String serviceToken;

    @Option(names = "--connections", defaultValue = "32", description = "connections of the throughput runs (default: ${DEFAULT-VALUE})")
    int connections;

    @Option(names = "--rounds", defaultValue = "3", description = "repetitions of the three throughput runs (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--warmup", defaultValue = "5s", converter = Loadgen.DurationConverter.class, description = "per run, not recorded (default: ${DEFAULT-VALUE})")
    Duration warmup;

    @Option(names = "--measure", defaultValue = "10s", converter = Loadgen.DurationConverter.class, description = "per throughput run, recorded (default: ${DEFAULT-VALUE})")
    Duration measure;

    @Option(names = "--latency-measure", defaultValue = "30s", converter = Loadgen.DurationConverter.class,
            description = "per one-connection run (the mix by kind, the celebrity's pages), recorded: the mix's rarest "
                    + "kind, common following, is 4 % of it (default: ${DEFAULT-VALUE})")
    Duration latencyMeasure;

    @Option(names = "--initial-warmup", defaultValue = "30s", converter = Loadgen.DurationConverter.class,
            description = "closed-loop load of each of the three before the first round, not recorded (default: ${DEFAULT-VALUE})")
    Duration initialWarmup;

    @Option(names = "--check-workload", defaultValue = "check-mixed",
            description = "the single check the mix is compared with; check-mixed is half edges, as the mix's checks (default: ${DEFAULT-VALUE})")
    String checkWorkload;

    @Option(names = "--celebrity-limit", defaultValue = "50", description = "page size of the celebrity's followers walk (default: ${DEFAULT-VALUE}, the API's)")
    int celebrityLimit;

    @Option(names = "--seed", defaultValue = "1", description = "operation streams (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--out", defaultValue = "mix-bench.csv", description = "every number of the run, CSV (default: ${DEFAULT-VALUE})")
    Path out;

    /** Runs the command; see the class comment for exit statuses. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new MixBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Workload check = Workload.parse(checkWorkload);
        if (!check.kinds().equals(EnumSet.of(Kind.CHECK))) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--check-workload must be a check workload");
        }
        if (rounds < 1 || connections < 1 || celebrityLimit < 1 || celebrityLimit > 1000) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--rounds ≥ 1, --connections ≥ 1, 1 ≤ --celebrity-limit ≤ 1000");
        }
        Fleet fleet = Fleet.read(fleetDir, pidDir != null ? pidDir : fleetDir.resolve("run"));
        List<Target.ServerProcess> processes = fleet.processes();
        URI gateway = gatewayUrl != null ? gatewayUrl : Loadgen.local(fleet.port("gateway", 8080));
        URI direct = checkUrl != null ? checkUrl : Loadgen.local(fleet.port("follow-check-service", 8081));
        EdgeList graph = EdgeList.read(dataset);
        int celebrityNumber = graph.mostFollowed(1)[0];
        long celebrity = graph.user(celebrityNumber);
        System.out.printf(Locale.ROOT, "%s, %s: %,d edges, %,d users; hot users %,d (most followed 1 %%); celebrity %d "
                        + "with %,d followers%n", ZonedDateTime.now(ZoneOffset.UTC), dataset, graph.edgeCount(),
                graph.userCount(), Workload.Source.hotCount(graph.userCount()), celebrity,
                graph.followerCount(celebrityNumber));
        System.out.printf("gateway %s, direct %s; fleet processes %s%n", gateway, direct,
                processes.isEmpty() ? "none found: no CPU figures" : processes);

        List<Run> runs = new ArrayList<>();
        ClosedLoopRunner.Result byKind;
        Walk walk;
        try (HttpTarget publicApi = HttpTarget.gateway(gateway, Loadgen.jwtSecret(jwtSecret, fleet), graph, processes);
             HttpTarget internalApi = HttpTarget.direct(direct, direct, Loadgen.serviceToken(serviceToken, fleet),
                     processes)) {
            Workload.Source mix = Workload.TAO_MIX.source(graph, seed);
            Workload.Source checks = check.source(graph, seed);
            Map<String, Step> steps = new LinkedHashMap<>();
            steps.put(MIX_PUBLIC, new Step(publicApi, mix, Workload.TAO_MIX));
            steps.put(MIX_DIRECT, new Step(internalApi, mix, Workload.TAO_MIX));
            steps.put(CHECK_PUBLIC, new Step(publicApi, checks, check));
            if (!initialWarmup.isZero()) {
                ClosedLoopRunner warm = new ClosedLoopRunner(connections, Duration.ZERO, initialWarmup);
                for (Map.Entry<String, Step> e : steps.entrySet()) {
                    ClosedLoopRunner.Result r = warm.run(e.getValue().target(), e.getValue().source());
                    runs.add(new Run(WARMUP_ROUND, e.getKey(), e.getValue().workload().label(), connections, r));
                    print(runs.getLast());
                }
            }
            List<String> names = new ArrayList<>(steps.keySet());
            ClosedLoopRunner closed = new ClosedLoopRunner(connections, warmup, measure);
            for (int round = 1; round <= rounds; round++) {
                List<String> order = new ArrayList<>(names);
                Collections.rotate(order, -((round - 1) % names.size()));
                for (String name : order) {
                    Step s = steps.get(name);
                    runs.add(new Run(round, name, s.workload().label(), connections, closed.run(s.target(), s.source())));
                    print(runs.getLast());
                }
            }
            byKind = new ClosedLoopRunner(1, warmup, latencyMeasure).run(publicApi, mix);
            runs.add(new Run(LATENCY_ROUND, MIX_PUBLIC, Workload.TAO_MIX.label(), 1, byKind));
            print(runs.getLast());
            walk = walk(publicApi::page, celebrity, graph.followerCount(celebrityNumber), celebrityLimit, warmup,
                    latencyMeasure);
            System.out.printf(Locale.ROOT, "celebrity %d followers walk, limit %d: %,d pages, %,d walks, p50 %.3f p99 "
                            + "%.3f ms, errors %d%n", celebrity, celebrityLimit, walk.ok(), walk.walks(),
                    walk.latencyMillis(50), walk.latencyMillis(99), walk.errors());
        }
        write(out, csv(runs, walk));
        System.out.println();
        System.out.print(summary(runs, byKind, walk));
        System.out.printf("raw numbers: %s%n", out.toAbsolutePath());
        long errors = errors(runs, walk);
        if (errors > 0) {
            System.out.printf("THIS RUN HAD ERRORS: %,d answers were not 200 (see the errors columns; the first few are "
                    + "on standard error)%n", errors);
            return EXIT_ERRORS;
        }
        System.out.println("every answer was 200");
        return 0;
    }

    private record Step(Target target, Workload.Source source, Workload workload) { }

    /**
     * One closed-loop run.
     *
     * @param round       1.. for the rounds; {@link #WARMUP_ROUND} for the initial warm-up, {@link #LATENCY_ROUND}
     *                    for the one-connection run
     * @param step        {@link #MIX_PUBLIC}, {@link #MIX_DIRECT} or {@link #CHECK_PUBLIC}
     * @param workload    its workload's label
     * @param connections connections
     * @param result      what it measured
     */
    record Run(int round, String step, String workload, int connections, ClosedLoopRunner.Result result) { }

    /**
     * The celebrity's followers walked page after page on one connection.
     *
     * @param celebrity     the user walked
     * @param followers     its followers in the dataset
     * @param limit         page size
     * @param ok            pages answered (200) inside the window
     * @param errors        pages not answered inside the window
     * @param walks         walks completed inside the window (last page reached)
     * @param pagesPerWalk  pages of the first complete walk; 0 when none completed
     * @param latencyMicros send-to-answer latency of every page inside the window, microseconds
     * @param seconds       length of the window
     */
    record Walk(long celebrity, int followers, int limit, long ok, long errors, long walks, int pagesPerWalk,
                Histogram latencyMicros, double seconds) {

        /** Latency at {@code percentile} (0..100) in milliseconds; NaN when nothing was recorded. */
        double latencyMillis(double percentile) {
            return latencyMicros.getTotalCount() == 0 ? Double.NaN
                    : latencyMicros.getValueAtPercentile(percentile) / 1000.0;
        }
    }

    /**
     * Walks {@code celebrity}'s followers with {@code page} (one request at a time, each page's {@code nextCursor}
     * the next one's cursor, from the first page again after the last or after a failure) for {@code warmup}, then
     * records every page answered within {@code measure}.
     */
    static Walk walk(Function<Operation, HttpTarget.PageAnswer> page, long celebrity, int followers, int limit,
                     Duration warmup, Duration measure) {
        Histogram latency = new Histogram(TimeUnit.HOURS.toMicros(1), 3);
        Operation first = Operation.page(Kind.FOLLOWERS_PAGE, celebrity, 0, limit);
        long windowStart = System.nanoTime() + warmup.toNanos();
        long windowEnd = windowStart + measure.toNanos();
        long ok = 0;
        long errors = 0;
        long walks = 0;
        int pagesPerWalk = 0;
        int pagesThisWalk = 0;
        Operation next = first;
        while (true) {
            long sent = System.nanoTime();
            if (sent >= windowEnd) {
                break;
            }
            HttpTarget.PageAnswer answer = page.apply(next);
            long done = System.nanoTime();
            boolean recorded = sent >= windowStart && done < windowEnd;
            boolean answered = answer.outcome() == Target.Outcome.OK;
            if (recorded) {
                latency.recordValue(Math.max(0, (done - sent) / 1000));
                if (answered) {
                    ok++;
                } else {
                    errors++;
                }
            }
            pagesThisWalk++;
            if (answered && answer.nextCursor() != null) {
                next = first.withCursor(answer.nextCursor());
                continue;
            }
            if (answered) {
                walks += recorded ? 1 : 0;
                pagesPerWalk = pagesPerWalk == 0 ? pagesThisWalk : pagesPerWalk;
            }
            next = first;
            pagesThisWalk = 0;
        }
        return new Walk(celebrity, followers, limit, ok, errors, walks, pagesPerWalk, latency,
                measure.toNanos() / 1e9);
    }

    /**
     * One row of the per-kind table.
     *
     * @param kind   the kind
     * @param ok     answered (200)
     * @param errors not answered
     * @param share  of every request of the run, 0..1
     * @param p50    median latency, ms
     * @param p99    99th percentile latency, ms
     */
    record KindRow(Kind kind, long ok, long errors, double share, double p50, double p99) { }

    /** The per-kind rows of a run, in {@link #KINDS}' order; a kind the run did not send has zero counts and NaNs. */
    static List<KindRow> kindRows(ClosedLoopRunner.Result r) {
        long all = r.ok() + r.errors();
        List<KindRow> rows = new ArrayList<>();
        for (Kind k : KINDS) {
            KindResult x = r.byKind().get(k);
            rows.add(x == null ? new KindRow(k, 0, 0, 0, Double.NaN, Double.NaN)
                    : new KindRow(k, x.ok(), x.errors(), all == 0 ? 0 : (x.ok() + x.errors()) / (double) all,
                    x.latencyMillis(50), x.latencyMillis(99)));
        }
        return rows;
    }

    /** How a kind is named in the tables. */
    static String label(Kind kind) {
        return switch (kind) {
            case CHECK -> "check";
            case FOLLOWING_PAGE -> "following page";
            case FOLLOWERS_PAGE -> "followers page";
            case COUNTS -> "counts";
            case COMMON_FOLLOWING -> "common following";
            default -> kind.name().toLowerCase(Locale.ROOT);
        };
    }

    /** The three ratios of each round, from its runs; NaN where a run is missing. */
    record Ratios(int round, double mixOverCheck, double publicOverDirect, double fleetCpuMicrosPerMixRequest) { }

    /** The per-round ratios, rounds 1.. in order, from the rounds' throughput runs. */
    static List<Ratios> ratios(List<Run> runs) {
        List<Ratios> out = new ArrayList<>();
        int last = runs.stream().mapToInt(Run::round).max().orElse(0);
        for (int round = 1; round <= last; round++) {
            ClosedLoopRunner.Result mix = find(runs, round, MIX_PUBLIC);
            ClosedLoopRunner.Result direct = find(runs, round, MIX_DIRECT);
            ClosedLoopRunner.Result check = find(runs, round, CHECK_PUBLIC);
            if (mix == null) {
                continue;
            }
            out.add(new Ratios(round,
                    check == null ? Double.NaN : mix.throughput() / check.throughput(),
                    direct == null ? Double.NaN : mix.throughput() / direct.throughput(),
                    mix.totalCpuMicrosPerOk()));
        }
        return out;
    }

    private static ClosedLoopRunner.Result find(List<Run> runs, int round, String step) {
        return runs.stream().filter(r -> r.round() == round && r.step().equals(step))
                .map(Run::result).findFirst().orElse(null);
    }

    /** The median of {@code values}, NaNs left out (the mean of the middle two for an even count); NaN when none. */
    static double median(double[] values) {
        double[] v = Arrays.stream(values).filter(x -> !Double.isNaN(x)).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** Non-200 answers of every recorded window (rounds, the one-connection run, the walk; not the warm-up). */
    static long errors(List<Run> runs, Walk walk) {
        return runs.stream().filter(r -> r.round() != WARMUP_ROUND).mapToLong(r -> r.result().errors()).sum()
                + (walk == null ? 0 : walk.errors());
    }

    /** The Markdown summary: the three ratios (medians over rounds), the throughputs, the per-kind table. */
    static String summary(List<Run> runs, ClosedLoopRunner.Result oneConnection, Walk walk) {
        List<Ratios> ratios = ratios(runs);
        int connections = runs.stream().filter(r -> r.round() > 0).mapToInt(Run::connections).max().orElse(0);
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "| %d connections, closed loop (median of %d rounds) | req/s | p50 / p99 ms "
                + "| fleet CPU µs/request | errors |%n|---|---:|---:|---:|---:|%n", connections, ratios.size()));
        for (String step : List.of(MIX_PUBLIC, MIX_DIRECT, CHECK_PUBLIC)) {
            List<ClosedLoopRunner.Result> at = runs.stream()
                    .filter(r -> r.round() > 0 && r.step().equals(step))
                    .map(Run::result).toList();
            if (at.isEmpty()) {
                continue;
            }
            s.append(String.format(Locale.ROOT, "| %s | %,.0f | %.3f / %.3f | %s | %d |%n", step,
                    median(at, ClosedLoopRunner.Result::throughput),
                    median(at, r -> r.latencyMillis(50)), median(at, r -> r.latencyMillis(99)),
                    Report.num(median(at, ClosedLoopRunner.Result::totalCpuMicrosPerOk), 0),
                    at.stream().mapToLong(ClosedLoopRunner.Result::errors).sum()));
        }
        s.append(String.format(Locale.ROOT, "%n| ratio (median of per-round values) | value |%n|---|---:|%n"
                        + "| mix public ÷ check public, req/s | %s |%n| mix public ÷ mix direct, req/s | %s |%n"
                        + "| fleet CPU per mix public request, µs | %s |%n",
                Report.num(median(ratios.stream().mapToDouble(Ratios::mixOverCheck).toArray()), 3),
                Report.num(median(ratios.stream().mapToDouble(Ratios::publicOverDirect).toArray()), 3),
                Report.num(median(ratios.stream().mapToDouble(Ratios::fleetCpuMicrosPerMixRequest).toArray()), 0)));
        if (oneConnection != null) {
            s.append(String.format(Locale.ROOT, "%n| mix public, 1 connection, by kind | requests | share | p50 ms "
                    + "| p99 ms | errors |%n|---|---:|---:|---:|---:|---:|%n"));
            for (KindRow k : kindRows(oneConnection)) {
                s.append(String.format(Locale.ROOT, "| %s | %,d | %.1f %% | %s | %s | %d |%n", label(k.kind()),
                        k.ok() + k.errors(), k.share() * 100, Report.num(k.p50(), 3), Report.num(k.p99(), 3),
                        k.errors()));
            }
            s.append(String.format(Locale.ROOT, "| whole mix | %,d | 100 %% | %s | %s | %d |%n",
                    oneConnection.ok() + oneConnection.errors(), Report.num(oneConnection.latencyMillis(50), 3),
                    Report.num(oneConnection.latencyMillis(99), 3), oneConnection.errors()));
        }
        if (walk != null) {
            s.append(String.format(Locale.ROOT, "| celebrity %d's followers (%,d), limit %d, walked with the cursor: "
                            + "%,d pages, %,d walks of %d pages | %,d | | %s | %s | %d |%n", walk.celebrity(),
                    walk.followers(), walk.limit(), walk.ok(), walk.walks(), walk.pagesPerWalk(),
                    walk.ok() + walk.errors(), Report.num(walk.latencyMillis(50), 3),
                    Report.num(walk.latencyMillis(99), 3), walk.errors()));
        }
        return s.toString();
    }

    private static double median(List<ClosedLoopRunner.Result> results,
                                 ToDoubleFunction<ClosedLoopRunner.Result> value) {
        return median(results.stream().mapToDouble(value).toArray());
    }

    /**
     * Every number of the run as CSV: per run a row of the whole run ({@code kind} {@code all}, with the CPU seconds
     * of each process) and a row per kind it sent; the walk's row last.
     */
    static String csv(List<Run> runs, Walk walk) {
        TreeSet<String> processes = new TreeSet<>();
        for (Run r : runs) {
            processes.addAll(r.result().serverCpu().keySet());
        }
        StringBuilder csv = new StringBuilder("round,step,workload,connections,kind,ok,errors,window_s,throughput_rps,"
                + "p50_ms,p90_ms,p99_ms,p999_ms,max_ms,fleet_cpu_s,fleet_cpu_us_per_ok");
        for (String p : processes) {
            csv.append(",cpu_s_").append(p);
        }
        csv.append('\n');
        for (Run r : runs) {
            ClosedLoopRunner.Result x = r.result();
            String head = r.round() + "," + r.step() + "," + r.workload() + "," + r.connections() + ",";
            double fleetCpu = x.serverCpu().values().stream().mapToDouble(Double::doubleValue).sum();
            csv.append(head).append("all,");
            row(csv, x.ok(), x.errors(), x.seconds(), x.latencyMicros());
            csv.append(',').append(x.serverCpu().isEmpty() ? "" : Report.plain(fleetCpu, 3))
                    .append(',').append(Report.plain(x.totalCpuMicrosPerOk(), 1));
            for (String p : processes) {
                Double cpu = x.serverCpu().get(p);
                csv.append(',').append(cpu == null ? "" : Report.plain(cpu, 3));
            }
            csv.append('\n');
            for (Map.Entry<Kind, KindResult> k : x.byKind().entrySet()) {
                csv.append(head).append(label(k.getKey()).replace(' ', '-')).append(',');
                row(csv, k.getValue().ok(), k.getValue().errors(), x.seconds(), k.getValue().latencyMicros());
                csv.append(",,").append(",".repeat(processes.size())).append('\n');
            }
        }
        if (walk != null) {
            csv.append(LATENCY_ROUND).append(",celebrity followers walk,user ").append(walk.celebrity()).append(" limit ")
                    .append(walk.limit()).append(",1,followers-page,");
            row(csv, walk.ok(), walk.errors(), walk.seconds(), walk.latencyMicros());
            csv.append(",,").append(",".repeat(processes.size())).append('\n');
        }
        return csv.toString();
    }

    private static void row(StringBuilder csv, long ok, long errors, double seconds, Histogram latency) {
        csv.append(ok).append(',').append(errors).append(',').append(Report.plain(seconds, 1)).append(',')
                .append(Report.plain(ok / seconds, 1));
        for (double p : new double[] {50, 90, 99, 99.9}) {
            csv.append(',').append(latency.getTotalCount() == 0 ? ""
                    : Report.plain(latency.getValueAtPercentile(p) / 1000.0, 3));
        }
        csv.append(',').append(latency.getTotalCount() == 0 ? "" : Report.plain(latency.getMaxValue() / 1000.0, 3));
    }

    private static void print(Run r) {
        ClosedLoopRunner.Result x = r.result();
        System.out.printf(Locale.ROOT, "%-8s c=%-3d %-12s %8.0f/s  p50 %7.3f  p99 %7.3f ms  errors %d  fleet CPU "
                        + "µs/request %s  load %.2f%n", r.round() == WARMUP_ROUND ? "warm-up"
                        : r.round() == LATENCY_ROUND ? "latency" : "round " + r.round(),
                r.connections(), r.step(), x.throughput(), x.latencyMillis(50), x.latencyMillis(99), x.errors(),
                Report.num(x.totalCpuMicrosPerOk(), 0), CpuTimes.loadAverage());
    }

    private static void write(Path file, String text) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
