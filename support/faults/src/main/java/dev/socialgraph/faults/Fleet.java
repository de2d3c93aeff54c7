package dev.socialgraph.faults;

import dev.socialgraph.launcher.DevTokens;
import dev.socialgraph.launcher.FleetDir;
import dev.socialgraph.launcher.LocalBroker;
import dev.socialgraph.launcher.PortPlan;
import dev.socialgraph.launcher.ServiceFleet;
import dev.socialgraph.localruntime.RedisProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * A fleet as {@code ./graph up} runs it, started by running {@code ./graph} itself in a data directory of its own
 * (empty graph, {@code --dataset none}) on a free port offset, and the handles the faults need: the processes' pids
 * from {@code run/<name>.pid}, readiness, a superuser JDBC connection to the shard databases and a Redis connection.
 */
public final class Fleet implements AutoCloseable {

    /**
     * The processes {@code ./graph up} starts and its supervisor restarts, by their pid-file names: the five services,
     * the local Kafka broker, the PostgreSQL server and the Redis process.
     */
    public static final List<String> SUPERVISED = List.of(PortPlan.WRITE, PortPlan.CDC, PortPlan.CHECK,
            PortPlan.RECONCILER, PortPlan.GATEWAY, LocalBroker.NAME, PortPlan.POSTGRES, PortPlan.REDIS);

    private final Path repo;
    private final FleetDir dir;
    private final PortPlan ports;
    private final String javaOptions;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();
    private RedisClient redisClient;
    private StatefulRedisConnection<String, String> redis;
    private volatile String jwtSecret;
    private final List<String> notes = new ArrayList<>();
    private HangingProxy proxy;

    /**
     * The database the services reach through {@link #proxy()}: shards 128..255 of the following group, so users of
     * shards 0..127 are users of other databases.
     */
    public static final String PROXIED_DATABASE = "graph_following_1";
    /** Logical shards of {@link #PROXIED_DATABASE}'s following rows: 128..255 of 256. */
    static boolean onProxiedDatabase(int logicalShard) {
        return logicalShard >= 128;
    }

    private Fleet(Path repo, FleetDir dir, PortPlan ports, String javaOptions) {
        this.repo = repo;
        this.dir = dir;
        this.ports = ports;
        this.javaOptions = javaOptions;
    }

    /**
     * Starts a fleet with {@code ./graph --no-build up --detach}; the services' jars must be built.
     *
     * @param repo    the repository root holding {@code ./graph}
     * @param dataDir an empty directory for the fleet's data, logs and secrets
     * @param javaOptions JVM options added to every service's own ({@code GRAPH_JAVA_OPTS}), e.g.
     *                {@code -XX:TieredStopAtLevel=1} for JVMs that start and restart fast; empty for the fleet's own
     * @return the running fleet, every service ready
     * @throws IOException          when {@code ./graph up} fails (its output is in the message)
     * @throws InterruptedException when interrupted while waiting
     */
    public static Fleet start(Path repo, Path dataDir, String javaOptions) throws IOException, InterruptedException {
        int offset = PortPlan.freeTestOffset(new Random());
        PortPlan ports = new PortPlan(offset);
        HangingProxy proxy = new HangingProxy(ports.port(PortPlan.POSTGRES));
        // Every service reaches one database through the proxy (graph-shards-local.yml's per-database server).
        String options = (javaOptions.strip() + " -Dgraph.postgres.servers." + PROXIED_DATABASE + "=127.0.0.1:"
                + proxy.port()).strip();
        Fleet fleet = new Fleet(repo, new FleetDir(dataDir), ports, options);
        fleet.proxy = proxy;
        Result up = fleet.graph("up", "--detach", "--dataset", "none", "--port-offset", Integer.toString(offset));
        if (up.code() != 0) {
            proxy.close();
            throw new IOException("./graph up failed (" + up.code() + "):\n" + up.output());
        }
        return fleet;
    }

    /** The gateway's base URI, {@code http://127.0.0.1:<port>}. */
    public URI gateway() {
        return URI.create("http://127.0.0.1:" + ports.port(PortPlan.GATEWAY));
    }

    /**
     * A bearer token for a user, minted with the fleet's JWT secret.
     *
     * @param userId a positive 64-bit user id
     * @return {@code Bearer <jwt>}, valid for an hour
     * @throws IOException when the fleet's secret cannot be read
     */
    public String bearer(long userId) throws IOException {
        String secret = jwtSecret;
        if (secret == null) {
            secret = Files.readString(dir.root().resolve("jwt-secret")).strip();
            jwtSecret = secret;
        }
        return "Bearer " + DevTokens.mint(secret, userId, Duration.ofHours(1), Instant.now());
    }

