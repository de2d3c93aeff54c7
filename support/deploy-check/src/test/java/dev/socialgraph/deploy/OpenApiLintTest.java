package dev.socialgraph.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The public API's OpenAPI document ({@code docs/openapi.yaml}) linted by Redocly CLI with the configuration in
 * {@code redocly.yaml}: Redocly's {@code recommended} ruleset, unchanged. Any error or warning fails the test. The
 * linter is {@code redocly} from the environment variable {@code REDOCLY} or the {@code PATH}; {@code .ci/run}
 * installs a pinned version with npm. Without it the lint is skipped, except on CI ({@code CI=true}), where it fails.
 */
class OpenApiLintTest {

    @Test
    void redoclyConfiguration_isTheRecommendedRulesetForTheDocument_unchanged() {
        Map<String, Object> config = Repo.yaml(Repo.path("redocly.yaml"));

        assertThat(config).containsOnlyKeys("apis", "extends");
        assertThat(config.get("extends")).isEqualTo(List.of("recommended"));
        assertThat(config.get("apis")).isEqualTo(Map.of("public", Map.of("root", "docs/openapi.yaml")));
    }

    @Test
    void openApiDocument_passesRedoclyLint_withNoErrorAndNoWarning(@TempDir Path dir) {
        Path redocly = Repo.tool("redocly", "REDOCLY");
        Path report = dir.resolve("lint.json");
        Path messages = dir.resolve("lint.log");

        int exitCode = run(List.of(redocly.toString(), "lint", "--config", "redocly.yaml", "--format=json"),
                report, messages);

        String json = Repo.read(report);
        String output = json + Repo.read(messages);
        assertThat(exitCode).as(output).isZero();
        Map<String, Object> result = Repo.yamlDocuments(json).get(0); // JSON is YAML
        assertThat(result.get("totals")).as(output)
                .isEqualTo(Map.of("errors", 0, "warnings", 0, "ignored", 0));
        assertThat((List<?>) result.get("problems")).as(output).isEmpty();
    }

    /**
     * Runs {@code command} in the repository root with its standard output (the JSON report) and its standard error
     * (progress, Node's notices) apart; at most 2 minutes.
     */
    private static int run(List<String> command, Path stdout, Path stderr) {
        try {
            Process process = new ProcessBuilder(command).directory(Repo.ROOT.toFile())
                    .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
            process.getOutputStream().close();
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError(command + " did not finish in 2 minutes:\n"
                        + Files.readString(stderr, StandardCharsets.UTF_8));
            }
            return process.exitValue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
