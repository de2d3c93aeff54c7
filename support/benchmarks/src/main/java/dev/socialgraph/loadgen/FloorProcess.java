package dev.socialgraph.loadgen;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One of HopBench's floors (module {@code support/floors}) running as a child JVM for the length of a run: the
 * bare Spring Cloud Gateway ({@link #BARE_GATEWAY}) or the same-stack hello world ({@link #HELLO}), from the floors'
 * runnable jar, on two free ports of 127.0.0.1 (its API and its management port, whose readiness probe
 * {@link #awaitReady} waits on). The service credential goes to it as the environment variable
 * {@code GRAPH_SERVICE_TOKEN}, so it does not show in {@code ps}; its output goes to a log file. Each floor runs with
 * the JVM flags of the product process it stands in for (the launcher's {@code Specs}), so the comparison is of the
 * code, not of the JVM settings.
 */
final class FloorProcess implements AutoCloseable {

    /** The floors jar's argument for the bare gateway, which proxies the check path to the check service. */
    static final String BARE_GATEWAY = "bare-gateway";

    /** The floors jar's argument for the hello floor. */
    static final String HELLO = "hello";

    /** The one path the hello floor answers ({@code HelloApplication.PATH} in support/floors). */
    static final String HELLO_PATH = "/internal/v1/hello";

    /** The property naming the check service the bare gateway routes to ({@code BareGatewayProperties}). */
    static final String CHECK_URI_PROPERTY = "floor.bare.check-uri";

    /**
     * The first JDK whose JVM knows {@code -XX:+UseCompactObjectHeaders} as a product flag (JEP 519), as in the
     * launcher's {@code Specs}.
     */
    private static final int COMPACT_HEADERS_SINCE = 25;

    private static final String READINESS = "/actuator/health/readiness";

    private final String floor;
    private final Process process;
    private final int port;
    private final int managementPort;
    private final Path log;

    private FloorProcess(String floor, Process process, int port, int managementPort, Path log) {
        this.floor = floor;
        this.process = process;
        this.port = port;
        this.managementPort = managementPort;
        this.log = log;
    }

    /**
     * The JVM flags of a floor: the product gateway's for the bare gateway (the launcher's
     * {@code Specs.gatewayJvmOptions}: 384 MB, the throughput collector, compact object headers where the JVM has
     * them, one event loop), the check service's for hello ({@code Specs.CHECK_JVM_OPTIONS}: 768 MB from the start,
     * pre-touched); both with the launcher's {@code -XX:+ExitOnOutOfMemoryError}.
     *
     * @param floor       {@link #BARE_GATEWAY} or {@link #HELLO}
     * @param javaFeature the feature version of the JVM that runs it
     */
    static List<String> jvmOptions(String floor, int javaFeature) {
        List<String> options = new ArrayList<>();
        switch (floor) {
            case BARE_GATEWAY -> {
                options.addAll(List.of("-Xms64m", "-Xmx384m", "-XX:+ExitOnOutOfMemoryError", "-XX:+UseParallelGC"));
                if (javaFeature >= COMPACT_HEADERS_SINCE) {
                    options.add("-XX:+UseCompactObjectHeaders");
                }
                options.add("-Dreactor.netty.ioWorkerCount=1");
            }
            case HELLO -> options.addAll(List.of("-Xms768m", "-Xmx768m", "-XX:+ExitOnOutOfMemoryError",
                    "-XX:+AlwaysPreTouch"));
            default -> throw new IllegalArgumentException("no floor '" + floor + "'; known: " + BARE_GATEWAY + ", "
                    + HELLO);
        }
        return List.copyOf(options);
    }

    /**
     * The floors jar of this checkout: {@code support/floors/target/floors-<version>-exec.jar}, found from where this
     * class was loaded ({@code support/benchmarks/target/loadgen.jar}, or {@code support/benchmarks/target/classes}
     * in tests), so HopBench finds it from any working directory.
     *
     * @throws IllegalStateException when there is none; the message says how to build it or name one
     */
    static Path defaultJar() {
        Path here;
        try {
            here = Path.of(FloorProcess.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | RuntimeException e) {
            throw new IllegalStateException("cannot tell where loadgen runs from; pass --floors-jar", e);
        }
        // <repository>/support/benchmarks/target/<jar or classes> → <repository>/support/floors/target
        Path target = here.toAbsolutePath().getParent().getParent().getParent().resolve("floors").resolve("target");
        String hint = "; build it (./mvnw -pl support/benchmarks -am package -DskipTests builds it too) or pass "
                + "--floors-jar";
        try (var files = Files.list(target)) {
            return files.filter(p -> p.getFileName().toString().endsWith("-exec.jar")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no floors jar in " + target + hint));
        } catch (IOException e) {
            throw new IllegalStateException("no " + target + hint, e);
        }
    }

    /**
     * Starts {@code floor} from {@code jar} on two free loopback ports; does not wait for it ({@link #awaitReady}).
     *
     * @param properties   Spring properties passed as command-line arguments, e.g. {@link #CHECK_URI_PROPERTY}
     * @param serviceToken the service credential, {@code GRAPH_SERVICE_TOKEN} of the child
     * @param logDir       where its output goes, {@code <floor>-<port>.log}
     * @throws UncheckedIOException when the JVM cannot be started or the log not created
     */
    static FloorProcess start(Path jar, String floor, Map<String, String> properties, String serviceToken,
                              Path logDir) {
        int[] ports = freePorts(2);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions(floor, Runtime.version().feature()));
        command.addAll(List.of("-jar", jar.toString(), floor));
        command.add("--server.port=" + ports[0]);
        command.add("--management.server.port=" + ports[1]);
        properties.forEach((k, v) -> command.add("--" + k + "=" + v));
        try {
            Files.createDirectories(logDir);
            Path log = logDir.resolve(floor + "-" + ports[0] + ".log");
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().put("GRAPH_SERVICE_TOKEN", serviceToken);
            return new FloorProcess(floor, pb.start(), ports[0], ports[1], log);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the " + floor + " floor from " + jar, e);
        }
    }

    /** {@code n} distinct ports free on 127.0.0.1 a moment ago (all held open together, so none is given twice). */
    private static int[] freePorts(int n) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        } finally {
            for (ServerSocket s : sockets) {
                try {
                    s.close();
                } catch (IOException e) {
                    // the port is released with the socket either way
                }
            }
        }
    }

    /**
     * Waits until the floor's readiness probe answers UP.
     *
     * @throws IllegalStateException when it exits first or is not ready within {@code timeout}; the message has the
     *                               log's tail. The caller still closes it.
     */
    void awaitReady(Duration timeout) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + READINESS))
                .timeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the " + floor + " floor exited with " + process.exitValue()
                        + "; " + log + ":\n" + tail());
            }
            try {
                HttpResponse<String> r = http.send(ready, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 && r.body().contains("\"UP\"")) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            try {
                process.waitFor(250, TimeUnit.MILLISECONDS); // the poll interval, which also notices an early exit
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        throw new IllegalStateException("the " + floor + " floor was not ready within " + timeout + "; " + log
                + ":\n" + tail());
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** {@code http://127.0.0.1:<port>}: the floor's API. */
    URI baseUri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** The floor as a process whose CPU time HopBench charges to its target, named {@code name}. */
    Target.ServerProcess serverProcess(String name) {
        return new Target.ServerProcess(name, process.pid());
    }

    /** Whether the JVM still runs. */
    boolean isAlive() {
        return process.isAlive();
    }

    /** Its output. */
    Path log() {
        return log;
    }

    @Override
    public String toString() {
        return floor + " floor on " + baseUri() + " (pid " + process.pid() + ", log " + log + ")";
    }

    /** Stops the floor: SIGTERM, then SIGKILL after 20 s; returns once it has exited. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
