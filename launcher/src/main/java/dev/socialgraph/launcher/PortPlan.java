package dev.socialgraph.launcher;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The loopback ports of a local fleet: the services on their usual ports (gateway 8080, check 8081, write 8082,
 * cdc-consumer 8083, reconciler 8084, a second check instance 8085), the embedded stores on ports that do not
 * collide with servers a developer already runs (PostgreSQL 15432, Redis 16379, Kafka 19092 and its controller
 * 19093), every one shifted by {@code offset} so that two fleets (or a fleet and a test) can share a machine.
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
        m.put(POSTGRES, 15432);
        m.put(REDIS, 16379);
        m.put(KAFKA, 19092);
        m.put(KAFKA_CONTROLLER, 19093);
        return Map.copyOf(m);
    }

    /**
     * The port of one part of the fleet.
     *
     * @param name one of this class's name constants
     * @return its port on 127.0.0.1
     * @throws IllegalArgumentException for an unknown name
     */
    public int port(String name) {
        Integer base = BASE.get(name);
        if (base == null) {
            throw new IllegalArgumentException("no port for " + name);
        }
        return base + offset;
    }

    /**
     * A free offset for a second fleet on this machine (tests, the fault suite): every port of it free and below
     * Linux's default ephemeral range (32768–60999, {@code net.ipv4.ip_local_port_range}). A port inside that range
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
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
