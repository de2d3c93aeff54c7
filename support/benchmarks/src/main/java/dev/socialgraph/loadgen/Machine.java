package dev.socialgraph.loadgen;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** One line describing the machine a run measured: cores, memory, CPU model, operating system. */
final class Machine {

    private Machine() {
    }

    static String describe() {
        String cpu = "unknown CPU";
        String memory = "unknown memory";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    cpu = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("\\D", ""));
                    memory = String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: keep the placeholders
        }
        return Runtime.getRuntime().availableProcessors() + " cores (" + cpu + "), " + memory + ", "
                + System.getProperty("os.name") + " " + System.getProperty("os.version");
    }
}
