package dev.socialgraph.launcher;

import dev.socialgraph.localruntime.ChildProcesses;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet's local Kafka broker as a child process of the launcher: a single-node KRaft broker (test-support's
 * {@code KraftBroker}, Kafka's own {@code KafkaRaftServer}) run by the launcher's own jar as {@code graph broker}.
 *
 * <p>A process of its own, not a part of the launcher's JVM, so that the broker can crash, be killed or be paused
 * like any other part of the fleet while the launcher goes on supervising: the {@link Supervisor} restarts it with
 * the services' back-off ({@link #spec()}, {@link #restart()}, {@link #ready()}). Its log directory ({@code kafka/})
 * outlives the process, so topics, records and committed offsets survive a restart; after a {@code kill -9} Kafka
 * recovers the log segments that were not closed cleanly. The client port and the controller port stay the same,
 * so the services' clients reconnect on their own.
 *
 * <p>Its output goes to {@code logs/kafka.log}, its pid to {@code run/kafka.pid}. Thread-safe.
 */
public final class LocalBroker implements SupervisedStore {

    private static final Logger log = LoggerFactory.getLogger(LocalBroker.class);

    /** The broker's name in {@code run/}, {@code logs/} and {@code ./graph status}. */
    public static final String NAME = PortPlan.KAFKA;

    /** The broker JVM's maximum heap: a single-node broker with one topic of 12 partitions needs little. */
    static final String HEAP = "512m";

