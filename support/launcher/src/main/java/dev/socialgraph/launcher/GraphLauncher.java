package dev.socialgraph.launcher;

import dev.socialgraph.common.edges.EdgeListFormatException;
import dev.socialgraph.common.edges.EdgeListParser;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.localruntime.KraftBroker;
import dev.socialgraph.localruntime.RedisCluster;
import dev.socialgraph.tools.GraphTool;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine;

/**
 * {@code ./graph}: the whole fleet on one machine with only a JDK. Commands: {@code up} (start everything,
 * importing a graph on first start), {@code down}, {@code status}, {@code token USER_ID}, {@code import FILE} and
 * {@code shards move|show} ({@link Shards}).
 * Exit codes: 0 done, 1 failure (the message says why), 2 usage.
 */
@Command(name = "graph", mixinStandardHelpOptions = true,
        subcommands = {GraphLauncher.Up.class, GraphLauncher.Down.class, GraphLauncher.Status.class,
                GraphLauncher.Token.class, GraphLauncher.Import.class, Shards.class, GraphLauncher.Broker.class},
        description = "Runs the social graph fleet locally: embedded PostgreSQL and Redis, a local Kafka "
                + "broker and the five services.")
public final class GraphLauncher {

    /** Default celebrity threshold and page size of a local fleet: low, so that real graphs exercise the pages. */
    static final long LOCAL_CELEBRITY_THRESHOLD = 2000;
    static final int LOCAL_PAGE_SIZE = 1000;

    /** The R-MAT graph generated when no dataset file is available (see {@link Datasets}). */
    static final long GENERATED_USERS = 100_000;
    static final int GENERATED_EDGES = 1_000_000;

    @Option(names = "--home", defaultValue = ".", description = "the repository (modules' target/ directories; default: the current directory)")
    Path home;

    @Option(names = "--data-dir", description = "the fleet's data directory (default: <home>/.graph)")
    Path dataDir;

    /** Runs a command; see {@code --help}. */
    public static void main(String[] args) {
        // The tools jar on this classpath brings its own logback.xml; name ours, or Logback finds two and prints its
        // whole configuration status on every command.
        System.setProperty("logback.configurationFile", "launcher-logback.xml");
        System.exit(new CommandLine(new GraphLauncher()).execute(args));
    }

    FleetDir fleetDir() {
        return new FleetDir((dataDir != null ? dataDir : home.resolve(".graph")).toAbsolutePath().normalize());
    }

    Path homeDir() {
        return home.toAbsolutePath().normalize();
    }

    // ------------------------------------------------------------------------------------------------ up

    @Command(name = "up", mixinStandardHelpOptions = true,
            description = "Start the fleet and wait; Ctrl-C or './graph down' stops it. The first start imports a graph.")
    static final class Up implements Callable<Integer> {
        @ParentCommand
        GraphLauncher root;

        @Option(names = "--dataset", paramLabel = "FILE|none",
                description = "graph imported on first start: an edge list file, or 'none' (default: "
                        + "../shared/datasets/ego-twitter.txt.gz when present, else a generated R-MAT graph)")
        String dataset;

        @Option(names = "--celebrity-threshold", description = "followers at or above which a user's followers go to "
                + "celebrity pages (default: " + LOCAL_CELEBRITY_THRESHOLD + ", low to exercise the pages)")
        Long celebrityThreshold;

        @Option(names = "--page-size", description = "followers per celebrity page (default: " + LOCAL_PAGE_SIZE + ")")
        Integer pageSize;

        @Option(names = "--port-offset", defaultValue = "0",
                description = "added to every port (gateway 8080, services 8081-8085, with more instances check "
                        + "8086-8091, write 8092-8094, cdc-consumer 8095-8097, PostgreSQL 15432 and with "
                        + "--postgres-servers 15433-15435, Redis 16379 or with --redis-cluster 16380-16385 and their "
                        + "cluster buses 26380-26385, Kafka 19092/19093; default: ${DEFAULT-VALUE})")
        int portOffset;

        @Option(names = "--redis-cluster", negatable = true,
                description = "run a local Redis Cluster of six redis-server processes (3 masters + 3 replicas, "
                        + "needs redis-cli) instead of one Redis; the data directory remembers the choice "
                        + "(--no-redis-cluster goes back)")
        Boolean redisCluster;

        @Option(names = "--postgres-servers", paramLabel = "N",
                description = "run N embedded PostgreSQL servers, 1-4, and spread the four shard databases over them "
                        + "(default: 1, or what the data directory was started with; fixed once a graph is stored)")
        Integer postgresServers;

        @Option(names = "--check-instances", paramLabel = "N",
                description = "follow-check-service instances, 1-8, each owning the logical shards rendezvous hashing "
                        + "gives it (default: 1, or what the data directory was last started with)")
        Integer checkInstances;

