package dev.socialgraph.launcher;

import dev.socialgraph.localruntime.FreePorts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The loopback ports of a local fleet: the services on their usual ports (gateway 8080, check 8081, write 8082,
 * cdc-consumer 8083, reconciler 8084, a second check instance 8085; with more instances the third to eighth check
 * instance 8086-8091, the second to fourth write instance 8092-8094 and cdc-consumer 8095-8097), each service's
 * management port (actuator: probes and metrics) 10000 above its API port (18080-18097, clear of the 9080-9097 a
 * developer's Kafka on 9092 or Prometheus on 9090 would take), the embedded stores on ports that do not
 * collide with servers a developer already runs (PostgreSQL 15432, and 15433-15435 for more servers with {@code
 * --postgres-servers}; Redis 16379, or with {@code --redis-cluster} six cluster nodes on 16380-16385 whose cluster
 * buses take 26380-26385; Kafka 19092 and its controller 19093), every one shifted by {@code offset} so that two
 * fleets (or a fleet and a test) can share a machine.
 *
 * @param offset added to every port; {@code 0..40000}
 */
public record PortPlan(int offset) {

    /** Service names as used in {@code run/ports.properties}, {@code run/<name>.pid} and the logs. */
    public static final String GATEWAY = "gateway";
    public static final String CHECK = "follow-check-service";
    public static final String CHECK_2 = "follow-check-service-2";
    public static final String WRITE = "follow-write-service";
    public static final String CDC = "cdc-consumer";
    public static final String RECONCILER = "reconciler";
    public static final String POSTGRES = "postgres";
    public static final String REDIS = "redis";
    public static final String KAFKA = "kafka";
    public static final String KAFKA_CONTROLLER = "kafka-controller";

    /** Nodes of the local Redis Cluster ({@code --redis-cluster}): three masters and a replica of each. */
    public static final int REDIS_CLUSTER_NODES = 6;

    /** PostgreSQL servers a fleet can spread its four shard databases over ({@code --postgres-servers}). */
    public static final int MAX_POSTGRES_SERVERS = 4;

    /** follow-check-service instances a fleet can run ({@code --check-instances}). */
    public static final int MAX_CHECK_INSTANCES = 8;

    /** follow-write-service instances a fleet can run ({@code --write-instances}). */
    public static final int MAX_WRITE_INSTANCES = 4;

    /** cdc-consumer instances a fleet can run ({@code --cdc-instances}). */
    public static final int MAX_CDC_INSTANCES = 4;

    /** What a service's management port is above its API port. */
    static final int MANAGEMENT_PORT_DISTANCE = 10_000;

    /**
     * Added to a service's name for its management port: the key in {@code run/ports.properties} and this plan's
     * name of the port ({@code gateway.management}).
     */
    public static final String MANAGEMENT_SUFFIX = ".management";

    private static final Map<String, Integer> BASE = baseMap();

    /**
     * @throws IllegalArgumentException when {@code offset} is outside {@code 0..40000}
     */
    public PortPlan {
        if (offset < 0 || offset > 40_000) {
            throw new IllegalArgumentException("--port-offset must be within 0..40000, was " + offset);
        }
    }

    private static Map<String, Integer> baseMap() {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put(GATEWAY, 8080);
        m.put(CHECK, 8081);
        m.put(WRITE, 8082);
        m.put(CDC, 8083);
        m.put(RECONCILER, 8084);
        m.put(CHECK_2, 8085);
        // Further instances after 8085, so the first instance of each service keeps its port.
        for (int i = 2; i < MAX_CHECK_INSTANCES; i++) {
            m.put(check(i), 8084 + i);
        }
        for (int i = 1; i < MAX_WRITE_INSTANCES; i++) {
            m.put(write(i), 8091 + i);
        }
        for (int i = 1; i < MAX_CDC_INSTANCES; i++) {
            m.put(cdc(i), 8094 + i);
        }
        for (String service : List.copyOf(m.keySet())) {
            m.put(service + MANAGEMENT_SUFFIX, m.get(service) + MANAGEMENT_PORT_DISTANCE);
        }
        m.put(POSTGRES, 15432);
        for (int i = 1; i < MAX_POSTGRES_SERVERS; i++) {
            m.put(postgres(i), 15432 + i);
        }
        m.put(REDIS, 16379);
        for (int i = 0; i < REDIS_CLUSTER_NODES; i++) {
            m.put(redisNode(i), 16380 + i);
            m.put(redisNode(i) + "-bus", 16380 + i + 10_000); // Redis' cluster bus: the node's port + 10000
        }
        m.put(KAFKA, 19092);
        m.put(KAFKA_CONTROLLER, 19093);
        return Map.copyOf(m);
    }

    /**
     * The name of the {@code i}th PostgreSQL server: {@link #POSTGRES} for the first (the only one by default), then
     * {@code postgres-1}, ...
     *
     * @param i 0..{@link #MAX_POSTGRES_SERVERS} - 1
     * @return its name in {@code run/} and the logs
     */
    public static String postgres(int i) {
        return i == 0 ? POSTGRES : POSTGRES + "-" + i;
    }

    /**
     * The name of the {@code i}th follow-check-service instance (instance id {@code check-<i>}):
     * {@link #CHECK} for the first, {@link #CHECK_2} for the second, then {@code follow-check-service-3}, ...
     *
     * @param i 0..{@link #MAX_CHECK_INSTANCES} - 1
     * @return its name in {@code run/} and the logs
     */
    public static String check(int i) {
        return instance(CHECK, i);
    }

    /**
     * The name of the {@code i}th follow-write-service instance: {@link #WRITE}, then {@code follow-write-service-2},
     * ...
     *
     * @param i 0..{@link #MAX_WRITE_INSTANCES} - 1
     * @return its name in {@code run/} and the logs
     */
    public static String write(int i) {
        return instance(WRITE, i);
    }

    /**
     * The name of the {@code i}th cdc-consumer instance: {@link #CDC}, then {@code cdc-consumer-2}, ...
     *
     * @param i 0..{@link #MAX_CDC_INSTANCES} - 1
     * @return its name in {@code run/} and the logs
     */
    public static String cdc(int i) {
        return instance(CDC, i);
    }

    /** The first instance has the service's name, the others a 1-based suffix ({@code -2}, {@code -3}, ...). */
    private static String instance(String service, int i) {
        if (i < 0) {
            throw new IllegalArgumentException("instance " + i + " of " + service);
        }
        return i == 0 ? service : service + "-" + (i + 1);
    }

    /**
     * Every service name a fleet can have, in the order {@code ./graph status} shows them: the gateway, the check
     * instances, the write instances, the cdc-consumers, the reconciler.
     *
     * @return the names; a fleet runs only some of them (see {@code run/ports.properties})
     */
    public static List<String> services() {
        List<String> names = new ArrayList<>();
        names.add(GATEWAY);
        for (int i = 0; i < MAX_CHECK_INSTANCES; i++) {
            names.add(check(i));
        }
        for (int i = 0; i < MAX_WRITE_INSTANCES; i++) {
            names.add(write(i));
        }
        for (int i = 0; i < MAX_CDC_INSTANCES; i++) {
            names.add(cdc(i));
        }
        names.add(RECONCILER);
        return names;
    }

    /**
     * The name of the {@code i}th node of the local Redis Cluster.
     *
     * @param i 0..{@link #REDIS_CLUSTER_NODES} - 1
     * @return {@code redis-node-<i>}
     */
    public static String redisNode(int i) {
        return "redis-node-" + i;
    }

    /**
     * The names of the local Redis Cluster's ports: each node's and its cluster bus'.
     *
     * @return {@code redis-node-0, redis-node-0-bus, ...}
     */
    public static List<String> redisCluster() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < REDIS_CLUSTER_NODES; i++) {
            names.add(redisNode(i));
            names.add(redisNode(i) + "-bus");
        }
        return names;
    }

    /**
     * The management port of a service: its actuator (liveness, readiness, {@code /actuator/prometheus}), which its
     * API port does not serve.
     *
     * @param service one of the service names ({@link #GATEWAY}, {@link #check(int)}, ...)
     * @return its management port on 127.0.0.1: its API port + 10000
     * @throws IllegalArgumentException for a name that is not a service's
     */
    public int managementPort(String service) {
        return port(service + MANAGEMENT_SUFFIX);
    }

    /**
     * The port of one part of the fleet.
     *
     * @param name one of this class's name constants
     * @return its port on 127.0.0.1
     * @throws IllegalArgumentException for an unknown name, or when the offset moves the port past 65535 (only the
     *     Redis Cluster's bus ports can: offsets above 39150)
     */
    public int port(String name) {
        Integer base = BASE.get(name);
        if (base == null) {
            throw new IllegalArgumentException("no port for " + name);
        }
        if (base + offset > 65_535) {
            throw new IllegalArgumentException("--port-offset " + offset + " puts " + name + " on port "
                    + (base + offset) + ", past 65535; choose an offset of at most " + (65_535 - base));
        }
        return base + offset;
    }

    /**
     * A free offset for a second fleet on this machine (tests, the fault suite): every port of it free, and every port
     * the supervisor restarts a process on (services, Kafka; not the Redis Cluster's buses, whose nodes are never
     * restarted) below Linux's default ephemeral range (32768–60999, {@code net.ipv4.ip_local_port_range}). A port inside that range
     * can be taken while its service restarts by a client's own connection attempt to it: the kernel may give the
     * client that very port as its source, and the socket connects to itself (TCP simultaneous open), so the
     * restarted service finds its port in use.
     *
     * @param random where the search starts, so concurrent runs rarely pick the same offset
     * @return an offset within {@code 2000..13600}, a multiple of 100
     * @throws IllegalStateException when every such offset has a port in use
     */
    public static int freeTestOffset(Random random) {
        List<String> all = List.copyOf(BASE.keySet());
        int slots = (13_600 - 2_000) / 100 + 1;
        int first = random.nextInt(slots);
        for (int i = 0; i < slots; i++) {
            int offset = 2_000 + ((first + i) % slots) * 100;
            if (new PortPlan(offset).taken(all).isEmpty()) {
                return offset;
            }
        }
        throw new IllegalStateException("no offset in 2000..13600 has all of its ports free");
    }

    /**
     * The ports among {@code names} that something on this machine already listens on (or that cannot be bound).
     *
     * @param names name constants of this class
     * @return {@code name=port} of every taken port, in the order given; empty when all are free
     */
    public List<String> taken(List<String> names) {
        List<String> out = new ArrayList<>();
        for (String name : names) {
            int port = port(name);
            if (!isFree(port)) {
                out.add(name + "=" + port);
            }
        }
        return out;
    }

    /** Whether a server socket can be bound to {@code 127.0.0.1:port} right now. */
    static boolean isFree(int port) {
        return FreePorts.isFree(port);
    }
}
