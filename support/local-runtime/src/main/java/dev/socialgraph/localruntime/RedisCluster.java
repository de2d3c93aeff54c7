package dev.socialgraph.localruntime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import io.lettuce.core.cluster.SlotHash;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redis Cluster of real {@code redis-server} processes on this machine (one {@link RedisProcess} per node), formed
 * with {@code redis-cli --cluster create}: by default 3 masters and 1 replica each, every node on its own loopback
 * port with its own working directory under the cluster's directory.
 *
 * <p>Each node runs with {@code cluster-enabled yes}, persists nothing ({@code save ""}, {@code appendonly no}) and
 * has a {@code cluster-node-timeout} of {@link #NODE_TIMEOUT} (1 s), so a killed master is replaced by its replica in
 * about two seconds (the timeout to mark it failed, then the replicas' election). {@code
 * cluster-replica-validity-factor 0} lets a replica take over however long it was cut off from its master: this
 * cluster holds caches, where availability beats the last writes. Every node also listens on its port + 10000, the
 * cluster bus (Redis' default), so that port must be free too ({@link #freePorts(int)} checks both).
 *
 * <p>Forming the cluster needs {@code redis-cli} (Debian: package {@code redis-tools}) on the {@code PATH}; the
 * server binary is chosen as {@link RedisProcess} chooses it. Nothing survives {@link #close()}: the nodes are
 * killed and their directories deleted (a node directory left over from an earlier run is deleted before the start,
 * since its {@code nodes.conf} would make the node rejoin a cluster that is gone).
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.start(dir, RedisCluster.freePorts(6), 3, 1)) {
 *     String uris = cluster.uris();             // "redis://127.0.0.1:20100,redis://127.0.0.1:20101,..."
 *     int killed = cluster.killMasterOf("key"); // SIGKILL the master serving the key's slot
 *     cluster.awaitHealthy(Duration.ofSeconds(30));
 * }
 * }</pre>
 */
public final class RedisCluster implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisCluster.class);

    /** Hash slots of every Redis Cluster. */
    public static final int SLOTS = 16_384;

    /** {@code cluster-node-timeout}: how long a node may not answer before the others mark it failed. */
    public static final Duration NODE_TIMEOUT = Duration.ofMillis(1000);

    /** What Redis adds to a node's port for its cluster bus port (unless {@code cluster-port} says otherwise). */
    public static final int BUS_PORT_OFFSET = 10_000;

    private static final String HOST = "127.0.0.1";

    private final Path directory;
    private final int masters;
    private final int replicasPerMaster;
    private final Map<Integer, RedisProcess> nodes = new LinkedHashMap<>();
    private boolean closed;

    private RedisCluster(Path directory, int masters, int replicasPerMaster) {
        this.directory = directory;
        this.masters = masters;
        this.replicasPerMaster = replicasPerMaster;
    }

    /**
     * Starts the nodes, forms the cluster and waits until it is {@link #awaitHealthy(Duration) healthy} and every
     * replica has synchronised with its master; node output goes to this class's logger.
     *
     * @param directory         the cluster's directory: node {@code p} works in {@code <directory>/<p>}
     * @param ports             one port per node, {@code masters × (1 + replicasPerMaster)} of them; each port + 10000
     *                          must be free too
     * @param masters           masters, at least 3 ({@code redis-cli} refuses fewer)
     * @param replicasPerMaster replicas of each master, 0 or more
     * @return the running cluster
     * @throws IllegalArgumentException when the counts do not fit
     * @throws IllegalStateException    when {@code redis-cli} is absent, a node does not start or the cluster does
     *                                  not form within 60 s; every node started is stopped again
     */
    public static RedisCluster start(Path directory, List<Integer> ports, int masters, int replicasPerMaster) {
        return start(directory, ports, masters, replicasPerMaster, null, List.of());
    }

    /**
     * Like {@link #start(Path, List, int, int)}, with each node's output appended to {@code
     * <logDirectory>/redis-<port>.log} and extra {@code redis.conf} lines for every node.
     *
     * @param logDirectory where node logs go; {@code null} for this class's logger
     * @param settings     extra configuration lines for every node, e.g. {@code maxmemory 192mb}
     * @return the running cluster
     */
    public static RedisCluster start(Path directory, List<Integer> ports, int masters, int replicasPerMaster,
                                     Path logDirectory, List<String> settings) {
        Objects.requireNonNull(directory, "directory");
        if (masters < 3 || replicasPerMaster < 0) {
            throw new IllegalArgumentException("a Redis Cluster needs at least 3 masters and 0 or more replicas each, "
                    + "was " + masters + " and " + replicasPerMaster);
        }
        int size = masters * (1 + replicasPerMaster);
        if (ports.size() != size) {
            throw new IllegalArgumentException(masters + " masters with " + replicasPerMaster + " replicas each need "
                    + size + " ports, got " + ports);
        }
        Path cli = redisCli();
        RedisCluster cluster = new RedisCluster(directory.toAbsolutePath(), masters, replicasPerMaster);
        long startingAt = System.nanoTime();
        try {
            for (int port : ports) {
                Path nodeDirectory = cluster.directory.resolve(Integer.toString(port));
                Directories.deleteRecursively(nodeDirectory);
                RedisProcess.Builder node = RedisProcess.builder().port(port).directory(nodeDirectory)
                        .setting("cluster-enabled yes")
                        .setting("cluster-config-file nodes.conf")
                        .setting("cluster-node-timeout " + NODE_TIMEOUT.toMillis())
                        .setting("cluster-replica-validity-factor 0");
                settings.forEach(node::setting);
                if (logDirectory != null) {
                    Files.createDirectories(logDirectory);
                    node.logFile(logDirectory.resolve("redis-" + port + ".log"));
                }
                cluster.nodes.put(port, node.build().start());
            }
            cluster.create(cli);
            cluster.awaitFormed(Duration.ofSeconds(60));
        } catch (IOException e) {
            cluster.close();
            throw new UncheckedIOException("Redis Cluster in " + directory + " did not start", e);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        log.info("Redis Cluster of {} masters and {} replicas each on {} in {} ms", masters, replicasPerMaster,
                cluster.seeds(), (System.nanoTime() - startingAt) / 1_000_000);
        return cluster;
    }

    /**
     * Ports for a cluster's nodes that are free now, and whose cluster bus ports (+ 10000) are free too: consecutive
     * ports from a random start within 20000..21999, so that both lie below Linux's ephemeral range (32768–60999),
     * where a client's own connection could take a port.
     *
     * @param count how many nodes
     * @return the ports, ascending
     * @throws IllegalStateException when no such run of ports is free
     */
    public static List<Integer> freePorts(int count) {
        int first = 20_000 + ThreadLocalRandom.current().nextInt(2_000);
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = 20_000 + (first - 20_000 + attempt * 10) % (2_000 - count);
            List<Integer> ports = new ArrayList<>();
            for (int p = base; p < base + count; p++) {
                if (FreePorts.isFree(p) && FreePorts.isFree(p + BUS_PORT_OFFSET)) {
                    ports.add(p);
                }
            }
            if (ports.size() == count) {
                return ports;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free ports (with bus ports) in 20000..21999");
    }

    /**
     * Whether this machine can form a cluster: {@code redis-cli} is on the {@code PATH}.
     *
     * @return {@code true} when {@link #start(Path, List, int, int)} will find it
     */
    public static boolean available() {
        return RedisProcess.onPath("redis-cli").isPresent();
    }

    /**
     * The nodes' addresses, for clients that discover the cluster from seeds.
     *
     * @return {@code 127.0.0.1:<port>} of every node, masters and replicas, in port order given at start
     */
    public List<String> seeds() {
        return nodes.keySet().stream().map(p -> HOST + ":" + p).toList();
    }

    /**
     * The nodes as Redis URIs, comma-separated: a Lettuce {@code RedisClusterClient}'s seeds (and the services'
     * {@code redis-uri} in cluster mode).
     *
     * @return e.g. {@code redis://127.0.0.1:16380,redis://127.0.0.1:16381,...}
     */
    public String uris() {
        return nodes.keySet().stream().map(p -> "redis://" + HOST + ":" + p).collect(Collectors.joining(","));
    }

    /**
     * Every node's port, masters and replicas.
     *
     * @return the ports given at start, in that order
     */
    public List<Integer> ports() {
        return List.copyOf(nodes.keySet());
    }

    /**
     * Masters at start.
     *
     * @return the count given at start
     */
    public int masters() {
        return masters;
    }

    /**
     * Replicas per master at start.
     *
     * @return the count given at start
     */
    public int replicasPerMaster() {
        return replicasPerMaster;
    }

    /**
     * The pids of the node processes that answer now.
     *
     * @return port → pid
     */
    public Map<Integer, Long> pids() {
        Map<Integer, Long> pids = new LinkedHashMap<>();
        for (int port : nodes.keySet()) {
            RedisProcess.pid(HOST, port).ifPresent(pid -> pids.put(port, pid));
        }
        return pids;
    }

    /**
     * The port of the live master that serves a key's hash slot now.
     *
     * @param key a key (a {@code {hash tag}} counts as Redis counts it)
     * @return the master's port
     * @throws IllegalStateException when no live master serves the slot (during a failover)
     */
    public int masterOf(String key) {
        int slot = SlotHash.getSlot(key);
        return topology(seeds()).stream()
                .filter(n -> n.master() && !n.failed() && n.serves(slot))
                .mapToInt(Node::port).findFirst()
                .orElseThrow(() -> new IllegalStateException("no live master serves slot " + slot + " of " + key));
    }

    /**
     * Kills the master serving a key's slot with {@code SIGKILL}, as a crash would, and waits until its process is
     * gone. Its replica takes over within about two {@link #NODE_TIMEOUT}s; see {@link #awaitHealthy(Duration)}.
     *
     * @param key a key
     * @return the killed master's port
     * @throws IllegalStateException when no live master serves the slot or its pid is unknown
     */
    public int killMasterOf(String key) {
        int port = masterOf(key);
        long pid = RedisProcess.pid(HOST, port)
                .orElseThrow(() -> new IllegalStateException("no pid for the Redis node on port " + port));
        ProcessHandle process = ProcessHandle.of(pid)
                .orElseThrow(() -> new IllegalStateException("no process " + pid + " (Redis node on port " + port + ")"));
        process.destroyForcibly();
        try {
            process.onExit().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing the Redis node on port " + port, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the Redis node on port " + port + " (pid " + pid + ") did not exit", e);
        }
        log.info("Killed the Redis Cluster master on port {} (pid {}), which served {}", port, pid, key);
        return port;
    }

    /**
     * Waits until the cluster serves every slot again, e.g. after {@link #killMasterOf(String)}: every live node
     * reports {@code cluster_state:ok}, and the live masters together serve all 16384 slots.
     *
     * @param timeout how long to wait
     * @throws IllegalStateException when that does not happen in time; the message says what is missing
     */
    public void awaitHealthy(Duration timeout) {
        await(timeout, () -> unhealthy(seeds(), false));
    }

    /**
     * {@link #awaitHealthy(Duration)} with 30 s: about fifteen failovers' time.
     *
     * @throws IllegalStateException when the cluster is not healthy within 30 s
     */
    public void awaitFailover() {
        awaitHealthy(Duration.ofSeconds(30));
    }

    /**
     * Empties the cluster: {@code FLUSHALL} on every live master (a replica refuses writes and follows its master).
     *
     * @throws UncheckedIOException when a master does not answer
     */
    public void flushAll() {
        flushAll(seeds());
    }

    /**
     * Empties a running cluster known only by its seeds: {@code FLUSHALL} on every live master the first answering
     * seed knows of (for a process other than the one that started the cluster, e.g. {@code ./graph import}).
     *
     * @param seeds {@code host:port} of one or more nodes
     * @return the masters flushed, {@code host:port}
     * @throws UncheckedIOException when no seed answers or a master does not
     */
    public static List<String> flushAll(List<String> seeds) {
        List<String> flushed = new ArrayList<>();
        for (Node master : topology(seeds)) {
            if (master.master() && !master.failed()) {
                String reply = command(master.host(), master.port(), "FLUSHALL");
                if (!reply.startsWith("+OK")) {
                    throw new IllegalStateException("FLUSHALL on " + master.address() + " answered " + reply.strip());
                }
                flushed.add(master.address());
            }
        }
        return flushed;
    }

    /**
     * One line about a running cluster known by its seeds, for a status display.
     *
     * @param seeds {@code host:port} of one or more nodes
     * @return e.g. {@code cluster_state ok, masters 127.0.0.1:16380 127.0.0.1:16381 127.0.0.1:16382, 3 replicas}, or
     *     why it cannot be told
     */
    public static String describe(List<String> seeds) {
        try {
            List<Node> topology = topology(seeds);
            Node any = topology.stream().filter(n -> !n.failed()).findFirst().orElseThrow();
            String info = command(any.host(), any.port(), "CLUSTER", "INFO");
            String state = field(info, "cluster_state").orElse("?");
            String masterList = topology.stream().filter(n -> n.master() && !n.failed()).map(Node::address)
                    .collect(Collectors.joining(" "));
            long replicas = topology.stream().filter(n -> !n.master() && !n.failed()).count();
            long failed = topology.stream().filter(Node::failed).count();
            return "cluster_state " + state + ", masters " + masterList + ", " + replicas + " replicas"
                    + (failed > 0 ? ", " + failed + " failed" : "");
        } catch (RuntimeException e) {
            return "not answering (" + e.getMessage() + ")";
        }
    }

    /**
     * The process of one node, e.g. for a supervisor that starts a killed node again ({@link RedisProcess#stop()},
     * then {@link RedisProcess#start()}: it rejoins the cluster from the {@code nodes.conf} in its directory).
     *
     * @param port the node's port, one of {@link #ports()}
     * @return its process
     * @throws IllegalArgumentException for a port that is not a node's
     */
    public RedisProcess node(int port) {
        RedisProcess node = nodes.get(port);
        if (node == null) {
            throw new IllegalArgumentException("no node of this cluster listens on port " + port);
        }
        return node;
    }

    /**
     * Kills every node ({@code SIGKILL}: nothing is persisted, so there is nothing to shut down in order) and deletes
     * their directories. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Map.Entry<Integer, RedisProcess> node : nodes.entrySet()) {
            RedisProcess.pid(HOST, node.getKey()).flatMap(ProcessHandle::of).ifPresent(ProcessHandle::destroyForcibly);
            try {
                node.getValue().close();
            } catch (IOException | RuntimeException e) {
                log.warn("stopping the Redis node on port {} failed: {}", node.getKey(), e.toString());
            }
            Directories.deleteRecursively(directory.resolve(Integer.toString(node.getKey())));
        }
    }

    private void create(Path cli) throws IOException {
        List<String> command = new ArrayList<>(List.of(cli.toString(), "--cluster", "create"));
        command.addAll(seeds());
        command.addAll(List.of("--cluster-replicas", Integer.toString(replicasPerMaster), "--cluster-yes"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output;
        try (var in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException("redis-cli --cluster create failed:\n" + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException("interrupted while forming the Redis Cluster", e);
        }
        log.debug("redis-cli --cluster create: {}", output);
    }

    /** Healthy, and every master has its replicas, each with its replication link up. */
    private void awaitFormed(Duration timeout) {
        await(timeout, () -> unhealthy(seeds(), true).or(this::replicasMissing));
    }

    private Optional<String> replicasMissing() {
        List<Node> topology = topology(seeds());
        Map<String, Integer> replicas = new HashMap<>();
        for (Node node : topology) {
            if (!node.master()) {
                String link = field(command(node.host(), node.port(), "INFO", "replication"), "master_link_status")
                        .orElse("?");
                if (!link.equals("up")) {
                    return Optional.of("replica " + node.address() + " has its master link " + link);
                }
                replicas.merge(node.masterId(), 1, Integer::sum);
            }
        }
        for (Node node : topology) {
            if (node.master() && replicas.getOrDefault(node.id(), 0) < replicasPerMaster) {
                return Optional.of("master " + node.address() + " has " + replicas.getOrDefault(node.id(), 0)
                        + " replicas");
            }
        }
        return Optional.empty();
    }

    /**
     * What keeps the cluster of these seeds from serving every slot, if anything.
     *
     * @param everyNode whether every seed must answer (at start), or only the live ones (after a kill)
     */
    private static Optional<String> unhealthy(List<String> seeds, boolean everyNode) {
        for (String seed : seeds) {
            Node node = Node.of(seed);
            String info;
            try {
                info = RedisProcess.command(node.host(), node.port(), "CLUSTER", "INFO");
            } catch (IOException e) {
                if (everyNode) {
                    return Optional.of(seed + " does not answer: " + e.getMessage());
                }
                continue; // a killed node
            }
            String state = field(info, "cluster_state").orElse("?");
            if (!state.equals("ok")) {
                return Optional.of(seed + " reports cluster_state:" + state);
            }
        }
        int served = 0;
        for (Node master : topology(seeds)) {
            if (master.master() && !master.failed() && answers(master)) {
                served += master.slotCount();
            }
        }
        return served == SLOTS ? Optional.empty()
                : Optional.of("live masters serve " + served + " of " + SLOTS + " slots");
    }

    private static boolean answers(Node node) {
        try {
            return RedisProcess.command(node.host(), node.port(), "PING").startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    private static void await(Duration timeout, java.util.function.Supplier<Optional<String>> problem) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "not checked";
        while (true) {
            try {
                Optional<String> now = problem.get();
                if (now.isEmpty()) {
                    return;
                }
                last = now.get();
            } catch (RuntimeException e) {
                last = e.getMessage();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the Redis Cluster is not healthy after " + timeout + ": " + last);
            }
            try {
                Thread.sleep(100); // CLUSTER INFO polls: cheap, and a failover takes seconds
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the Redis Cluster", e);
            }
        }
    }

    /** The cluster's nodes as the first answering seed sees them ({@code CLUSTER NODES}). */
    static List<Node> topology(List<String> seeds) {
        IOException last = null;
        for (String seed : seeds) {
            Node node = Node.of(seed);
            try {
                return Node.parse(bulk(RedisProcess.command(node.host(), node.port(), "CLUSTER", "NODES")));
            } catch (IOException e) {
                last = e;
            }
        }
        throw new UncheckedIOException("no Redis Cluster node answers of " + seeds, last);
    }

    private static String command(String host, int port, String... args) {
        try {
            return RedisProcess.command(host, port, args);
        } catch (IOException e) {
            throw new UncheckedIOException("Redis at " + host + ":" + port + " does not answer " + args[0], e);
        }
    }

    /** The text of a RESP bulk string reply ({@code $<length>\r\n<text>\r\n}); an error reply is thrown. */
    private static String bulk(String reply) {
        if (!reply.startsWith("$")) {
            throw new IllegalStateException("Redis answered " + reply.strip());
        }
        return reply.substring(reply.indexOf("\r\n") + 2);
    }

    private static Optional<String> field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return Optional.of(line.substring(name.length() + 1).strip());
            }
        }
        return Optional.empty();
    }

    private static Path redisCli() {
        return RedisProcess.onPath("redis-cli").orElseThrow(() -> new IllegalStateException(
                "redis-cli is not on the PATH: a local Redis Cluster is formed with 'redis-cli --cluster create' "
                        + "(Debian and Ubuntu: apt-get install redis-tools)"));
    }

    /**
     * One line of {@code CLUSTER NODES}: {@code <id> <ip:port@bus> <flags> <master id|-> <ping> <pong> <epoch>
     * <link> <slot ranges...>}.
     *
     * @param slots served slot ranges, {@code [first, last]} each
     */
    record Node(String id, String host, int port, boolean master, boolean failed, String masterId, List<int[]> slots) {

        static Node of(String hostPort) {
            int colon = hostPort.lastIndexOf(':');
            return new Node("", hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)), false,
                    false, "-", List.of());
        }

        static List<Node> parse(String clusterNodes) {
            List<Node> nodes = new ArrayList<>();
            for (String line : clusterNodes.split("\n")) {
                String[] f = line.strip().split(" ");
                if (f.length < 8) {
                    continue;
                }
                String address = f[1].split("@")[0];
                int colon = address.lastIndexOf(':');
                List<String> flags = List.of(f[2].split(","));
                List<int[]> slots = new ArrayList<>();
                for (int i = 8; i < f.length; i++) {
                    if (f[i].startsWith("[")) {
                        continue; // a slot being imported or migrated
                    }
                    String[] range = f[i].split("-");
                    int first = Integer.parseInt(range[0]);
                    slots.add(new int[] {first, range.length > 1 ? Integer.parseInt(range[1]) : first});
                }
                nodes.add(new Node(f[0], address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)),
                        flags.contains("master"), flags.contains("fail") || flags.contains("fail?")
                        || flags.contains("noaddr"), f[3], List.copyOf(slots)));
            }
            return nodes;
        }

        String address() {
            return host + ":" + port;
        }

        boolean serves(int slot) {
            return slots.stream().anyMatch(r -> r[0] <= slot && slot <= r[1]);
        }

        int slotCount() {
            return slots.stream().mapToInt(r -> r[1] - r[0] + 1).sum();
        }
    }
}