        @Option(names = "--write-instances", paramLabel = "N",
                description = "follow-write-service instances, 1-4, the gateway's writes round robin over them "
                        + "(default: 1, or what the data directory was last started with)")
        Integer writeInstances;

        @Option(names = "--cdc-instances", paramLabel = "N",
                description = "cdc-consumer instances, 1-4, one consumer group (default: 1, or what the data "
                        + "directory was last started with)")
        Integer cdcInstances;

        @Option(names = "--postgres", paramLabel = "HOST:PORT", defaultValue = "${env:GRAPH_POSTGRES}",
                description = "use this PostgreSQL server (user and password from GRAPH_SHARDS_USERNAME / "
                        + "GRAPH_SHARDS_PASSWORD) instead of an embedded one; env GRAPH_POSTGRES")
        String postgres;

        @Option(names = "--redis", paramLabel = "HOST:PORT", defaultValue = "${env:GRAPH_REDIS}",
                description = "use this Redis instead of an embedded one; env GRAPH_REDIS")
        String redis;

        @Option(names = "--kafka", paramLabel = "BOOTSTRAP", defaultValue = "${env:GRAPH_KAFKA}",
                description = "use these Kafka bootstrap servers instead of the local broker (a process of its own); env GRAPH_KAFKA")
        String kafka;

        @Option(names = "--detach", description = "start in the background, return when ready (logs/launcher.log)")
        boolean detach;

        @Option(names = "--startup-timeout", defaultValue = "600", description = "seconds to wait for readiness (default: ${DEFAULT-VALUE})")
        int startupTimeout;

        @Override
        public Integer call() throws Exception {
            FleetDir dir = root.fleetDir();
            Optional<ProcessHandle> running = dir.runningLauncher();
            if (running.isPresent()) {
                System.err.println("The fleet in " + dir.root() + " is already running (launcher pid "
                        + running.get().pid() + "); './graph down' stops it.");
                return 1;
            }
            Stores.Layout layout;
            Instances instances;
            try {
                layout = layout(dir);
                instances = instances(dir);
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                return 2;
            }
            PortPlan ports = new PortPlan(portOffset);
            List<String> needed = new ArrayList<>(instances.serviceNames());
            if (postgres == null) {
                for (int i = 0; i < layout.postgresServers(); i++) {
                    needed.add(PortPlan.postgres(i));
                }
            }
            if (redis == null && layout.redisCluster()) {
                needed.addAll(PortPlan.redisCluster());
            } else if (redis == null) {
                needed.add(PortPlan.REDIS);
            }
            if (kafka == null) {
                needed.addAll(List.of(PortPlan.KAFKA, PortPlan.KAFKA_CONTROLLER));
            }
            List<String> taken;
            try {
                taken = ports.taken(needed);
            } catch (IllegalArgumentException e) { // an offset that moves a port past 65535
                System.err.println(e.getMessage());
                return 2;
            }
            if (!taken.isEmpty()) {
                System.err.println("These ports are in use: " + String.join(", ", taken)
                        + ". Stop what uses them or choose other ports with --port-offset N.");
                return 1;
            }
            dir.create();
            if (detach) {
                return detach(dir);
            }
            return new Fleet(root.homeDir(), dir, ports, layout, instances, this).run();
        }

        /**
         * The service instances of this start: each count given, else what the data directory recorded, else 1.
         *
         * @throws IllegalArgumentException when a count is out of range (the message names the option)
         */
        Instances instances(FleetDir dir) throws IOException {
            Instances before = dir.instances().orElse(Instances.STANDARD);
            return new Instances(checkInstances != null ? checkInstances : before.check(),
                    writeInstances != null ? writeInstances : before.write(),
                    cdcInstances != null ? cdcInstances : before.cdc());
        }

        /**
         * The stores' layout of this start: the options given, else what the data directory recorded, else one
         * PostgreSQL server and one Redis.
         *
         * @throws IllegalArgumentException when the options contradict each other or the stored data
         */
        Stores.Layout layout(FleetDir dir) throws IOException {
            Optional<Stores.Layout> recorded = dir.layout();
            // A data directory that holds a graph but no record was started before the record existed: one server.
            Stores.Layout before = recorded.orElse(Stores.Layout.STANDARD);
            boolean hasData = Files.exists(dir.imported());
            int servers = postgresServers != null ? postgresServers : before.postgresServers();
            if (postgres != null && postgresServers != null && postgresServers > 1) {
                throw new IllegalArgumentException("--postgres-servers starts embedded servers; it cannot be combined "
                        + "with --postgres");
            }
            if (postgres != null) {
                servers = 1;
            } else if (hasData && servers != before.postgresServers()) {
                throw new IllegalArgumentException("The data directory " + dir.root() + " keeps its shard databases on "
                        + before.postgresServers() + " PostgreSQL server(s); --postgres-servers " + servers
                        + " needs a fresh one (--data-dir or GRAPH_DATA_DIR).");
            }
            if (Boolean.TRUE.equals(redisCluster) && redis != null) {
                throw new IllegalArgumentException("--redis-cluster starts a local Redis Cluster; it cannot be "
                        + "combined with --redis");
            }
            boolean cluster = redis == null && (redisCluster != null ? redisCluster : before.redisCluster());
            return new Stores.Layout(servers, cluster);
        }

