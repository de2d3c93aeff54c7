package dev.socialgraph.launcher;

import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Notices that a process which is not the launcher's child has exited: a PostgreSQL postmaster (started by
 * {@code pg_ctl}, which detaches it) or a {@code redis-server} that embedded-redis started. The JDK's own
 * {@link ProcessHandle#onExit()} polls such processes too, but backs off to one look every 5 s; a store should be
 * restarted as promptly as a service, so this looks every {@link #POLL_MILLIS} ms.
 *
 * <p>A process that is not the launcher's child reports no exit code: the exit completes with {@link #UNKNOWN_EXIT}.
 * A pid reused by another process is told apart by its start time.
 */
final class ProcessWatch {

    /** The exit code recorded for a process whose code the launcher cannot learn ({@code ./graph status}: "exited"). */
    static final int UNKNOWN_EXIT = -1;

    /** How often a watched process is looked at, in milliseconds. */
    static final long POLL_MILLIS = 250;

    private static final ScheduledExecutorService POLLER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "graph-process-watch");
        t.setDaemon(true);
        return t;
    });

    private ProcessWatch() {
    }

    /**
     * The process {@code pid} as a supervised child.
     *
     * @param pid a process id; a pid that is not running gives a child that has exited already
     * @return the child, whose exit completes with {@link #UNKNOWN_EXIT} once the process is gone
     */
    static Supervisor.Child of(long pid) {
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        Optional<ProcessHandle> handle = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (handle.isEmpty()) {
            exit.complete(UNKNOWN_EXIT);
            return new Supervisor.Child(pid, exit);
        }
        Optional<Instant> started = handle.get().info().startInstant();
        ScheduledFuture<?>[] poll = new ScheduledFuture<?>[1];
        poll[0] = POLLER.scheduleWithFixedDelay(() -> {
            Optional<ProcessHandle> now = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
            boolean gone = now.isEmpty() || (started.isPresent() && !started.equals(now.get().info().startInstant()))
                    || zombie(pid);
            if (gone) {
                exit.complete(UNKNOWN_EXIT);
                poll[0].cancel(false);
            }
        }, POLL_MILLIS, POLL_MILLIS, TimeUnit.MILLISECONDS);
        return new Supervisor.Child(pid, exit);
    }

    /**
     * Whether the process has exited but was not reaped yet (state {@code Z} in {@code /proc/<pid>/stat}): in a
     * container whose first process does not reap orphans, a killed postmaster stays a zombie, which the JDK counts
     * as alive.
     */
    static boolean zombie(long pid) {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(pid), "stat"));
            int end = stat.lastIndexOf(')'); // the command name, in parentheses, may hold spaces
            return end > 0 && end + 2 < stat.length() && stat.charAt(end + 2) == 'Z';
        } catch (java.io.IOException | RuntimeException e) {
            return false; // not Linux, or gone (then isAlive says so)
        }
    }
}
