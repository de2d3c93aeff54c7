package dev.socialgraph.loadgen;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The cost of the gateway hop: one workload (a follow check by default) against follow-check-service
 * directly and through the gateway, at each connection count, interleaved and repeated, so the ratio of the two comes
 * from runs seconds apart on the same (noisy) machine.
 *
 * <p>Per round and connection count, for each target (the order rotates between rounds): a closed-loop run
 * ({@link ClosedLoopRunner}: maximum throughput, and the latency at it), then, once every target has been run, an
 * open-loop run ({@link OpenLoopRunner}) of each at the same fixed rate, {@code --open-share} of the slowest target's
 * closed-loop throughput, for latency without coordinated omission. The summary is the median over rounds of every
 * number, the throughput ratio gateway / direct and the added p50 (gateway − direct, open loop), each the median of
 * the per-round values. With {@code --pid-dir}, CPU microseconds per answer of every process named there; the
 * summary's column is that of the process named like the target ({@code gateway.pid}, {@code baseline.pid}). With
 * {@code --baseline-url}, a second gateway (an untuned build, say) is a third target in the same rounds, so a tuning
 * is compared under the same background load as the tuned gateway. With {@code --direct-baseline-url}, a second
 * check instance (the same build with a feature off, say) is a target beside direct, its CPU from
 * {@code direct-baseline.pid}: a feature's cost on the check path, measured in the same rounds. With {@code --client}, {@code graph-client}'s
 * backend client ({@link ClientTarget}: shard-affine, no gateway) is one more target, compared with direct like the
 * gateway; its CPU column is empty, as it runs inside this process.
 *
 * <p>The floors ({@code --bare}, {@code --hello}) are not served by the product: HopBench starts them itself from
 * the floors jar ({@code support/floors}, {@link FloorProcess}) as child JVMs on free loopback ports, the bare
 * gateway in front of {@code --check-url}, waits until they are ready, measures them beside the other targets and
 * stops them at the end, also when the run fails. Their CPU column is their own process's ({@code bare},
 * {@code hello}).
 *
 * <p>Run: {@code java -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.HopBench --dataset … --check-url …
 * --gateway-url …}. Exit status 0 after printing the summary, 2 on bad options, 1 when a floor does not start.
 */
@Command(name = "hop-bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Direct vs through-the-gateway: throughput (closed loop) and latency (open loop), interleaved.")
public final class HopBench implements Callable<Integer> {

    private static final String DIRECT = "direct";

    @Option(names = "--dataset", required = true, description = "edge list the service was loaded with (gzip or plain)")
    Path dataset;

    @Option(names = "--check-url", defaultValue = "http://127.0.0.1:8081", description = "follow-check-service (default: ${DEFAULT-VALUE})")
    URI checkUrl;

    @Option(names = "--gateway-url", defaultValue = "http://127.0.0.1:8080", description = "gateway (default: ${DEFAULT-VALUE})")
    URI gatewayUrl;

    @Option(names = "--no-gateway", description = "leave the gateway out, e.g. to compare two check instances alone")
    boolean noGateway;

    @Option(names = "--baseline-url", description = "a second gateway (e.g. an untuned build) run interleaved with the first (optional)")
    URI baselineUrl;

    @Option(names = "--direct-baseline-url", description = "a second check instance (e.g. the same build with a feature "
            + "off) run interleaved with direct; its CPU from <pid-dir>/direct-baseline.pid (optional)")
    URI directBaselineUrl;

    @Option(names = "--client", description = "also measure graph-client's backend client, a path without the gateway (optional)")
    boolean client;

    @Option(names = "--client-instances", split = ",",
            description = "check instances for --client as id=url, ids as graph.check.affinity.instance-id (default: check-0=<check-url>)")
    List<String> clientInstances;

    @Option(names = "--service-token", description = "service credential the direct, --hello and --client targets send, "
            + "and the --bare floor adds (default: env GRAPH_SERVICE_TOKEN, else none)")
    String serviceToken;

    @Option(names = "--hello", description = "also measure a same-stack hello world (support/floors, started here): "
            + "the floor of the check service's HTTP path (optional)")
    boolean hello;

    @Option(names = "--bare", description = "also measure a bare Spring Cloud Gateway (support/floors, started here in "
            + "front of --check-url, no filter of the gateway's): the floor of the hop (optional)")
    boolean bare;

    @Option(names = "--floors-jar", description = "the floors' runnable jar for --bare and --hello (default: "
            + "support/floors/target/floors-*-exec.jar beside this loadgen's module)")
    Path floorsJar;

    @Option(names = "--floor-startup", defaultValue = "180s", converter = Loadgen.DurationConverter.class,
            description = "longest wait for a floor to be ready (default: ${DEFAULT-VALUE})")
    Duration floorStartup;

