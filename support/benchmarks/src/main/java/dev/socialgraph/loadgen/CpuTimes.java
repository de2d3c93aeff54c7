package dev.socialgraph.loadgen;

import dev.socialgraph.loadgen.Target.ServerProcess;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * CPU time of processes from Linux's {@code /proc/<pid>/stat} (proc(5)): {@code utime + stime} of the process, plus
 * {@code cutime + cstime} (children it has already reaped), plus the same of its living descendants that are not
 * measured themselves. So the PostgreSQL postmaster's entry covers its backends, and a launcher's entry does not
 * count the services it started when those are measured on their own. Values are clock ticks
 * ({@code getconf CLK_TCK}, 100 on every mainstream Linux), converted to seconds. Elsewhere than Linux every reading
 * is empty and the report says so.
 */
final class CpuTimes {

    private static final Path PROC = Path.of("/proc");
    private static final double TICKS_PER_SECOND = ticksPerSecond();

    private CpuTimes() {
    }

    /** Whether this machine has {@code /proc} to read. */
    static boolean available() {
        return Files.isReadable(PROC.resolve("self/stat"));
    }

    /**
     * CPU seconds used so far by each of {@code processes} (with descendants, see the class comment), keyed by the
     * process's name; several processes of one name are summed. A process that is gone is left out.
     */
    static Map<String, Double> sample(List<ServerProcess> processes) {
        Map<String, Double> seconds = new HashMap<>();
        for (Map.Entry<ServerProcess, Double> e : sampleEach(processes).entrySet()) {
            seconds.merge(e.getKey().name(), e.getValue(), Double::sum);
        }
        return seconds;
    }

    /**
     * CPU seconds used so far by each of {@code processes} that is still running (with descendants, see the class
     * comment); a process that is gone is absent, so a difference of two samples can leave it out instead of
     * going negative.
     */
    static Map<ServerProcess, Double> sampleEach(List<ServerProcess> processes) {
        Map<Long, long[]> all = readAll(); // pid → {ppid, own ticks}
        Map<Long, List<Long>> children = new HashMap<>();
        for (Map.Entry<Long, long[]> e : all.entrySet()) {
            children.computeIfAbsent(e.getValue()[0], k -> new ArrayList<>()).add(e.getKey());
        }
        Set<Long> measured = new HashSet<>();
        for (ServerProcess p : processes) {
            measured.add(p.pid());
        }
        Map<ServerProcess, Double> seconds = new HashMap<>();
        for (ServerProcess p : processes) {
            if (all.containsKey(p.pid())) {
                seconds.put(p, ticks(p.pid(), all, children, measured, true) / TICKS_PER_SECOND);
            }
        }
        return seconds;
    }

    /** CPU seconds this JVM (the load generator) has used so far. */
    static double self() {
        long[] own = read(PROC.resolve("self/stat"));
        return own == null ? 0 : own[1] / TICKS_PER_SECOND;
    }

    private static long ticks(long pid, Map<Long, long[]> all, Map<Long, List<Long>> children, Set<Long> measured,
                              boolean root) {
        long[] entry = all.get(pid);
        if (entry == null || (!root && measured.contains(pid))) {
            return 0;
        }
        long sum = entry[1];
        for (long child : children.getOrDefault(pid, List.of())) {
            sum += ticks(child, all, children, measured, false);
        }
        return sum;
    }

    private static Map<Long, long[]> readAll() {
        Map<Long, long[]> all = new HashMap<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC, "[0-9]*")) {
            for (Path dir : dirs) {
                long[] entry = read(dir.resolve("stat"));
                if (entry != null) {
                    all.put(Long.parseLong(dir.getFileName().toString()), entry);
                }
            }
        } catch (IOException e) {
            return all;
        }
        return all;
    }

    /** {ppid, utime + stime + cutime + cstime} from a stat file, or null when unreadable. */
    static long[] read(Path stat) {
        try {
            return parse(Files.readString(stat));
        } catch (IOException | RuntimeException e) {
            return null; // the process ended between listing and reading
        }
    }

    /** Parses one {@code /proc/<pid>/stat} line; the command name may hold spaces and parentheses. */
    static long[] parse(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        // f[0] is field 3 (state): ppid is field 4, utime..cstime are fields 14..17.
        long ppid = Long.parseLong(f[1]);
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        return new long[] {ppid, ticks};
    }

    private static double ticksPerSecond() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            p.waitFor();
            return Double.parseDouble(out);
        } catch (IOException | NumberFormatException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }

    /** The 1-minute load average from {@code /proc/loadavg}, or NaN. */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(PROC.resolve("loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }
}