        /** Starts this command again without {@code --detach} as a background process and waits for it. */
        private int detach(FleetDir dir) throws IOException, InterruptedException {
            List<String> command = new ArrayList<>();
            if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
                command.add("/usr/bin/setsid"); // its own session: a Ctrl-C in this terminal does not reach it
            }
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(ProcessHandle.current().info().arguments().map(Arrays::asList).orElseThrow()
                    .stream().filter(a -> !a.equals("--detach")).toList());
            Path log = dir.log("launcher");
            Files.deleteIfExists(dir.ready());
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(startupTimeout + 120L);
            System.out.println("Starting the fleet in the background (log: " + log + ") ...");
            while (System.nanoTime() < deadline) {
                if (Files.exists(dir.ready())) {
                    System.out.print(Files.readString(dir.run().resolve("banner.txt")));
                    return 0;
                }
                if (!p.isAlive()) {
                    System.err.println("The launcher exited with code " + p.exitValue() + "; see " + log + ":");
                    List<String> lines = Files.readAllLines(log);
                    lines.subList(Math.max(0, lines.size() - 30), lines.size()).forEach(System.err::println);
                    return 1;
                }
                Thread.sleep(250);
            }
            System.err.println("The fleet was not ready in time; see " + log + " and " + dir.logs());
            return 1;
        }
    }

    /** One foreground run of the fleet: stores, first import, services, then wait for a stop signal. */
    static final class Fleet {
        private final Path home;
        private final FleetDir dir;
        private final PortPlan ports;
        private final Stores.Layout layout;
        private final Instances instances;
        private final Up options;
        private final CountDownLatch stopped = new CountDownLatch(1);
        private volatile boolean stopping;
        private Stores stores;
        private ServiceFleet services;
        private ScheduledExecutorService supervision;
        private Supervisor supervisor;

        Fleet(Path home, FleetDir dir, PortPlan ports, Stores.Layout layout, Instances instances, Up options) {
            this.home = home;
            this.dir = dir;
            this.ports = ports;
            this.layout = layout;
            this.instances = instances;
            this.options = options;
        }

        int run() throws Exception {
            long start = System.nanoTime();
            dir.clearRun();
            dir.writePid("launcher", ProcessHandle.current().pid());
            Thread hook = new Thread(this::shutDown, "graph-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                Map<String, String> env = System.getenv();
                Secrets secrets = Secrets.load(dir.root(), env);
                Map<String, Long> pids = new LinkedHashMap<>();
                stores = Stores.start(dir, ports, new Stores.External(options.postgres, options.redis, options.kafka),
                        layout, instances.shardClients(), env, pids);
                dir.writeLayout(layout, instances);
                for (var e : pids.entrySet()) {
                    dir.writePid(e.getKey(), e.getValue());
                }
                Stores.Endpoints endpoints = stores.endpoints();
                Properties imported = firstImport(endpoints);
                long threshold = Long.parseLong(imported.getProperty("celebrity-threshold"));
                int pageSize = Integer.parseInt(imported.getProperty("page-size"));

                services = new ServiceFleet(home, dir, secrets.environment(), javaOptions(env));
                List<ServiceFleet.Spec> specs = Specs.of(ports, endpoints, dir, threshold, pageSize, instances);
                // The first write instance creates and migrates the shard databases before anything else connects.
                services.start(specs.subList(0, 1));
                Duration timeout = Duration.ofSeconds(options.startupTimeout);
                services.awaitReady(timeout);
                services.start(specs.subList(1, specs.size()));
                services.awaitReady(timeout);

                Properties portFile = new Properties();
                for (ServiceFleet.Spec s : specs) {
                    portFile.setProperty(s.name(), Integer.toString(s.port()));
                    portFile.setProperty(s.name() + PortPlan.MANAGEMENT_SUFFIX, Integer.toString(s.managementPort()));
                }
                endpoints.write(portFile);
                List<String> storeNames = new ArrayList<>();
                for (SupervisedStore store : stores.supervised()) {
                    portFile.setProperty(store.spec().name(), Integer.toString(store.spec().port()));
                    storeNames.add(store.spec().name());
                }
                portFile.setProperty(SUPERVISED_STORES, String.join(",", storeNames));
                dir.writePorts(portFile);
                supervise();
                double seconds = (System.nanoTime() - start) / 1e9;
                String banner = Banner.text(ports, instances, endpoints, secrets, imported, seconds, dir);
                Files.writeString(dir.run().resolve("banner.txt"), banner);
                Files.writeString(dir.ready(), "http://127.0.0.1:" + ports.port(PortPlan.GATEWAY) + "\n");
                System.out.print(banner);
                System.out.flush();
                stopped.await(); // until Ctrl-C or './graph down'; the supervisor restarts services that exit meanwhile
                return 0;
            } catch (Exception e) {
                System.err.println("The fleet could not start: " + e.getMessage());
                if (!stopping) {
                    shutDown();
                    Runtime.getRuntime().removeShutdownHook(hook);
                }
                return 1;
            }
        }

        /**
         * Restarts services and embedded stores (each PostgreSQL server, Redis process or cluster node, the local Kafka
         * broker) whose process exits from now on, publishing their states to {@code run/}.
         */
        private void supervise() {
            ClassLoader loader = GraphLauncher.class.getClassLoader();
            supervision = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "graph-supervisor");
                t.setDaemon(true);
                // The first task is scheduled from the JDK's process-reaper thread (an exit), whose context class
                // loader cannot see the classes nested in the launcher's jar; readiness probes need them.
                t.setContextClassLoader(loader);
                return t;
            });
            Map<String, SupervisedStore> storesByName = new LinkedHashMap<>();
            stores.supervised().forEach(store -> storesByName.put(store.spec().name(), store));
            Supervisor.Services parts = new Supervisor.Services() {
                @Override
                public Supervisor.Child start(ServiceFleet.Spec spec) throws IOException {
                    SupervisedStore store = storesByName.get(spec.name());
                    if (store == null) {
                        return services.start(spec);
                    }
                    Supervisor.Child child = store.restart();
                    dir.writePid(spec.name(), child.pid()); // run/<name>.pid always holds the current process
                    return child;
                }

                @Override
                public boolean ready(ServiceFleet.Spec spec) {
                    SupervisedStore store = storesByName.get(spec.name());
                    return store != null ? store.ready() : services.ready(spec);
                }
            };
            supervisor = new Supervisor(parts,
                    (task, delay) -> supervision.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS),
                    Clock.systemUTC(), RestartPolicy::standard, this::publish);
            for (SupervisedStore store : storesByName.values()) {
                supervisor.watch(store.spec(), store.child());
            }
            for (ServiceFleet.Running r : services.running()) {
                supervisor.watch(r.spec(), Supervisor.Child.of(r.process()));
            }
        }

        private void publish(List<Supervisor.ServiceState> states) {
            Properties p = new Properties();
            states.forEach(s -> s.write(p));
            try {
                dir.writeServices(p);
            } catch (IOException e) {
                System.err.println("could not write the services' states to " + dir.run() + ": " + e.getMessage());
            }
        }

        private synchronized void shutDown() {
            if (stopping) {
                return;
            }
            stopping = true;
            System.out.println("Stopping the fleet ...");
            // Supervision ends first: a service that exits from here on is meant to stop, not to be restarted.
            if (supervisor != null) {
                supervisor.stop();
            }
            if (supervision != null) {
                supervision.shutdownNow();
            }
            if (services != null) {
                services.close();
            }
            if (stores != null) {
                stores.close();
            }
            try {
                dir.clearRun();
            } catch (IOException e) {
                System.err.println("could not clear " + dir.run() + ": " + e.getMessage());
            }
            System.out.println("Fleet stopped.");
            stopped.countDown();
        }

        private Properties firstImport(Stores.Endpoints endpoints) throws IOException {
            Properties imported = FleetDir.readProperties(dir.imported());
            if (!imported.isEmpty()) {
                if (options.dataset != null) {
                    System.out.println("The data directory already holds " + imported.getProperty("dataset")
                            + "; --dataset is used on a first start only ('./graph import FILE' replaces the graph).");
                }
                return imported;
            }
            long threshold = options.celebrityThreshold != null ? options.celebrityThreshold : LOCAL_CELEBRITY_THRESHOLD;
            int pageSize = options.pageSize != null ? options.pageSize : LOCAL_PAGE_SIZE;
            Optional<Path> file = Datasets.resolve(options.dataset, home, dir);
            imported.setProperty("celebrity-threshold", Long.toString(threshold));
            imported.setProperty("page-size", Integer.toString(pageSize));
            if (file.isEmpty()) {
                imported.setProperty("dataset", "none");
                imported.setProperty("imported-at", Instant.now().toString());
            } else {
                Path f = file.get();
                System.out.println("Importing " + f + " ...");
                int code = Importer.run(f, endpoints, dir, threshold, pageSize);
                if (code != 0) {
                    throw new IllegalStateException("the import of " + f + " failed (exit " + code + ")");
                }
                Datasets.record(imported, f);
            }
            FleetDir.writeProperties(dir.imported(), imported, "what the first start imported");
            return imported;
        }

        private static List<String> javaOptions(Map<String, String> env) {
            String opts = env.getOrDefault("GRAPH_JAVA_OPTS", "").strip();
            return opts.isEmpty() ? List.of() : List.of(opts.split("\\s+"));
        }
    }

    /** Runs the bulk importer ({@code tools}) in this JVM against the fleet's stores. */
    static final class Importer {
        /**
         * Imports {@code file} unless shards were moved ({@link Shards#importRefusal}: the importer writes the
         * configured map, the services read the directory's newest).
         *
         * @return the importer's exit code; 1, with the reason on stderr, when refused or the directory is unreadable
         */
        static int run(Path file, Stores.Endpoints endpoints, FleetDir dir, long threshold, int pageSize) {
            Optional<String> refusal;
            try {
                refusal = Shards.importRefusal(Shards.configuredMap(endpoints), Shards.latest(endpoints));
            } catch (java.sql.SQLException e) {
                System.err.println("The shard directory " + endpoints.directoryUrl() + " cannot be read, so the import "
                        + "cannot tell whether shards were moved: " + e.getMessage());
                return 1;
            }
            if (refusal.isPresent()) {
                System.err.println(refusal.get());
                return 1;
            }
            List<String> args = new ArrayList<>(List.of("import", file.toString(),
                    "--postgres-host", endpoints.postgresHost(),
                    "--postgres-port", Integer.toString(endpoints.postgresPort()),
                    "--postgres-user", endpoints.postgresUser(),
                    "--postgres-password", endpoints.postgresPassword(),
                    "--celebrity-threshold", Long.toString(threshold),
                    "--page-size", Integer.toString(pageSize),
                    "--snapshot-dir", dir.bloom().toString(),
                    "--kafka-bootstrap", endpoints.kafkaBootstrap()));
            endpoints.databaseServers().forEach((database, server) ->
                    args.addAll(List.of("--database-server", database + "=" + server)));
            if (System.console() == null) {
                args.add("--no-progress");
            }
            return new CommandLine(new GraphTool()).execute(args.toArray(String[]::new));
        }
    }

    // ------------------------------------------------------------------------------------------------ down

    @Command(name = "down", mixinStandardHelpOptions = true, description = "Stop a running fleet and wait until it stopped.")
    static final class Down implements Callable<Integer> {
        @ParentCommand
        GraphLauncher root;

        @Override
        public Integer call() throws InterruptedException {
            FleetDir dir = root.fleetDir();
            Optional<ProcessHandle> launcher = dir.runningLauncher();
            if (launcher.isEmpty()) {
                System.out.println("No fleet is running in " + dir.root() + ".");
                return 0;
            }
            ProcessHandle p = launcher.get();
            System.out.println("Stopping the fleet (launcher pid " + p.pid() + ") ...");
            p.destroy();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            if (p.isAlive()) {
                System.err.println("The launcher (pid " + p.pid() + ") did not stop within 180 s; see "
                        + dir.log("launcher"));
                return 1;
            }
            System.out.println("Stopped.");
            return 0;
        }
    }

    // ------------------------------------------------------------------------------------------------ status

    /**
     * The key of {@code run/ports.properties} listing the supervised stores' names in start order (each also a key
     * with its port): {@code postgres[,postgres-1...],redis|redis-node-0...,kafka}.
     */
    static final String SUPERVISED_STORES = "supervised.stores";

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = "Show whether the fleet runs and, per service, its state (starting, ready, restarting, "
                    + "crashed), pid, restarts, readiness and last exit. Exit code 3 when no fleet runs.")
    static final class Status implements Callable<Integer> {
        @ParentCommand
        GraphLauncher root;

        /** The column heads of {@link #row}. */
        static final String HEADER = String.format("%-24s %5s  %-10s %8s %8s  %-14s %s", "service", "port", "state",
                "pid", "restarts", "readiness", "last exit");

        @Override
        public Integer call() throws IOException {
            FleetDir dir = root.fleetDir();
            Optional<ProcessHandle> launcher = dir.runningLauncher();
            if (launcher.isEmpty()) {
                System.out.println("not running (" + dir.root() + ")");
                return 3;
            }
            Properties ports = dir.ports();
            Properties services = dir.services();
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
            List<String> names = new ArrayList<>(PortPlan.services());
            String storeNames = ports.getProperty(SUPERVISED_STORES);
            names.addAll(storeNames != null ? List.of(storeNames.split(",")) : List.of(LocalBroker.NAME));
            List<String> rows = new ArrayList<>();
            List<String> notReady = new ArrayList<>();
            for (String name : names) {
                String port = ports.getProperty(name);
                if (port == null || name.isBlank()) {
                    continue;
                }
                Optional<Supervisor.ServiceState> state = Supervisor.ServiceState.read(services, name);
                boolean alive = state.flatMap(s -> ProcessHandle.of(s.pid())).map(ProcessHandle::isAlive).orElse(false)
                        && !state.map(s -> ProcessWatch.zombie(s.pid())).orElse(false);
                String readiness = readiness(http, ports, name, port);
                rows.add(row(name, port, state, alive, readiness));
                boolean ready = state.map(s -> s.seen(alive)).orElse(null) == Supervisor.State.READY
                        && ServiceFleet.UP.equals(readiness);
                if (!ready) {
                    notReady.add(name);
                }
            }
            System.out.println("launcher pid " + launcher.get().pid() + ", "
                    + fleetState(Files.exists(dir.ready()), notReady));
            System.out.println(HEADER);
            rows.forEach(System.out::println);
            if (ports.getProperty("kafka.bootstrap") != null) { // written once the fleet is ready
                System.out.println(stores(ports));
            }
            return 0;
        }

        /**
         * The fleet's state on status' first line: {@code starting} until {@code up} finished, then {@code ready} only
         * while every service and every supervised store is ready and answers its probe, else {@code degraded}
         * naming those that are not.
         *
         * @param started  whether {@code up} finished ({@code run/ready} exists)
         * @param notReady the services and stores that are not ready now
         */
        static String fleetState(boolean started, List<String> notReady) {
            if (!started) {
                return "starting";
            }
            return notReady.isEmpty() ? "ready" : "degraded (not ready: " + String.join(", ", notReady) + ")";
        }

        /**
         * How long status waits for the broker's metadata: its Kafka client starts cold inside the wait (class loading,
         * connection), which takes seconds on a machine the fleet keeps busy.
         */
        private static final Duration STATUS_KAFKA_PROBE = Duration.ofSeconds(6);

        /** What a part's readiness probe answers now: a service's actuator, a store's client. */
        private static String readiness(HttpClient http, Properties ports, String name, String port) {
            int p = Integer.parseInt(port);
            boolean up;
            if (name.equals(LocalBroker.NAME)) {
                up = LocalBroker.ready("127.0.0.1:" + port, STATUS_KAFKA_PROBE);
            } else if (name.startsWith(PortPlan.POSTGRES)) {
                up = LocalPostgres.ready("127.0.0.1", p);
            } else if (name.startsWith(PortPlan.REDIS)) {
                up = LocalRedis.ready("127.0.0.1", p);
            } else {
                return ServiceFleet.readiness(http, Integer.parseInt(ports.getProperty(name + PortPlan.MANAGEMENT_SUFFIX,
                        port)));
            }
            return up ? ServiceFleet.UP : "not answering";
        }

        /**
         * Where the stores are, one line each; a Redis Cluster with its state as one of its nodes reports it.
         *
         * @param ports the fleet's {@code run/ports.properties}
         */
        static String stores(Properties ports) {
            StringBuilder sb = new StringBuilder();
            String servers = ports.getProperty("postgres.servers",
                    ports.getProperty("postgres.host") + ":" + ports.getProperty(PortPlan.POSTGRES));
            sb.append("stores: postgres ").append(servers.replace(",", " ")).append('\n');
            String cluster = ports.getProperty("redis.cluster");
            if (cluster != null) {
                sb.append("        redis cluster ").append(cluster.replace(",", " ")).append('\n');
                sb.append("              ").append(RedisCluster.describe(List.of(cluster.split(",")))).append('\n');
            } else {
                sb.append("        redis ").append(ports.getProperty("redis.host")).append(':')
                        .append(ports.getProperty(PortPlan.REDIS)).append('\n');
            }
            sb.append("        kafka ").append(ports.getProperty("kafka.bootstrap"));
            return sb.toString();
        }

        /**
         * One service's line: name, port, state, pid, restarts, readiness, last exit (code and time; for a service
         * waiting to be restarted, also when).
         *
         * @param state     the supervisor's record, empty before supervision started
         * @param alive     whether the recorded pid is a live process (a dead one shows as {@code crashed})
         * @param readiness what the readiness probe answered just now
         */
        static String row(String name, String port, Optional<Supervisor.ServiceState> state, boolean alive,
                          String readiness) {
            String stateText = state.map(s -> s.seen(alive).label()).orElse("-");
            String pid = state.map(s -> Long.toString(s.pid())).orElse("-");
            String restarts = state.map(s -> Integer.toString(s.restarts())).orElse("-");
            String lastExit = state.filter(s -> s.lastExitCode() != null)
                    .map(s -> (s.lastExitCode() == ProcessWatch.UNKNOWN_EXIT ? "exited" : s.lastExitCode()) + " at " + s.lastExitAt().truncatedTo(ChronoUnit.SECONDS)
                            + (s.restartAt() != null ? ", starts again at " + s.restartAt().truncatedTo(ChronoUnit.SECONDS) : ""))
                    .orElse("-");
            return String.format("%-24s %5s  %-10s %8s %8s  %-14s %s", name, port, stateText, pid, restarts, readiness,
                    lastExit);
        }
    }

    // ------------------------------------------------------------------------------------------------ token

    @Command(name = "token", mixinStandardHelpOptions = true,
            description = "Print a dev bearer token for USER_ID (HS256 with GRAPH_JWT_SECRET, else the data directory's jwt-secret).")
    static final class Token implements Callable<Integer> {
        @ParentCommand
        GraphLauncher root;

        @Parameters(index = "0", paramLabel = "USER_ID", description = "a positive 64-bit user id")
        String userId;

        @Option(names = "--ttl", defaultValue = "24h", description = "lifetime, e.g. 30m, 24h, 7d (default: ${DEFAULT-VALUE})")
        String ttl;

        @Option(names = "--scope", description = "the token's OAuth 2.0 scope claim, space-separated; graph:admin opens "
                + "the operator API (/v1/admin/**)")
        String scope;

        @Override
        public Integer call() throws IOException {
            long id;
            Duration lifetime;
            try {
                id = dev.socialgraph.common.id.UserIds.parse(userId, "USER_ID");
                lifetime = parseDuration(ttl);
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                return 2;
            }
            FleetDir dir = root.fleetDir();
            Files.createDirectories(dir.root());
            Secrets secrets = Secrets.load(dir.root(), System.getenv());
            System.out.println(DevTokens.mint(secrets.jwtSecret(), id, lifetime, Instant.now(), scope));
            return 0;
        }
    }

    /**
     * Parses {@code <n>s|m|h|d}.
     *
     * @throws IllegalArgumentException for anything else or a zero duration
     */
    static Duration parseDuration(String text) {
        Matcher m = Pattern.compile("([1-9][0-9]{0,8})([smhd])").matcher(text == null ? "" : text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("--ttl must look like 30m, 24h or 7d, was '" + text + "'");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }

    // ------------------------------------------------------------------------------------------------ import

    @Command(name = "import", mixinStandardHelpOptions = true,
            description = "Replace the running fleet's graph with an edge list: bulk import, bloom snapshot, cache "
                    + "flush, bloom swap on every check instance. For an idle fleet: follows during the import are lost.")
    static final class Import implements Callable<Integer> {
        @ParentCommand
        GraphLauncher root;

        @Parameters(index = "0", paramLabel = "FILE", description = "edge list (follower<TAB>followee, # comments, gzip or plain)")
        Path file;

        @Override
        public Integer call() throws Exception {
            FleetDir dir = root.fleetDir();
            if (dir.runningLauncher().isEmpty() || !Files.exists(dir.ready())) {
                System.err.println("No ready fleet in " + dir.root() + ". Start one first: ./graph up --dataset none "
                        + "(or './graph up --dataset " + file + "' on a fresh data directory).");
                return 1;
            }
            if (!Files.isReadable(file)) {
                System.err.println("cannot read " + file);
                return 1;
            }
            Properties ports = dir.ports();
            if (ports.getProperty(PortPlan.check(1)) != null) {
                // Each of several check instances owns a slice of the shards and builds its bloom filter by scanning
                // it; only an instance owning every shard can swap in the import's snapshot. The others would keep a
                // filter without the new edges and answer "no" for them.
                System.err.println("This fleet runs several check instances, whose bloom filters cannot take the "
                        + "import's snapshot. Stop it and start a fresh data directory with the file instead: "
                        + "./graph down; GRAPH_DATA_DIR=... ./graph up --check-instances N --dataset " + file);
                return 1;
            }
            Properties imported = FleetDir.readProperties(dir.imported());
            Map<String, String> env = System.getenv();
            Stores.Endpoints endpoints = Stores.Endpoints.read(ports,
                    env.getOrDefault("GRAPH_SHARDS_USERNAME", "postgres"), env.getOrDefault("GRAPH_SHARDS_PASSWORD", ""));
            long threshold = Long.parseLong(imported.getProperty("celebrity-threshold", Long.toString(LOCAL_CELEBRITY_THRESHOLD)));
            int pageSize = Integer.parseInt(imported.getProperty("page-size", Integer.toString(LOCAL_PAGE_SIZE)));
            int code = Importer.run(file.toAbsolutePath(), endpoints, dir, threshold, pageSize);
            if (code != 0) {
                return code;
            }
            // The caches hold the old graph: empty them (follow tokens, buckets and caches refill); every master of a
            // Redis Cluster.
            endpoints.flushRedis();
            // The fleet's services were given this credential when they started (same data directory, same env).
            Secrets secrets = Secrets.load(dir.root(), env);
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            for (int i = 0; i < PortPlan.MAX_CHECK_INSTANCES; i++) {
                String name = PortPlan.check(i);
                String port = ports.getProperty(name);
                if (port == null) {
                    continue;
                }
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                                + InternalApi.BLOOM_SWAP.template())).timeout(Duration.ofMinutes(5))
                                .header(Headers.SERVICE_TOKEN, secrets.serviceToken())
                                .POST(HttpRequest.BodyPublishers.noBody()).build(),
                        HttpResponse.BodyHandlers.ofString());
                System.out.println(name + " bloom swap: " + r.statusCode() + " " + r.body());
            }
            Datasets.record(imported, file.toAbsolutePath());
            FleetDir.writeProperties(dir.imported(), imported, "what the last import imported");
            return 0;
        }
    }

    // ------------------------------------------------------------------------------------------------ broker

    /**
     * The fleet's local Kafka broker, run by {@code up} as a child process ({@link LocalBroker}): a single-node KRaft
     * broker on 127.0.0.1 that formats its log directory on the first start and reuses it afterwards. Runs until it is
     * stopped; {@code SIGTERM} shuts it down in order.
     */
    @Command(name = "broker", hidden = true, mixinStandardHelpOptions = true,
            description = "Run the fleet's local Kafka broker in this process ('up' starts it; not for direct use).")
    static final class Broker implements Callable<Integer> {
        @Option(names = "--port", required = true, description = "client port on 127.0.0.1")
        int port;

        @Option(names = "--controller-port", required = true, description = "KRaft controller port on 127.0.0.1")
        int controllerPort;

        @Option(names = "--log-dir", required = true, description = "the log directory, kept across restarts")
        Path logDir;

        @Option(names = "--partitions", defaultValue = "12", description = "default partitions of new topics")
        int partitions;

        @Override
        public Integer call() throws InterruptedException {
            KraftBroker broker = KraftBroker.builder()
                    .port(port)
                    .controllerPort(controllerPort)
                    .logDir(logDir.toAbsolutePath())
                    .config("num.partitions", partitions)
                    .build()
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "kafka-shutdown"));
            System.out.println("Kafka broker ready on " + broker.bootstrapServers() + " (log dir " + logDir + ")");
            System.out.flush();
            Thread.currentThread().join(); // until SIGTERM (the hook stops the broker) or SIGKILL
            return 0;
        }
    }

    // ------------------------------------------------------------------------------------------------ datasets

    /** Which graph the first start imports. */
    static final class Datasets {
        private Datasets() {
        }

        /**
         * @param option {@code --dataset}: a file, {@code none}, or {@code null} for the default
         * @param home   the repository; the default dataset is {@code <home>/../shared/datasets/ego-twitter.txt.gz}
         * @return the file to import, empty for none
         * @throws IllegalArgumentException when a named file cannot be read
         */
        static Optional<Path> resolve(String option, Path home, FleetDir dir) throws IOException {
            if ("none".equals(option)) {
                return Optional.empty();
            }
            if (option != null) {
                Path f = Path.of(option).toAbsolutePath();
                if (!Files.isReadable(f)) {
                    throw new IllegalArgumentException("--dataset " + option + ": cannot read " + f);
                }
                return Optional.of(f);
            }
            Path egoTwitter = home.resolve("../shared/datasets/ego-twitter.txt.gz").normalize();
            if (Files.isReadable(egoTwitter)) {
                return Optional.of(egoTwitter);
            }
            Path generated = dir.datasets().resolve("rmat-" + GENERATED_USERS + "-" + GENERATED_EDGES + "-seed1.tsv.gz");
            if (!Files.exists(generated)) {
                System.out.println("No dataset file (" + egoTwitter + " is absent): generating an R-MAT graph of "
                        + GENERATED_USERS + " users and " + GENERATED_EDGES + " edges ...");
                int code = new CommandLine(new GraphTool()).execute("generate", "--users", Long.toString(GENERATED_USERS),
                        "--edges", Integer.toString(GENERATED_EDGES), "--seed", "1", "--out", generated.toString());
                if (code != 0) {
                    throw new IllegalStateException("generating the graph failed (exit " + code + ")");
                }
            }
            return Optional.of(generated);
        }

        /**
         * Notes an imported file in {@code imported.properties}: its path, its first edge (the banner's sample users)
         * and the time.
         */
        static void record(Properties imported, Path file) {
            imported.setProperty("dataset", file.toString());
            firstEdge(file).ifPresent(edge -> {
                imported.setProperty("sample-follower", Long.toString(edge[0]));
                imported.setProperty("sample-followee", Long.toString(edge[1]));
            });
            imported.setProperty("imported-at", Instant.now().toString());
        }

        /**
         * The first follow of an edge list that is not a self-loop, read with graph-common's {@link EdgeListParser}:
         * {@code [follower, followee]}; empty when there is none, or the file cannot be read or parsed up to it (the
         * sample is a nicety of the banner, never a reason to fail).
         */
        static Optional<long[]> firstEdge(Path file) {
            try (EdgeListParser edges = EdgeListParser.open(file)) {
                while (edges.next()) {
                    if (edges.relation() == Relation.FOLLOW && edges.source() != edges.target()) {
                        return Optional.of(new long[] {edges.source(), edges.target()});
                    }
                }
            } catch (IOException | EdgeListFormatException e) {
                return Optional.empty();
            }
            return Optional.empty();
        }
    }
}