    @Option(names = "--redis-uri", description = "also measure Redis SISMEMBER on these sets (loaded into this URI's "
            + "database, which is flushed first), the floor a user compares with, e.g. redis://127.0.0.1:6379/15 (optional)")
    String redisUri;

    @Option(names = "--jwt-secret", description = "gateway HS256 secret (default: env GRAPH_JWT_SECRET, else the dev default)")
    String jwtSecret;

    @Option(names = "--pid-dir", description = "directory of <process>.pid files whose CPU time per answer is reported (optional)")
    Path pidDir;

    @Option(names = "--workload", defaultValue = "check-existing", description = "a read workload of loadgen (default: ${DEFAULT-VALUE})")
    String workload;

    @Option(names = "--connections", split = ",", defaultValue = "1,32", description = "connection counts (default: ${DEFAULT-VALUE})")
    List<Integer> connections;

    @Option(names = "--rounds", defaultValue = "3", description = "repetitions of every measurement (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--warmup", defaultValue = "5s", converter = Loadgen.DurationConverter.class, description = "per run, not recorded (default: ${DEFAULT-VALUE})")
    Duration warmup;

    @Option(names = "--measure", defaultValue = "10s", converter = Loadgen.DurationConverter.class, description = "per run, recorded (default: ${DEFAULT-VALUE})")
    Duration measure;

    @Option(names = "--initial-warmup", defaultValue = "30s", converter = Loadgen.DurationConverter.class,
            description = "closed-loop load on each target at the highest connection count before the first round, "
                    + "not recorded: JIT and connection pools of freshly started processes (default: ${DEFAULT-VALUE})")
    Duration initialWarmup;

    @Option(names = "--open-share", defaultValue = "0.5",
            description = "open-loop rate as a share of the slower target's closed-loop throughput in the same round (default: ${DEFAULT-VALUE})")
    double openShare;

    @Option(names = "--seed", defaultValue = "1", description = "operation stream (default: ${DEFAULT-VALUE})")
    long seed;