    /** How long a graceful stop ({@code SIGTERM}: Kafka's controlled shutdown) may take before the process is killed. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

    private final FleetDir dir;
    private final int port;
    private final int controllerPort;
    private final int partitions;
    private Process process;

    private LocalBroker(FleetDir dir, int port, int controllerPort, int partitions) {
        this.dir = dir;
        this.port = port;
        this.controllerPort = controllerPort;
        this.partitions = partitions;
    }

    /**
     * Starts the broker process and waits until it answers clients.
     *
     * @param dir        the data directory ({@code kafka/} holds the log)
     * @param ports      the fleet's ports ({@link PortPlan#KAFKA}, {@link PortPlan#KAFKA_CONTROLLER})
     * @param partitions the default partition count of topics the broker creates itself
     * @param timeout    how long to wait for it
     * @return the running broker
     * @throws IllegalStateException when the process exits or does not answer within the timeout; the message
     *     holds the end of its log
     * @throws IOException           when the process cannot be started
     */
    static LocalBroker start(FleetDir dir, PortPlan ports, int partitions, Duration timeout) throws IOException {
        LocalBroker broker = new LocalBroker(dir, ports.port(PortPlan.KAFKA), ports.port(PortPlan.KAFKA_CONTROLLER),
                partitions);
        Process p = broker.launch();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!broker.ready()) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                String why = p.isAlive() ? "did not answer within " + timeout : "exited with code " + p.exitValue();
                broker.close();
                throw new IllegalStateException("the Kafka broker " + why + "; see " + dir.log(NAME) + ":\n"
                        + ChildProcesses.tail(dir.log(NAME), 30));
            }
            sleep(Duration.ofMillis(250));
        }
        return broker;
    }

    /** {@code 127.0.0.1:<port>}, the services' {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** How the {@link Supervisor} knows the broker: its name, port and heap (no Spring properties). */
    @Override
    public ServiceFleet.Spec spec() {
        return new ServiceFleet.Spec(NAME, "launcher", port, HEAP, Map.of());
    }

    /** The current process, for the {@link Supervisor} to watch. */
    @Override
    public synchronized Supervisor.Child child() {
        return Supervisor.Child.of(process);
    }

    /**
     * Starts the broker again in place of its earlier process, which has exited (the supervisor's restart).
     *
     * @throws IOException when the process cannot be started
     */
    @Override
    public synchronized Supervisor.Child restart() throws IOException {
        return Supervisor.Child.of(launch());
    }

    /** Whether the broker answers a client now (see {@link #ready(String)}). */
    @Override
    public boolean ready() {
        return ready(bootstrapServers());
    }

    /**
     * Whether a Kafka broker answers a client: its cluster metadata arrives within 2 s.
     *
     * @param bootstrapServers {@code host:port[,host:port]}
     * @return {@code true} when it does
     */
    public static boolean ready(String bootstrapServers) {
        return ready(bootstrapServers, Duration.ofSeconds(2));
    }

    /**
     * Whether a Kafka broker answers a client within {@code timeout}. A process that has not used a Kafka client yet
     * (a {@code ./graph status}) loads and starts one inside the wait, which on a loaded machine takes seconds by
     * itself: such a caller gives more time than a supervisor whose client classes are loaded.
     *
     * @param bootstrapServers {@code host:port[,host:port]}
     * @param timeout          how long the cluster metadata may take, connection included
     * @return {@code true} when it arrives in time
     */
    public static boolean ready(String bootstrapServers, Duration timeout) {
        // Kafka loads its classes through the thread's context class loader. The supervisor's thread is started from
        // the JDK's process-reaper thread, whose loader cannot see the classes nested in the launcher's jar, so the
        // client would fail to load there: use the loader that loaded Kafka for the length of the call.
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(Admin.class.getClassLoader());
        try {
            return answers(bootstrapServers, timeout);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    private static boolean answers(String bootstrapServers, Duration timeout) {
        int millis = (int) timeout.toMillis();
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, millis);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis);
        config.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        try (Admin admin = Admin.create(config)) {
            return !admin.describeCluster().nodes().get(millis, TimeUnit.MILLISECONDS).isEmpty();
        } catch (ExecutionException | TimeoutException | RuntimeException | LinkageError e) {
            log.debug("Kafka at {} does not answer: {}", bootstrapServers, e.toString());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private synchronized Process launch() throws IOException {
        List<String> command = new ArrayList<>(launcherCommand(System.getProperty("java.class.path"),
                List.of("-Xms64m", "-Xmx" + HEAP, "-XX:+ExitOnOutOfMemoryError")));
        command.addAll(List.of("broker", "--port", Integer.toString(port),
                "--controller-port", Integer.toString(controllerPort),
                "--log-dir", dir.kafka().toAbsolutePath().toString(),
                "--partitions", Integer.toString(partitions)));
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.log(NAME).toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        dir.writePid(NAME, process.pid());
        log.info("Kafka broker starting on {} (pid {}), log {}", bootstrapServers(), process.pid(), dir.log(NAME));
        return process;
    }

    /**
     * The command line that runs this launcher again with other arguments: {@code java <options> -jar <launcher jar>}
     * when it runs from its jar (as {@code ./graph} runs it), else {@code java <options> -cp <classpath>
     * GraphLauncher}.
     *
     * @param classPath  this JVM's {@code java.class.path}: the launcher's jar alone under {@code java -jar}
     * @param jvmOptions options for the new JVM
     * @return the command, the launcher's arguments still to be added
     */
    static List<String> launcherCommand(String classPath, List<String> jvmOptions) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        if (classPath.endsWith(".jar") && !classPath.contains(File.pathSeparator)) {
            command.add("-jar");
            command.add(classPath);
        } else {
            command.add("-cp");
            command.add(classPath);
            command.add(GraphLauncher.class.getName());
        }
        return command;
    }

    /**
     * Stops the broker gracefully ({@code SIGTERM}, Kafka's controlled shutdown), killing it after 60 s. Call it after
     * supervision has stopped, or the supervisor starts it again.
     */
    @Override
    public synchronized void close() {
        if (process == null || !process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("the Kafka broker did not stop within {}; killing it", STOP_TIMEOUT);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        log.info("Kafka broker stopped");
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the Kafka broker", e);
        }
    }
}
