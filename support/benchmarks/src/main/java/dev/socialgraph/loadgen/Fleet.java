package dev.socialgraph.loadgen;

import dev.socialgraph.loadgen.Target.ServerProcess;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * What {@code ./graph up} leaves in its data directory: {@code run/<name>.pid} for every process of the fleet,
 * {@code run/ports.properties}, the gateway's JWT secret in {@code jwt-secret} and the services' credential in
 * {@code service-token}. Everything is optional here; the command line fills in what is missing.
 */
record Fleet(List<ServerProcess> processes, Properties ports, Optional<String> jwtSecret,
             Optional<String> serviceToken) {

    /**
     * Reads {@code pidDir}'s {@code *.pid} and {@code ports.properties}, and {@code dataDir/jwt-secret} and
     * {@code dataDir/service-token}.
     */
    static Fleet read(Path dataDir, Path pidDir) {
        List<ServerProcess> processes = new ArrayList<>();
        Properties ports = new Properties();
        if (Files.isDirectory(pidDir)) {
            try (DirectoryStream<Path> files = Files.newDirectoryStream(pidDir, "*.pid")) {
                for (Path f : files) {
                    String name = f.getFileName().toString().replaceFirst("\\.pid$", "");
                    String text = Files.readString(f).trim();
                    if (text.matches("\\d+")) {
                        processes.add(new ServerProcess(name, Long.parseLong(text)));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + pidDir, e);
            }
            Path portsFile = pidDir.resolve("ports.properties");
            if (Files.isReadable(portsFile)) {
                try (Reader r = Files.newBufferedReader(portsFile)) {
                    ports.load(r);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read " + portsFile, e);
                }
            }
        }
        processes.sort((a, b) -> a.name().compareTo(b.name()));
        return new Fleet(List.copyOf(processes), ports, secretFile(dataDir.resolve("jwt-secret")),
                secretFile(dataDir.resolve("service-token")));
    }

    private static Optional<String> secretFile(Path file) {
        if (!Files.isReadable(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Files.readString(file).trim()).filter(s -> !s.isEmpty());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /**
     * The port of {@code name} from {@code ports.properties} (key {@code name}, {@code name.port} or
     * {@code name-port}), else {@code fallback}.
     */
    int port(String name, int fallback) {
        for (String key : List.of(name, name + ".port", name + "-port", name.replace('-', '.') + ".port")) {
            String v = ports.getProperty(key);
            if (v != null && v.trim().matches("\\d+")) {
                return Integer.parseInt(v.trim());
            }
        }
        return fallback;
    }
}