    /** Runs the command; see the class comment for exit statuses. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new HopBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Workload w = Workload.parse(workload);
        if (w.kinds().stream().anyMatch(Operation.Kind::isWrite)) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--workload must be a read workload");
        }
        if ((client || clientInstances != null) && !ClientTarget.SUPPORTED.containsAll(w.kinds())) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--client measures checks, batch checks and counts only; --workload " + workload + " has others");
        }
        if (rounds < 1 || !(openShare > 0 && openShare <= 1)) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--rounds ≥ 1 and 0 < --open-share ≤ 1");
        }
        String token = Loadgen.serviceToken(serviceToken);
        if ((bare || hello) && token == null) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--bare and --hello start floors that "
                    + "need the service credential: --service-token or env GRAPH_SERVICE_TOKEN");
        }
        Path jar = bare || hello ? (floorsJar != null ? floorsJar : FloorProcess.defaultJar()) : null;
        List<Target.ServerProcess> processes = pidDir == null ? List.of()
                : Fleet.read(pidDir, pidDir).processes();
        List<Row> rows = new ArrayList<>();
        Map<String, Target> targets = new LinkedHashMap<>();
        List<FloorProcess> floors = new ArrayList<>();
        // Ctrl-C or a kill between here and the finally below: the floors go down with this JVM.
        Thread stopFloors = new Thread(() -> stopAll(floors), "stop-floors");
        Runtime.getRuntime().addShutdownHook(stopFloors);
        try {
            FloorProcess bareFloor = null;
            FloorProcess helloFloor = null;
            if (jar != null) {
                Path logs = Files.createTempDirectory("hop-bench-floors-");
                if (bare) {
                    bareFloor = startFloor(floors, jar, FloorProcess.BARE_GATEWAY,
                            Map.of(FloorProcess.CHECK_URI_PROPERTY, HttpTarget.strip(checkUrl)), token, logs);
                }
                if (hello) {
                    helloFloor = startFloor(floors, jar, FloorProcess.HELLO, Map.of(), token, logs);
                }
            }
            EdgeList graph = EdgeList.read(dataset); // meanwhile, the floors start
            for (FloorProcess floor : floors) {
                floor.awaitReady(floorStartup);
            }
            String secret = jwtSecret != null ? jwtSecret
                    : System.getenv().getOrDefault("GRAPH_JWT_SECRET", Loadgen.DEV_JWT_SECRET);
            System.out.printf("%s, %s: %,d edges; processes %s%n", ZonedDateTime.now(ZoneOffset.UTC), dataset,
                    graph.edgeCount(), processes);
            for (FloorProcess floor : floors) {
                System.out.printf("%s%n", floor);
            }
            targets.put(DIRECT, HttpTarget.direct(checkUrl, checkUrl, token, processes));
            if (!noGateway) {
                targets.put("gateway", HttpTarget.gateway(gatewayUrl, secret, graph, processes));
            }
            if (baselineUrl != null) {
                targets.put("baseline", HttpTarget.gateway(baselineUrl, secret, graph, processes));
            }
            if (directBaselineUrl != null) {
                targets.put("direct-baseline", HttpTarget.direct(directBaselineUrl, directBaselineUrl, token,
                        processes));
            }
            if (helloFloor != null) {
                targets.put("hello", HttpTarget.fixed("hello",
                        URI.create(helloFloor.baseUri() + FloorProcess.HELLO_PATH), token,
                        with(processes, helloFloor.serverProcess("hello"))));
            }
            if (bareFloor != null) {
                targets.put("bare", HttpTarget.named("bare", bareFloor.baseUri(),
                        with(processes, bareFloor.serverProcess("bare"))));
            }
            if (redisUri != null) {
                int most = connections.stream().mapToInt(Integer::intValue).max().orElse(1);
                targets.put("redis", RedisPeer.open(redisUri, most, graph));
            }
            if (client || clientInstances != null) {
                targets.put("client", ClientTarget.open(clientInstances != null
                        ? ClientTarget.parseInstances(clientInstances) : Map.of("check-0", checkUrl),
                        token, processes));
            }
            Workload.Source source = w.source(graph, seed);
            if (!initialWarmup.isZero()) {
                int most = connections.stream().mapToInt(Integer::intValue).max().orElse(1);
                for (Target t : targets.values()) {
                    new ClosedLoopRunner(most, initialWarmup, Duration.ofMillis(1)).run(t, source);
                }
            }
            List<String> names = new ArrayList<>(targets.keySet());
            for (int round = 1; round <= rounds; round++) {
                // Rotate the order every round, so no target always runs first (or right after another).
                List<String> order = new ArrayList<>(names);
                Collections.rotate(order, -((round - 1) % names.size()));
                for (int c : connections) {
                    ClosedLoopRunner closed = new ClosedLoopRunner(c, warmup, measure);
                    Map<String, ClosedLoopRunner.Result> closedResults = new HashMap<>();
                    for (String name : order) {
                        ClosedLoopRunner.Result r = closed.run(targets.get(name), source);
                        closedResults.put(name, r);
                        System.out.printf(Locale.ROOT, "round %d  c=%-3d %-8s closed  %8.0f/s  p50 %6.3f  p99 %6.3f  p99.9 %6.3f ms"
                                        + "  errors %d  CPU µs/answer %s  load %.2f%n", round, c, name,
                                r.throughput(), r.latencyMillis(50), r.latencyMillis(99), r.latencyMillis(99.9),
                                r.errors(),
                                cpuText(r), CpuTimes.loadAverage());
                    }
                    double rate = openShare * closedResults.values().stream()
                            .mapToDouble(ClosedLoopRunner.Result::throughput).min().orElseThrow();
                    OpenLoopRunner open = new OpenLoopRunner(c, warmup, measure, 0.9);
                    Map<String, StepResult> openResults = new HashMap<>();
                    for (String name : order) {
                        StepResult r = open.run(targets.get(name), w, source, Math.max(1, rate));
                        openResults.put(name, r);
                        System.out.printf(Locale.ROOT, "round %d  c=%-3d %-8s open    %8.0f/s  p50 %6.3f  p99 %6.3f  p99.9 %6.3f ms"
                                        + "  errors %d%s  load %.2f%n", round, c, name, r.achievedRate(),
                                r.latencyMillis(50), r.latencyMillis(99), r.latencyMillis(99.9), r.errors(),
                                r.saturated() ? "  saturated" : "", r.loadAverage());
                    }
                    double load = CpuTimes.loadAverage();
                    for (String name : names) {
                        if (!name.equals(DIRECT)) {
                            rows.add(new Row(round, c, name, closedResults.get(DIRECT), closedResults.get(name), rate,
                                    openResults.get(DIRECT), openResults.get(name), load));
                        }
                    }
                }
            }
        } finally {
            for (Target t : targets.values()) {
                t.close();
            }
            stopAll(floors);
            try {
                Runtime.getRuntime().removeShutdownHook(stopFloors);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook stops them (again), harmlessly
            }
        }
        System.out.println();
        System.out.print(summary(rows, connections));
        return 0;
    }

    /** Starts a floor and adds it to {@code floors}, which are stopped at the end whatever happens. */
    private static FloorProcess startFloor(List<FloorProcess> floors, Path jar, String floor,
                                           Map<String, String> properties, String token, Path logs) {
        FloorProcess started = FloorProcess.start(jar, floor, properties, token, logs);
        synchronized (floors) {
            floors.add(started);
        }
        return started;
    }