    /** The pid a part of the fleet runs as now ({@code launcher}, {@code redis}, a service name), if running. */
    public OptionalLong pid(String name) {
        Path file = dir.run().resolve(name + ".pid");
        try {
            long pid = Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).strip());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isPresent() ? OptionalLong.of(pid)
                    : OptionalLong.empty();
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * Whether a supervised process is ready, as the launcher judges it: a service's readiness probe answers UP, the
     * broker answers a Kafka client, PostgreSQL a query, Redis a {@code PING}.
     */
    public boolean ready(String service) {
        if (service.equals(LocalBroker.NAME)) {
            return LocalBroker.ready("127.0.0.1:" + ports.port(PortPlan.KAFKA));
        }
        if (service.equals(PortPlan.POSTGRES)) {
            try (Connection c = jdbc("postgres"); Statement s = c.createStatement()) {
                return s.execute("SELECT 1");
            } catch (SQLException e) {
                return false;
            }
        }
        if (service.equals(PortPlan.REDIS)) {
            try {
                return RedisProcess.command("127.0.0.1", ports.port(PortPlan.REDIS), "PING").startsWith("+PONG");
            } catch (IOException e) {
                return false;
            }
        }
        return ServiceFleet.UP.equals(ServiceFleet.readiness(http, ports.managementPort(service)));
    }


    /**
     * Waits until every supervised process is ready.
     *
     * @param timeout how long to wait
     * @return the services still not ready when the time ran out, empty when all are
     * @throws InterruptedException when interrupted
     */
    public List<String> awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> notReady;
        do {
            notReady = new ArrayList<>();
            for (String s : SUPERVISED) {
                if (!ready(s)) {
                    notReady.add(s);
                }
            }
            if (notReady.isEmpty()) {
                return notReady;
            }
            Thread.sleep(250);
        } while (System.nanoTime() < deadline);
        return notReady;
    }

    /**
     * The sum of a Prometheus metric over its label sets, as a service's {@code /actuator/prometheus} reports it
     * now (e.g. {@code graph_cdc_events_applied_total} over its {@code type}s).
     *
     * @param service a service name, e.g. {@link PortPlan#CDC}
     * @param metric  the exported name
     * @param labels  labels a sample must have to count, e.g. {@code outcome="followed"}
     * @return the sum; 0 when the service exports no such sample
     * @throws IOException when the service does not answer
     */
    public double metric(String service, String metric, String... labels) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + ports.managementPort(service) + "/actuator/prometheus")).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(service + " /actuator/prometheus answered " + response.statusCode());
        }
        double sum = 0;
        for (String line : response.body().split("\n")) {
            if ((line.startsWith(metric + "{") || line.startsWith(metric + " "))
                    && java.util.Arrays.stream(labels).allMatch(line::contains)) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    /** Adds a line to the run's report (a fault's measurements). */
    public synchronized void note(String line) {
        notes.add(line);
    }

    /** The lines added by {@link #note} since the last call. */
    public synchronized List<String> drainNotes() {
        List<String> out = List.copyOf(notes);
        notes.clear();
        return out;
    }

    /**
     * A superuser connection to one of the fleet's databases.
     *
     * @param database a database name, e.g. {@code graph_following_0} or {@code postgres}
     * @return a new connection; the caller closes it
     * @throws SQLException when it cannot connect
     */
    public Connection jdbc(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + ports.port(PortPlan.POSTGRES) + "/"
                + database, "postgres", "");
    }

    /** A connection to the fleet's Redis, opened on first use and reused. */
    public synchronized StatefulRedisConnection<String, String> redis() {
        if (redis == null) {
            redisClient = RedisClient.create("redis://127.0.0.1:" + ports.port(PortPlan.REDIS));
            redis = redisClient.connect();
        }
        return redis;
    }

    /** The proxy in front of {@link #PROXIED_DATABASE}, which can stop forwarding. */
    HangingProxy proxy() {
        return proxy;
    }

    /** The fleet's data directory. */
    public Path dataDir() {
        return dir.root();
    }

    /** Stops the fleet with {@code ./graph down}. */
    @Override
    public void close() throws IOException, InterruptedException {
        if (redis != null) {
            redis.close();
            redisClient.shutdown();
        }
        try {
            graph("down");
        } finally {
            if (proxy != null) {
                proxy.close();
            }
        }
    }

    private record Result(int code, String output) {
    }

    private Result graph(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", repo.resolve("graph").toString(), "--no-build"));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("GRAPH_DATA_DIR", dir.root().toString());
        env.put("JAVA_HOME", System.getProperty("java.home"));
        if (!javaOptions.isEmpty()) {
            env.put("GRAPH_JAVA_OPTS", javaOptions);
        }
        // The workload's users write and read far more often than a person: lift the per-user budgets.
        env.put("GRAPH_GATEWAY_READS_REPLENISHRATE", "100000");
        env.put("GRAPH_GATEWAY_READS_BURSTCAPACITY", "200000");
        env.put("GRAPH_GATEWAY_WRITES_REPLENISHRATE", "100000");
        env.put("GRAPH_GATEWAY_WRITES_BURSTCAPACITY", "200000");
        Files.createDirectories(dir.root());
        Path log = dir.root().resolve("graph-" + args[0] + "-" + System.nanoTime() + ".out");
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        if (!p.waitFor(15, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IOException("./graph " + String.join(" ", args) + " did not finish:\n" + Files.readString(log));
        }
        return new Result(p.exitValue(), Files.readString(log));
    }

}
