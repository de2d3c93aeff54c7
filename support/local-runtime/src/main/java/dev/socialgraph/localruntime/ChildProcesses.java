package dev.socialgraph.localruntime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What every caller that starts one of the project's Spring Boot applications as a child JVM needs (the test fleets'
 * {@link ServiceProcess}, the benchmarks' floors, the launcher): waiting for its readiness probe while noticing an
 * early exit, and the last lines of its log for the error message.
 */
public final class ChildProcesses {

    /** How a wait for readiness ended. */
    public enum Readiness {
        /** The probe answered 200 with {@code "UP"}. */
        READY,
        /** The process exited first ({@link Process#exitValue()} says how). */
        EXITED,
        /** Neither within the wait. */
        TIMED_OUT
    }

    private ChildProcesses() {
    }

    /**
     * Polls {@code probe} (an actuator readiness URL) every {@code pollInterval} until it answers 200 with
     * {@code "UP"}, the process exits, or {@code timeout} passes; connection failures count as "not yet".
     *
     * @param process      the child
     * @param probe        e.g. {@code http://127.0.0.1:<management port>/actuator/health/readiness}
     * @param timeout      the longest wait
     * @param pollInterval the pause between probes, which also notices an early exit at once
     * @return how the wait ended
     * @throws IllegalStateException when the calling thread is interrupted (its flag set again)
     */
    public static Readiness awaitReady(Process process, URI probe, Duration timeout, Duration pollInterval) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest ready = HttpRequest.newBuilder(probe).timeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    return Readiness.EXITED;
                }
                try {
                    HttpResponse<String> r = http.send(ready, HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200 && r.body().contains("\"UP\"")) {
                        return Readiness.READY;
                    }
                } catch (IOException e) {
                    // not listening yet
                }
                process.waitFor(pollInterval.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + probe, e);
        }
        return process.isAlive() ? Readiness.TIMED_OUT : Readiness.EXITED;
    }

    /**
     * The last lines of a log, for an error message about the process that wrote it.
     *
     * @param file  a log file
     * @param lines how many lines at most
     * @return the lines joined by newlines, or {@code (no log: <why>)} when the file cannot be read
     */
    public static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