    /** Stops every floor in {@code floors}; each one's failure to stop does not keep the others running. */
    static void stopAll(List<FloorProcess> floors) {
        List<FloorProcess> copy;
        synchronized (floors) {
            copy = List.copyOf(floors);
        }
        for (FloorProcess floor : copy) {
            floor.close();
        }
    }

    /** {@code processes} and {@code one} more. */
    private static List<Target.ServerProcess> with(List<Target.ServerProcess> processes, Target.ServerProcess one) {
        List<Target.ServerProcess> all = new ArrayList<>(processes);
        all.add(one);
        return List.copyOf(all);
    }

    /**
     * The process whose CPU a path's summary row reports: the gateway for routes through it, each floor its own
     * process, else the server.
     */
    static String cpuProcess(String path) {
        return switch (path) {
            case "gateway" -> "gateway";
            case "bare" -> "bare";
            case "hello" -> "hello";
            case "redis" -> "redis";
            case "baseline" -> "baseline";
            case "direct-baseline" -> "direct-baseline";
            default -> "follow-check-service";
        };
    }

    private static String cpuText(ClosedLoopRunner.Result r) {
        if (r.serverCpu().isEmpty()) {
            return "-";
        }
        StringBuilder s = new StringBuilder();
        for (String name : r.serverCpu().keySet()) {
            s.append(s.isEmpty() ? "" : ", ").append(name).append(' ')
                    .append(String.format(Locale.ROOT, "%.0f", r.cpuMicrosPerOk(name)));
        }
        return s.toString();
    }

    /** One gateway in one round at one connection count, next to the direct runs of that round. */
    record Row(int round, int connections, String gateway, ClosedLoopRunner.Result directClosed,
               ClosedLoopRunner.Result gatewayClosed, double openRate, StepResult directOpen, StepResult gatewayOpen,
               double loadAverage) { }

    /**
     * The Markdown summary: per connection count, medians over rounds; the ratio and the added p50 are medians of
     * the per-round values, so one slow round of one target does not skew them.
     */
    static String summary(List<Row> rows, List<Integer> connections) {
        StringBuilder s = new StringBuilder();
        // "path" is the gateway, a baseline gateway or the backend client, each next to direct in the same round.
        s.append("| connections | path | direct req/s | path req/s | ratio | closed p50/p99 direct "
                + "| closed p50/p99 path | direct CPU µs/answer | path CPU µs/answer | open rate | open p50/p99 direct "
                + "| open p50/p99 path | added p50 | load avg |\n");
        s.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        List<String> gateways = rows.stream().map(Row::gateway).distinct().toList();
        for (int c : connections) {
            for (String g : gateways) {
                List<Row> at = rows.stream().filter(r -> r.connections() == c && r.gateway().equals(g)).toList();
                if (!at.isEmpty()) {
                    s.append(summaryLine(c, g, at));
                }
            }
        }
        return s.toString();
    }

    private static String summaryLine(int connections, String gateway, List<Row> at) {
        return String.format(Locale.ROOT,
                "| %d | %s | %,.0f | %,.0f | %.2fx | %.3f / %.3f ms | %.3f / %.3f ms | %,.0f | %,.0f | %,.0f/s "
                        + "| %.3f / %.3f ms | %.3f / %.3f ms | %+.3f ms | %.1f–%.1f |%n",
                connections, gateway,
                median(at, r -> r.directClosed().throughput()),
                median(at, r -> r.gatewayClosed().throughput()),
                median(at, r -> r.gatewayClosed().throughput() / r.directClosed().throughput()),
                median(at, r -> r.directClosed().latencyMillis(50)),
                median(at, r -> r.directClosed().latencyMillis(99)),
                median(at, r -> r.gatewayClosed().latencyMillis(50)),
                median(at, r -> r.gatewayClosed().latencyMillis(99)),
                median(at, r -> r.directClosed().cpuMicrosPerOk("follow-check-service")),
                median(at, r -> r.gatewayClosed().cpuMicrosPerOk(cpuProcess(gateway))),
                median(at, Row::openRate),
                median(at, r -> r.directOpen().latencyMillis(50)),
                median(at, r -> r.directOpen().latencyMillis(99)),
                median(at, r -> r.gatewayOpen().latencyMillis(50)),
                median(at, r -> r.gatewayOpen().latencyMillis(99)),
                median(at, r -> r.gatewayOpen().latencyMillis(50) - r.directOpen().latencyMillis(50)),
                at.stream().mapToDouble(Row::loadAverage).min().orElse(Double.NaN),
                at.stream().mapToDouble(Row::loadAverage).max().orElse(Double.NaN));
    }

    /** The median of {@code value} over {@code rows} (the mean of the middle two for an even count). */
    static double median(List<Row> rows, java.util.function.ToDoubleFunction<Row> value) {
        double[] v = rows.stream().mapToDouble(value).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
