package dev.socialgraph.deploy;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.socialgraph.localruntime.RepositoryRoot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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

    /** The script that generates a local deployment's secrets, relative to the root. */
    static final String LOCAL_SECRETS_SCRIPT = "deploy/local-secrets.sh";
    /** The name of the local overlay's generated env file ({@code deploy/overlays/local/secrets.env}). */
    static final String LOCAL_SECRETS_FILE = "secrets.env";

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

    /**
     * Copies {@code deploy/} to {@code target/deploy} and runs the copy's {@code local-secrets.sh} there, as a user
     * would in a fresh checkout: it writes {@code target/.env} and {@code target/deploy/overlays/local/secrets.env}.
     * The checkout is never written, and a {@code secrets.env} a developer generated in it is not copied, so the
     * overlay renders from what the script makes. Files keep their permissions (the script runs as itself).
     *
     * @param target an empty directory, e.g. a JUnit {@code @TempDir}
     * @return {@code target}, the root to render {@code deploy/...} from
     * @throws AssertionError when the script fails
     */
    static Path deployWithLocalSecrets(Path target) {
        Path deploy = path("deploy");
        try (Stream<Path> files = Files.walk(deploy)) {
            for (Path file : files.toList()) {
                if (file.getFileName().toString().equals(LOCAL_SECRETS_FILE)) {
                    continue;
                }
                Path copy = target.resolve("deploy").resolve(deploy.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(copy);
                } else {
                    Files.copy(file, copy, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Run run = run(target, List.of(target.resolve(LOCAL_SECRETS_SCRIPT).toString()));
        if (run.exitCode() != 0) {
            throw new AssertionError(LOCAL_SECRETS_SCRIPT + " failed (" + run.exitCode() + "):\n" + run.output());
        }
        return target;
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
