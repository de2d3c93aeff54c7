package dev.socialgraph.localruntime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One of the project's services running as its own JVM from its runnable jar
 * ({@code <module>/target/<module>-<version>-exec.jar}), on a free port, for tests that need several services at
 * once (each with its own classpath and {@code application.yml}, as in production). Output goes to
 * {@code target/<name>.log} of the calling module. (The launcher runs the same jars with its own supervision; it
 * shares {@link #execJar(Path, String)}.) Each process gets an API port and a management port (actuator), both free
 * ports on 127.0.0.1, and runs in the explicit {@code local} profile (the services' development secrets) unless the
 * properties name profiles of their own. Each runs with a class-data sharing archive ({@link ClassDataSharing}) made
 * by an earlier start of the same jar.
 */
public final class ServiceProcess implements AutoCloseable {

    /**
     * The service credential ({@code graph.service-token}) every service started here gets unless the properties
     * name one; the same value as the services' and the gateway's test configuration
     * ({@code src/test/resources/config/application.properties}), so in-process gateways and test clients reach
     * these processes by sending it as {@code X-Service-Token}.
     */
    public static final String SERVICE_TOKEN = "test-only-service-token-0123456789abcdef";

    /** The property holding the service credential. */
    public static final String SERVICE_TOKEN_PROPERTY = "graph.service-token";

    /** The property naming the active Spring profiles. */
    public static final String PROFILES_PROPERTY = "spring.profiles.active";

    /**
     * The profile whose {@code application-local.yml} holds the services' development secrets (follow-token secret,
     * cursor key, JWT secret); a service started outside it refuses to start without real ones.
     */
    public static final String LOCAL_PROFILE = "local";

    private final String name;
    private final List<String> command;
    private final Process process;
    private final int port;
    private final int managementPort;
    private final Path log;

    private ServiceProcess(String name, List<String> command, Process process, int port, int managementPort,
                           Path log) {
        this.name = name;
        this.command = List.copyOf(command);
        this.process = process;
        this.port = port;
        this.managementPort = managementPort;
        this.log = log;
    }

    /**
     * Starts {@code module}'s exec jar with {@code properties} as command-line arguments and waits until its
     * readiness probe answers UP.
     *
     * @param module     the service's module directory name, e.g. {@code follow-write-service}; its jar is looked up
     *                   in the repository root's {@code <module>/target} ({@link RepositoryRoot#find()}, so the
     *                   calling module may sit at any depth)
     * @param properties Spring properties, e.g. {@code graph.shards.*}; without {@code graph.service-token} the
     *                   service gets {@link #SERVICE_TOKEN}, without {@code spring.profiles.active} the
     *                   {@link #LOCAL_PROFILE}
     * @param startup    how long to wait for readiness
     * @throws IllegalStateException when the jar is missing (build the module first: {@code ./mvnw package}), the
     *                               process exits, or readiness does not come in time; the log's tail is included
     */
    public static ServiceProcess start(String module, Map<String, String> properties, Duration startup) {
        // A port picked free can be taken by another process before the service binds it (the suite starts brokers,
        // databases and services all along): such a start is tried again on other ports, a few times.
        for (int attempt = 1; ; attempt++) {
            try {
                return startOnce(module, properties, startup);
            } catch (PortTakenException e) {
                if (attempt == PORT_ATTEMPTS) {
                    throw new IllegalStateException(e.getMessage(), e);
                }
            }
        }
    }

    /** Starts tried when the picked port was taken before the service bound it. */
    static final int PORT_ATTEMPTS = 3;

    /** The service exited because a port it was given was taken in the meantime. */
    private static final class PortTakenException extends RuntimeException {
        PortTakenException(String message) {
            super(message);
        }
    }

    private static ServiceProcess startOnce(String module, Map<String, String> properties, Duration startup) {
        Path jar = execJar(RepositoryRoot.find(), module);
        int[] ports = FreePorts.pick(2); // two distinct ports
        int port = ports[0];
        int managementPort = ports[1];
        Path log = Path.of("target", module + "-" + port + ".log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // start fast: these JVMs live for one test class, and the suite starts each service dozens of times
        List<String> options = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1");
        command.addAll(options);
        command.addAll(ClassDataSharing.jarArguments(jar, options));
        command.add("--server.port=" + port);
        command.add("--management.server.port=" + managementPort);
        if (!properties.containsKey(SERVICE_TOKEN_PROPERTY)) {
            command.add("--" + SERVICE_TOKEN_PROPERTY + "=" + SERVICE_TOKEN);
        }
        if (!properties.containsKey(PROFILES_PROPERTY)) {
            command.add("--" + PROFILES_PROPERTY + "=" + LOCAL_PROFILE);
        }
        properties.forEach((k, v) -> command.add("--" + k + "=" + v));
        return launch(module, command, port, managementPort, log, ProcessBuilder.Redirect.to(log.toFile()), startup);
    }

    private static ServiceProcess launch(String module, List<String> command, int port, int managementPort, Path log,
                                         ProcessBuilder.Redirect output, Duration startup) {
        try {
            Files.createDirectories(log.getParent());
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output).start();
            ServiceProcess service = new ServiceProcess(module, command, process, port, managementPort, log);
            service.awaitReady(startup);
            return service;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + module, e);
        }
    }

    /**
     * Starts this service again, after it exited ({@link #kill()}, {@link #close()}), with the same properties on the
     * same two ports, as a supervisor restarts a crashed process: its clients find it where it was. Output is appended
     * to the same log.
     *
     * @param startup how long to wait for readiness
     * @return the new process
     * @throws IllegalStateException when this process still runs, or the new one exits or is not ready in time (its
     *                               log's tail included)
     */
    public ServiceProcess restart(Duration startup) {
        if (process.isAlive()) {
            throw new IllegalStateException(name + " still runs (pid " + process.pid() + "): stop it first");
        }
        return launch(name, command, port, managementPort, log, ProcessBuilder.Redirect.appendTo(log.toFile()),
                startup);
    }

    /** The HTTP port the service listens on (127.0.0.1). */
    public int port() {
        return port;
    }

    /** {@code http://127.0.0.1:<port>}: the API. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    /** The management port (actuator: probes, {@code /actuator/prometheus}) on 127.0.0.1. */
    public int managementPort() {
        return managementPort;
    }

    /** {@code http://127.0.0.1:<management port>}: the actuator's base, e.g. {@code + "/actuator/prometheus"}. */
    public String managementUrl() {
        return "http://127.0.0.1:" + managementPort;
    }

    private void awaitReady(Duration startup) {
        ChildProcesses.Readiness readiness = ChildProcesses.awaitReady(process,
                URI.create(managementUrl() + "/actuator/health/readiness"), startup, Duration.ofMillis(200));
        switch (readiness) {
            case READY -> {
            }
            case EXITED -> {
                String tail = ChildProcesses.tail(log, 40);
                String message = name + " exited with " + process.exitValue() + "; log:\n" + tail;
                throw tail.contains("was already in use") ? new PortTakenException(message)
                        : new IllegalStateException(message);
            }
            case TIMED_OUT -> {
                close();
                throw new IllegalStateException(name + " not ready within " + startup + "; log:\n"
                        + ChildProcesses.tail(log, 40));
            }
        }
    }

    /**
     * Kills the service at once (SIGKILL: no shutdown hook, no graceful stop, no lease given up), as a crash or an
     * OOM killer would, and waits for it to exit.
     */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the service (SIGTERM, graceful shutdown; killed after 30 s). */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The runnable jar of a module, {@code <repository>/<module>/target/<module>-<version>-exec.jar}; shared with the
     * launcher, which runs the same jars.
     *
     * @param repository the repository root ({@link RepositoryRoot#find()} from a module's tests)
     * @param module     the module directory name, e.g. {@code follow-write-service}
     * @return the jar
     * @throws IllegalStateException when the module has not been packaged; the message says how to build it
     */
    public static Path execJar(Path repository, String module) {
        Path target = repository.resolve(module).resolve("target");
        String build = "; build it first: ./mvnw -pl " + module + " -am package -DskipTests";
        try (var files = Files.list(target)) {
            return files.filter(p -> p.getFileName().toString().endsWith("-exec.jar")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no runnable jar in " + target.toAbsolutePath() + build));
        } catch (IOException e) {
            throw new IllegalStateException("no " + target.toAbsolutePath() + build, e);
        }
    }
}
