package dev.socialgraph.deploy;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.socialgraph.localruntime.RepositoryRoot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The repository this module checks, and the external tools some checks run: {@code kubectl} (renders Kustomize),
 * {@code promtool} (Prometheus rules) and {@code redocly} (lints the OpenAPI document). A tool is taken from the
 * environment variable {@code KUBECTL} / {@code PROMTOOL} / {@code REDOCLY}, else from the {@code PATH}. Without it the checks that need it are skipped, except on CI
 * ({@code CI=true}), where {@code .ci/run} provides them and a missing tool fails the build.
 */
final class Repo {

    /** The repository root (the directory with mvnw and the root pom, above this module's). */
    static final Path ROOT = RepositoryRoot.find();

    private Repo() {
    }

    static Path path(String relative) {
        return ROOT.resolve(relative);
    }

    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every YAML document in {@code text}, with anchors, aliases and merge keys resolved; empty ones skipped. */
    static List<Map<String, Object>> yamlDocuments(String text) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        List<Map<String, Object>> documents = new ArrayList<>();
        for (Object document : new Yaml(options).loadAll(text)) {
            if (document != null) {
                @SuppressWarnings("unchecked")
                Map<String, Object> map = (Map<String, Object>) document;
                documents.add(map);
            }
        }
        return documents;
    }

    static Map<String, Object> yaml(Path file) {
        List<Map<String, Object>> documents = yamlDocuments(read(file));
        if (documents.size() != 1) {
            throw new IllegalArgumentException(file + " holds " + documents.size() + " YAML documents, expected 1");
        }
        return documents.get(0);
    }

    /**
     * The executable {@code name}, or a skipped test when it is absent outside CI.
     *
     * @param name        {@code kubectl}, {@code promtool} or {@code redocly}
     * @param environment variable that may name it explicitly
     */
    static Path tool(String name, String environment) {
        Optional<Path> found = findTool(name, environment);
        if (found.isEmpty() && "true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new AssertionError(name + " is needed on CI (set " + environment + " or put it on the PATH; "
                    + ".ci/run installs it)");
        }
        assumeTrue(found.isPresent(), name + " not found (" + environment + " or PATH): check skipped");
        return found.get();
    }

    static Optional<Path> findTool(String name, String environment) {
        String explicit = System.getenv(environment);
        if (explicit != null && !explicit.isBlank()) {
            return Optional.of(Path.of(explicit)).filter(Files::isExecutable);
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                return Optional.of(Path.of(dir, name));
            }
        }
        return Optional.empty();
    }

    /** Result of {@link #run}: exit code and the merged stdout and stderr. */
    record Run(int exitCode, String output) {
    }

    /** Runs {@code command} in {@code directory}, at most 2 minutes. */
    static Run run(Path directory, List<String> command) {
        try {
            Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                    .start();
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError(command + " did not finish in 2 minutes");
            }
            return new Run(process.exitValue(), output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
