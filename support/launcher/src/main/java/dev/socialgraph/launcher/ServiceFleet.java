package dev.socialgraph.launcher;

import dev.socialgraph.localruntime.ChildProcesses;
import dev.socialgraph.localruntime.ClassDataSharing;
import dev.socialgraph.localruntime.ServiceProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The services of a local fleet, each a child JVM run from its module's exec jar
 * ({@code <home>/<module>/target/<module>-<version>-exec.jar}) with its output appended to {@code logs/<name>.log}
 * and its pid in {@code run/<name>.pid}. Settings go in as Spring command-line properties, secrets as environment
 * variables (so they do not show in {@code ps}).
 */
public final class ServiceFleet implements Supervisor.Services, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ServiceFleet.class);

    /** How long a service may take to shut down gracefully (two 20 s phases) before it is killed. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(45);

    /**
     * One service to run.
     *
     * @param name       its name in logs, pid files and ports ({@code follow-check-service-2} for a second instance)
     * @param module     its module directory
     * @param port       HTTP port on 127.0.0.1
     * @param heap       maximum heap, e.g. {@code 512m}
     * @param properties Spring properties passed as {@code --key=value}; a service's management port (actuator) is
     *                   its {@code management.server.port}
     * @param jvmOptions this service's own JVM options, before {@code GRAPH_JAVA_OPTS} (which can override them)
     */
    record Spec(String name, String module, int port, String heap, Map<String, String> properties,
                List<String> jvmOptions) {

        Spec {
            jvmOptions = List.copyOf(jvmOptions);
        }

        /** A service with no JVM options of its own. */
        Spec(String name, String module, int port, String heap, Map<String, String> properties) {
            this(name, module, port, heap, properties, List.of());
        }

        /**
         * Where the service's actuator answers: {@code management.server.port} of its properties, else its API port
         * (a process without a management port of its own).
         */
        int managementPort() {
            String management = properties.get(MANAGEMENT_PORT);
            return management != null ? Integer.parseInt(management) : port;
        }
    }

    /** The Spring property of a service's management port (actuator). */
    static final String MANAGEMENT_PORT = "management.server.port";

    /** A started service. */
    record Running(Spec spec, Process process) {
        String baseUrl() {
            return "http://127.0.0.1:" + spec.port();
        }
    }

    private final Path home;
    private final FleetDir dir;
    private final Map<String, String> environment;
    private final List<String> extraJvmOptions;
    private final List<Running> running = Collections.synchronizedList(new ArrayList<>());
    private final List<Running> ready = Collections.synchronizedList(new ArrayList<>());
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    /**
     * @param home            the repository (modules' {@code target/} directories)
     * @param dir             the data directory
     * @param environment     added to every service's environment (secrets)
     * @param extraJvmOptions appended to every service's JVM options ({@code GRAPH_JAVA_OPTS})
     */
    ServiceFleet(Path home, FleetDir dir, Map<String, String> environment, List<String> extraJvmOptions) {
        this.home = home;
        this.dir = dir;
        this.environment = Map.copyOf(environment);
        this.extraJvmOptions = List.copyOf(extraJvmOptions);
    }

    /**
     * Starts the services (without waiting for them).
     *
     * @throws IOException when a process cannot be started
     */
    void start(List<Spec> specs) throws IOException {
        for (Spec spec : specs) {
            launch(spec);
        }
    }

    /**
     * Starts one service again (the {@link Supervisor}'s restart), in place of its earlier process, which has exited.
     *
     * @throws IOException when the process cannot be started
     */
    @Override
    public Supervisor.Child start(Spec spec) throws IOException {
        return Supervisor.Child.of(launch(spec).process());
    }

    /** Whether the service's readiness probe answers UP (waits up to 2 s for the answer). */
    @Override
    public boolean ready(Spec spec) {
        return UP.equals(readiness(http, spec.managementPort()));
    }

    /**
     * The command line of a service: the JVM with the heap, the service's own JVM options and then
     * {@code GRAPH_JAVA_OPTS} (later options win), its jar (extracted, with a class-data sharing archive named by those
     * options: {@link ClassDataSharing}), its port and its properties.
     *
     * @param spec the service
     * @return the command, its first element the JVM
     */
    List<String> command(Spec spec) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> options = new ArrayList<>();
        options.add("-Xms64m");
        options.add("-Xmx" + spec.heap());
        options.add("-XX:+ExitOnOutOfMemoryError");
        options.addAll(spec.jvmOptions());
        options.addAll(extraJvmOptions);
        command.addAll(options);
        command.addAll(ClassDataSharing.jarArguments(ServiceProcess.execJar(home, spec.module()), options));
        command.add("--server.port=" + spec.port());
        spec.properties().forEach((k, v) -> command.add("--" + k + "=" + v));
        return command;
    }

    private Running launch(Spec spec) throws IOException {
        List<String> command = command(spec);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.log(spec.name()).toFile()));
        pb.environment().putAll(environment);
        Process p = pb.start();
        Running started = new Running(spec, p);
        synchronized (running) {
            running.removeIf(r -> r.spec().name().equals(spec.name()));
            ready.removeIf(r -> r.spec().name().equals(spec.name()));
            running.add(started);
        }
        dir.writePid(spec.name(), p.pid());
        log.info("{} starting on port {} (pid {}), log {}", spec.name(), spec.port(), p.pid(),
                dir.log(spec.name()));
        return started;
    }

    /**
     * Waits until every started service's readiness probe answers UP.
     *
     * @param timeout for all of them together
     * @throws IllegalStateException when one exits or is not ready in time; the message names it and its log
     */
    void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Running> waiting = new ArrayList<>(running);
        waiting.removeAll(ready);
        while (!waiting.isEmpty()) {
            for (var it = waiting.iterator(); it.hasNext(); ) {
                Running r = it.next();
                if (!r.process().isAlive()) {
                    throw new IllegalStateException(r.spec().name() + " exited with code " + r.process().exitValue()
                            + " during start-up; see " + dir.log(r.spec().name()) + ":\n" + tail(r.spec().name()));
                }
                if (ready(r)) {
                    log.info("{} ready", r.spec().name());
                    ready.add(r);
                    it.remove();
                }
            }
            if (waiting.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                Running r = waiting.get(0);
                throw new IllegalStateException(r.spec().name() + " not ready within " + timeout + "; see "
                        + dir.log(r.spec().name()) + ":\n" + tail(r.spec().name()));
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the services", e);
            }
        }
    }

    private boolean ready(Running r) {
        return ready(r.spec());
    }

    /** What {@link #readiness} answers for a ready service. */
    public static final String UP = "UP";

    /**
     * Asks a service's readiness probe.
     *
     * @param port the service's management port on 127.0.0.1 ({@link PortPlan#managementPort})
     * @return {@code UP} when it answers 200 with status UP, {@code DOWN (<http status>)} when it answers
     *     otherwise, {@code not answering} when nothing answers within 2 s
     */
    public static String readiness(HttpClient http, int port) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(
                            "http://127.0.0.1:" + port + "/actuator/health/readiness")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 && response.body().contains("\"UP\"") ? UP
                    : "DOWN (" + response.statusCode() + ")";
        } catch (IOException e) {
            return "not answering";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "not answering";
        }
    }

    /** The services' current processes. */
    List<Running> running() {
        synchronized (running) {
            return List.copyOf(running);
        }
    }

    private String tail(String name) {
        return ChildProcesses.tail(dir.log(name), 30);
    }

    /**
     * Stops the given services together (SIGTERM: graceful shutdown), killing those still alive after 45 s.
     */
    void stop(List<String> names) {
        List<Running> targets = new ArrayList<>();
        synchronized (running) {
            for (Running r : running) {
                if (names.contains(r.spec().name())) {
                    targets.add(r);
                }
            }
        }
        for (Running r : targets) {
            r.process().destroy();
        }
        long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
        for (Running r : targets) {
            try {
                long left = Math.max(1, deadline - System.nanoTime());
                if (!r.process().waitFor(left, TimeUnit.NANOSECONDS)) {
                    log.warn("{} did not stop within {}; killing it", r.spec().name(), STOP_TIMEOUT);
                    r.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                r.process().destroyForcibly();
            }
            running.remove(r);
            ready.remove(r);
            log.info("{} stopped", r.spec().name());
        }
    }

    /** Stops everything: the gateway first (no new requests), then the other services. */
    @Override
    public void close() {
        List<String> gateway = new ArrayList<>();
        List<String> rest = new ArrayList<>();
        for (Running r : running()) {
            (r.spec().name().equals(PortPlan.GATEWAY) ? gateway : rest).add(r.spec().name());
        }
        stop(gateway);
        stop(rest);
    }
}
