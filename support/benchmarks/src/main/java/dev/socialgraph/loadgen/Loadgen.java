package dev.socialgraph.loadgen;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The benchmark command: measures the running fleet (directly, through the gateway, and through {@code graph-client}'s
 * shard-affine backend client) and its two peers (raw Redis
 * sets, a naive PostgreSQL table) on the same edges, workload by workload, at a geometric series of open-loop rates,
 * and writes {@code results.md}, {@code results.csv} and one PNG per workload. Benchmarks report numbers; nothing here
 * passes or fails on them.
 *
 * <p>Exit status: 0 after writing the report, 1 when the dataset cannot be read or a peer cannot be loaded, 2 on bad
 * options.
 */
@Command(name = "loadgen", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Open-loop benchmark of the running fleet and its peers (raw Redis, naive PostgreSQL).")
public final class Loadgen implements Callable<Integer> {

    /** The gateway's dev-only default secret (gateway application.yml), for a fleet started without one. */
    static final String DEV_JWT_SECRET = "dev-only-jwt-secret-change-me-0123456789abcdef";

    @Option(names = "--dataset", required = true, description = "edge list the fleet was imported from (gzip or plain)")
    Path dataset;

    @Option(names = "--fleet", defaultValue = ".graph",
            description = "the launcher's data directory: run/*.pid, run/ports.properties, jwt-secret, service-token (default: ${DEFAULT-VALUE})")
    Path fleetDir;

    @Option(names = "--pid-dir", description = "directory of <process>.pid files (default: <fleet>/run)")
    Path pidDir;

    @Option(names = "--gateway-url", description = "gateway (default: port 'gateway' of ports.properties, else http://127.0.0.1:8080)")
    URI gatewayUrl;

    @Option(names = "--check-url", description = "follow-check-service (default: ports.properties, else http://127.0.0.1:8081)")
    URI checkUrl;

    @Option(names = "--write-url", description = "follow-write-service (default: ports.properties, else http://127.0.0.1:8082)")
    URI writeUrl;

    @Option(names = "--client-instances", split = ",",
            description = "check instances for target 'client' as id=url, ids as the instances' graph.check.affinity.instance-id "
                    + "(default: check-0=<check-url>, plus check-1=<port of follow-check-service-2> when the fleet runs two)")
    List<String> clientInstances;

    @Option(names = "--service-token", description = "service credential targets 'fleet' and 'client' send (default: env GRAPH_SERVICE_TOKEN, else <fleet>/service-token, else none)")
    String serviceToken;

    @Option(names = "--jwt-secret", description = "gateway HS256 secret (default: env GRAPH_JWT_SECRET, else <fleet>/jwt-secret, else the dev default)")
    String jwtSecret;

    @Option(names = "--peer-redis", description = "Redis for peer (a), database index selects where the sets live (default: redis://127.0.0.1:<redis port>/15)")
    String peerRedis;

    @Option(names = "--peer-postgres", description = "JDBC URL of peer (b)'s database, created if missing (default: jdbc:postgresql://127.0.0.1:<postgres port>/graph_bench_naive?user=postgres)")
    String peerPostgres;

    @Option(names = "--targets", split = ",", defaultValue = "fleet,gateway,client,redis,postgres",
            description = "targets in run order: fleet, gateway, client, redis, postgres (default: ${DEFAULT-VALUE})")
    List<String> targets;

    @Option(names = "--workloads", split = ",", defaultValue = "check-existing,check-random,check-mixed,batch-check-100,hidden-100,following-page,followers-page,counts,writes,block-writes,linkbench-mix",
            description = "workloads in run order (default: all)")
    List<String> workloads;

    @Option(names = "--rates", split = ",", defaultValue = "500,1000,2000,4000,8000,16000",
            description = "offered rates, req/s, ascending; a target's series stops at its first saturated step (default: ${DEFAULT-VALUE})")
    List<Double> rates;

    @Option(names = "--warmup", defaultValue = "5s", converter = DurationConverter.class, description = "per step, not recorded (default: ${DEFAULT-VALUE})")
    Duration warmup;

    @Option(names = "--series-warmup", defaultValue = "15s", converter = DurationConverter.class,
            description = "extra warm-up before the first step of each workload on each target: JIT and caches of a "
                    + "freshly started service, connection pools (default: ${DEFAULT-VALUE})")
    Duration seriesWarmup;

    @Option(names = "--measure", defaultValue = "15s", converter = DurationConverter.class, description = "per step, recorded (default: ${DEFAULT-VALUE})")
    Duration measure;

    @Option(names = "--concurrency", defaultValue = "32", description = "operations in flight at most: HTTP connections, Redis connections, PostgreSQL connections (default: ${DEFAULT-VALUE})")
    int concurrency;

    @Option(names = "--saturation", defaultValue = "0.9", description = "a step is saturated below this share of its offered rate (default: ${DEFAULT-VALUE})")
    double saturation;

    @Option(names = "--seed", defaultValue = "1", description = "operation streams; the same for every target (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--commit", description = "commit measured (default: git rev-parse --short HEAD)")
    String commit;

    @Option(names = "--out", description = "result directory (default: benchmark-results/<date>-<commit>)")
    Path out;

    /** Runs the command; see the class comment for exit statuses. */
    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(new CommandLine(new Loadgen()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        List<Workload> selected = new ArrayList<>();
        for (String w : workloads) {
            selected.add(Workload.parse(w.trim()));
        }
        Fleet fleet = Fleet.read(fleetDir, pidDir != null ? pidDir : fleetDir.resolve("run"));
        String commitId = commit != null ? commit : gitCommit();
        Path outDir = out != null ? out : Path.of("benchmark-results",
                LocalDate.now(ZoneOffset.UTC) + "-" + commitId);

        System.out.printf("reading %s%n", dataset);
        EdgeList graph = EdgeList.read(dataset);
        System.out.printf("%,d edges, %,d users%n", graph.edgeCount(), graph.userCount());

        List<Target> opened = new ArrayList<>();
        try {
            for (String t : targets) {
                opened.add(open(t.trim(), fleet, graph));
            }
            OpenLoopRunner runner = new OpenLoopRunner(concurrency, warmup, measure, saturation);
            OpenLoopRunner firstStep = new OpenLoopRunner(concurrency, warmup.plus(seriesWarmup), measure, saturation);
            List<StepResult> results = new ArrayList<>();
            for (Workload w : selected) {
                for (Target target : opened) {
                    if (!w.kinds().stream().allMatch(target::supports)) {
                        continue;
                    }
                    boolean first = true;
                    for (double rate : rates.stream().sorted().toList()) {
                        StepResult r = (first ? firstStep : runner).run(target, w, w.source(graph, seed), rate);
                        first = false;
                        results.add(r);
                        System.out.printf(Locale.ROOT, "%-16s %-9s %7.0f/s → %8.1f/s  p50 %7.2f  p99 %8.2f  p99.9 %8.2f ms"
                                        + "  errors %d  cores %.2f%s%n", w.label(), target.name(), rate,
                                r.achievedRate(), r.latencyMillis(50), r.latencyMillis(99), r.latencyMillis(99.9),
                                r.errors(), r.serverCores(), r.saturated() ? "  saturated" : "");
                        if (r.saturated()) {
                            break;
                        }
                        Thread.sleep(1000); // let queues and connection pools settle between steps
                    }
                }
            }
            Report report = new Report(results, header(graph, fleet, commitId));
            report.write(outDir);
            System.out.printf("report: %s%n", outDir.resolve("results.md"));
            return 0;
        } finally {
            for (Target t : opened) {
                t.close();
            }
        }
    }

    private Target open(String name, Fleet fleet, EdgeList graph) throws Exception {
        return switch (name) {
            case "fleet" -> HttpTarget.direct(
                    checkUrl != null ? checkUrl : local(fleet.port("follow-check-service", 8081)),
                    writeUrl != null ? writeUrl : local(fleet.port("follow-write-service", 8082)),
                    serviceToken(serviceToken, fleet), fleet.processes());
            case "gateway" -> HttpTarget.gateway(
                    gatewayUrl != null ? gatewayUrl : local(fleet.port("gateway", 8080)),
                    secret(fleet), graph, fleet.processes());
            case "client" -> {
                URI check = checkUrl != null ? checkUrl : local(fleet.port("follow-check-service", 8081));
                yield ClientTarget.open(clientInstances != null ? ClientTarget.parseInstances(clientInstances)
                        : ClientTarget.fleetInstances(fleet, check), serviceToken(serviceToken, fleet), fleet.processes());
            }
            case "redis" -> {
                String uri = peerRedis != null ? peerRedis
                        : "redis://127.0.0.1:" + fleet.port("redis", 16379) + "/15";
                System.out.printf("loading peer (a) %s%n", uri);
                yield RedisPeer.open(uri, concurrency, graph);
            }
            case "postgres" -> {
                String url = peerPostgres != null ? peerPostgres
                        : "jdbc:postgresql://127.0.0.1:" + fleet.port("postgres", 15432)
                        + "/graph_bench_naive?user=postgres";
                System.out.printf("loading peer (b) %s%n", url);
                yield PostgresPeer.open(url, concurrency, graph);
            }
            default -> throw new CommandLine.ParameterException(new CommandLine(this),
                    "unknown target '" + name + "'; known: fleet, gateway, client, redis, postgres");
        };
    }

    static URI local(int port) {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** The service token given, else {@code GRAPH_SERVICE_TOKEN}, else {@code null} (none is sent). */
    static String serviceToken(String given) {
        if (given != null) {
            return given;
        }
        String env = System.getenv("GRAPH_SERVICE_TOKEN");
        return env == null || env.isBlank() ? null : env.trim();
    }

    /** {@link #serviceToken(String)}, else the fleet's {@code service-token} file, else {@code null}. */
    static String serviceToken(String given, Fleet fleet) {
        String token = serviceToken(given);
        return token != null ? token : fleet.serviceToken().orElse(null);
    }

    private String secret(Fleet fleet) {
        return jwtSecret(jwtSecret, fleet);
    }

    /** The JWT secret given, else {@code GRAPH_JWT_SECRET}, else the fleet's {@code jwt-secret} file, else the dev default. */
    static String jwtSecret(String given, Fleet fleet) {
        if (given != null) {
            return given;
        }
        String env = System.getenv("GRAPH_JWT_SECRET");
        if (env != null && !env.isBlank()) {
            return env;
        }
        return fleet.jwtSecret().orElse(DEV_JWT_SECRET);
    }

    private Map<String, String> header(EdgeList graph, Fleet fleet, String commitId) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("date", ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        h.put("commit", commitId);
        h.put("machine", Machine.describe());
        h.put("load generator JDK", Runtime.version() + " (" + System.getProperty("java.vm.vendor") + ")");
        h.put("dataset", dataset.getFileName() + ": " + String.format(Locale.ROOT, "%,d", graph.edgeCount())
                + " edges, " + String.format(Locale.ROOT, "%,d", graph.userCount()) + " users");
        h.put("settings", "rates " + rates + " req/s, warm-up " + warmup.toSeconds() + " s (+ "
                + seriesWarmup.toSeconds() + " s before a series' first step), measure "
                + measure.toSeconds() + " s per step, " + concurrency + " operations in flight at most, saturation below "
                + (int) Math.round(saturation * 100) + " % of offered, seed " + seed);
        StringBuilder pids = new StringBuilder();
        for (Target.ServerProcess p : fleet.processes()) {
            pids.append(pids.isEmpty() ? "" : ", ").append(p.name()).append(' ').append(p.pid());
        }
        h.put("fleet processes (CPU counted for fleet, gateway and client)", pids.isEmpty() ? "none found" : pids.toString());
        java.util.TreeSet<String> executables = new java.util.TreeSet<>();
        for (Target.ServerProcess p : fleet.processes()) {
            try {
                executables.add(Files.readSymbolicLink(Path.of("/proc", Long.toString(p.pid()), "exe")).toString());
            } catch (IOException | UnsupportedOperationException | SecurityException e) {
                // not Linux, or the process is gone: nothing to record
            }
        }
        h.put("fleet executables (JDK of the services)", executables.isEmpty() ? "unknown" : String.join(", ", executables));
        h.put("CPU method", CpuTimes.available()
                ? "/proc/<pid>/stat utime+stime (+ reaped and unmeasured living children, e.g. PostgreSQL backends); "
                + "redis peer: its server process; postgres peer: its database's client backends"
                : "not available on this OS");
        return h;
    }

    private static String gitCommit() {
        try {
            Process p = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            return p.waitFor() == 0 && out.matches("[0-9a-f]+") ? out : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /** Accepts {@code 500ms}, {@code 15s}, {@code 2m} or ISO-8601 ({@code PT15S}). */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String v = value.trim().toLowerCase(Locale.ROOT);
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1000));
            }
            if (v.endsWith("m") && !v.startsWith("p")) {
                return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            return Duration.parse(value.trim());
        }
    }
}
