package dev.socialgraph.localruntime;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A single-node KRaft broker in a JVM of its own ({@link KraftBroker} run by {@link #main}), for fault tests that
 * need a <em>hung</em> broker: {@link #pause()} stops the process with {@code SIGSTOP}, so its sockets stay open and
 * every request waits with no answer (what a stuck broker or a network partition looks like to a client), and
 * {@link #resume()} continues it with {@code SIGCONT}. An in-process broker cannot be paused like that without
 * pausing the test. POSIX only ({@code kill} on the {@code PATH}).
 */
public final class KafkaBrokerProcess implements AutoCloseable {

    private static final String READY = "KAFKA-BROKER-READY";

    private final Process process;
    private final int port;
    private final Path logDir;

    private KafkaBrokerProcess(Process process, int port, Path logDir) {
        this.process = process;
        this.port = port;
        this.logDir = logDir;
    }

    /**
     * Starts a broker on free ports with a fresh log directory and waits until it accepts clients.
     *
     * @param startup how long to wait
     * @return the running broker
     * @throws IllegalStateException when it exits or is not ready in time
     */
    public static KafkaBrokerProcess start(Duration startup) {
        int[] ports = FreePorts.pick(2);
        try {
            Path logDir = Files.createTempDirectory("kafka-broker-process-");
            Path log = logDir.resolveSibling(logDir.getFileName() + ".log");
            List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx512m", "-cp", System.getProperty("java.class.path"), KafkaBrokerProcess.class.getName(),
                    Integer.toString(ports[0]), Integer.toString(ports[1]), logDir.toString());
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            KafkaBrokerProcess broker = new KafkaBrokerProcess(process, ports[0], logDir);
            broker.awaitReady(startup, log);
            return broker;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start a Kafka broker process", e);
        }
    }

    private void awaitReady(Duration startup, Path log) {
        CountDownLatch ready = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                 var file = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
                for (String line; (line = out.readLine()) != null; ) {
                    file.write(line);
                    file.newLine();
                    file.flush();
                    if (line.contains(READY)) {
                        ready.countDown();
                    }
                }
            } catch (IOException e) {
                // the process ended
            } finally {
                ready.countDown(); // wakes the waiter, which then sees the process gone
            }
        }, "kafka-broker-process-output");
        reader.setDaemon(true);
        reader.start();
        boolean started;
        try {
            started = ready.await(startup.toMillis(), TimeUnit.MILLISECONDS) && process.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            started = false;
        }
        if (!started) {
            close();
            throw new IllegalStateException("Kafka broker process not ready within " + startup + "; see " + log);
        }
    }

    /** {@code bootstrap.servers} of the broker, e.g. {@code 127.0.0.1:41091}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** Stops the broker's process ({@code SIGSTOP}): connections stay open and nothing is answered. */
    public void pause() {
        signal("STOP");
    }

    /** Continues a paused broker ({@code SIGCONT}). */
    public void resume() {
        signal("CONT");
    }

    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Continues the process if paused, then kills it and deletes its log directory. */
    @Override
    public void close() {
        if (process.isAlive()) {
            signal("CONT");
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Directories.deleteRecursively(logDir);
    }

    /**
     * The broker process: {@code port controllerPort logDir}. Prints a ready line once the broker accepts clients,
     * then runs until killed.
     *
     * @param args the client port, the controller port and the log directory
     * @throws InterruptedException never in practice: it waits forever
     */
    public static void main(String[] args) throws InterruptedException {
        KraftBroker broker = KraftBroker.builder().port(Integer.parseInt(args[0]))
                .controllerPort(Integer.parseInt(args[1])).logDir(Path.of(args[2])).build().start();
        Runtime.getRuntime().addShutdownHook(new Thread(broker::close));
        System.out.println(READY);
        System.out.flush();
        Thread.currentThread().join();
    }
}
