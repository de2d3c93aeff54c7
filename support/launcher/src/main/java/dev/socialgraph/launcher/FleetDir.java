package dev.socialgraph.launcher;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.Properties;

/**
 * The launcher's data directory (default {@code .graph} in the repository): everything a fleet keeps across
 * {@code up}s and everything other tools read about a running fleet.
 *
 * <pre>
 * postgres/          embedded PostgreSQL data directory (the four local shard databases)
 * postgres-1/ ...    the other servers' data directories with --postgres-servers N (the databases spread over them)
 * kafka/             the KRaft broker's log directory
 * redis/             redis-server's working directory (it persists nothing: Redis is a cache here)
 * redis-cluster/&lt;port&gt;/  each Redis Cluster node's working directory with --redis-cluster (deleted on stop)
 * bloom/             bloom snapshots (graph-bloom format), written by the importer and the reconciler
 * datasets/          graphs the launcher generated when no dataset file was available
 * logs/&lt;name&gt;.log    output of every process of the fleet
 * run/&lt;name&gt;.pid     process ids while the fleet runs (launcher, postgres, redis, services)
 * run/ports.properties  name=port of every part of the fleet
 * run/services.properties  each service's state as the launcher's supervisor sees it: state, pid, restarts, last exit
 * run/ready          written when every readiness probe answered UP: the gateway URL
 * imported.properties    what the first start imported (dataset, edges, celebrity settings)
 * fleet.properties       the stores' layout: PostgreSQL servers, standalone Redis or cluster (see {@link #layout()}),
 *                        and the instances of each service (see {@link #instances()})
 * jwt-secret, token-secret, cursor-key, service-token   the fleet's generated secrets (see {@link Secrets})
 * </pre>
 *
 * @param root the directory
 */
public record FleetDir(Path root) {

    public Path postgres() {
        return root.resolve("postgres");
    }

    /**
     * The data directory of the {@code i}th embedded PostgreSQL server.
     *
     * @param i 0 ({@code postgres/}, the only one by default), 1 ({@code postgres-1/}), ...
     * @return the directory
     */
    public Path postgres(int i) {
        return i == 0 ? postgres() : root.resolve("postgres-" + i);
    }

    /** The Redis Cluster's directory: one working directory per node, named by its port. */
    public Path redisCluster() {
        return root.resolve("redis-cluster");
    }

    public Path kafka() {
        return root.resolve("kafka");
    }

    public Path redis() {
        return root.resolve("redis");
    }

    public Path bloom() {
        return root.resolve("bloom");
    }

    public Path datasets() {
        return root.resolve("datasets");
    }

    public Path logs() {
        return root.resolve("logs");
    }

    public Path run() {
        return root.resolve("run");
    }

    public Path log(String name) {
        return logs().resolve(name + ".log");
    }

    public Path ready() {
        return run().resolve("ready");
    }

    public Path imported() {
        return root.resolve("imported.properties");
    }

    /**
     * The stores' layout this data directory was started with, from {@code fleet.properties}: an {@code up} without
     * {@code --postgres-servers} or {@code --redis-cluster} starts the same again.
     *
     * @return the layout; empty for a data directory that never recorded one (started before the file existed, or
     *     never started)
     * @throws IOException when the file cannot be read
     * @throws IllegalArgumentException when it records an impossible layout
     */
    Optional<Stores.Layout> layout() throws IOException {
        Path file = fleet();
        return Files.exists(file) ? Optional.of(Stores.Layout.read(readProperties(file))) : Optional.empty();
    }

    /**
     * The service instances this data directory was started with, from {@code fleet.properties}: an {@code up}
     * without {@code --check-instances}, {@code --write-instances} or {@code --cdc-instances} starts as many again.
     *
     * @return the counts; empty for a data directory that never recorded a layout
     * @throws IOException when the file cannot be read
     * @throws IllegalArgumentException when it records an impossible count
     */
    Optional<Instances> instances() throws IOException {
        Path file = fleet();
        return Files.exists(file) ? Optional.of(Instances.read(readProperties(file))) : Optional.empty();
    }

    /** Records the stores' layout and the service instances in {@code fleet.properties} (atomic). */
    void writeLayout(Stores.Layout layout, Instances instances) throws IOException {
        Properties p = new Properties();
        layout.write(p);
        instances.write(p);
        writeProperties(fleet(), p, "the layout of this fleet's stores and its service instances");
    }

    private Path fleet() {
        return root.resolve("fleet.properties");
    }

    /** Creates the directories. */
    public void create() throws IOException {
        for (Path p : new Path[] {root, postgres(), kafka(), redis(), bloom(), datasets(), logs(), run()}) {
            Files.createDirectories(p);
        }
    }

    /** Records the pid of a running part of the fleet in {@code run/<name>.pid}. */
    public void writePid(String name, long pid) throws IOException {
        Files.writeString(run().resolve(name + ".pid"), pid + "\n", StandardCharsets.US_ASCII);
    }

    /** The launcher process of this directory, when one is alive. */
    public Optional<ProcessHandle> runningLauncher() {
        Path file = run().resolve("launcher.pid");
        try {
            long pid = Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).strip());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .filter(p -> p.info().command().map(c -> c.contains("java")).orElse(true));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Writes {@code run/ports.properties} atomically. */
    public void writePorts(Properties ports) throws IOException {
        writeProperties(run().resolve("ports.properties"), ports, "ports of the running fleet (127.0.0.1)");
    }

    /** Reads {@code run/ports.properties}; empty when absent. */
    public Properties ports() throws IOException {
        return readProperties(run().resolve("ports.properties"));
    }

    /** Writes {@code run/services.properties} atomically (see {@link Supervisor.ServiceState#write}). */
    public void writeServices(Properties services) throws IOException {
        writeProperties(run().resolve("services.properties"), services,
                "services of the running fleet, as the launcher's supervisor sees them");
    }

    /** Reads {@code run/services.properties}; empty when absent. */
    public Properties services() throws IOException {
        return readProperties(run().resolve("services.properties"));
    }

    /** Removes the pid files, ports and ready marker of a stopped fleet. */
    public void clearRun() throws IOException {
        if (!Files.isDirectory(run())) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(run())) {
            for (Path f : files) {
                Files.deleteIfExists(f);
            }
        }
    }

    static Properties readProperties(Path file) throws IOException {
        Properties p = new Properties();
        if (Files.exists(file)) {
            try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(r);
            }
        }
        return p;
    }

    static void writeProperties(Path file, Properties p, String comment) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(w, comment);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
