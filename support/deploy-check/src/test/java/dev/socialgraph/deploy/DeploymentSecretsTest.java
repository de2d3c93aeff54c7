package dev.socialgraph.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * No deployment file starts anything with a secret that is in the repository: whoever read it could mint an admin
 * token for such a deployment. {@code docker-compose.yml} requires every secret-named environment entry as
 * {@code ${VAR:?message}} (compose refuses to start without it); the manifests under {@code deploy/} take every
 * secret-named variable from a Secret, define no Secret data, and generate no Secret from Kustomize
 * {@code literals}; no deployment file holds a development secret of the repository (the {@code dev-only-} /
 * {@code test-only-} values of the sources and the defaults of the {@code local} profile). The secrets come from
 * {@code deploy/local-secrets.sh}, tested here too: it writes exactly the variables compose requires and the keys the
 * pods read, random, long enough, the same value for the same secret in both files, into files git ignores, and it
 * keeps existing values unless told {@code --force}.
 */
class DeploymentSecretsTest {

    /** Names (environment variables, Secret and ConfigMap keys) that hold a secret. */
    private static final Pattern SECRET_NAME = Pattern.compile("(?i).*(secret|password|token|key).*");
    /** A whole value that is one required Compose reference: {@code ${VAR:?message}}, group 1 the variable. */
    private static final Pattern REQUIRED = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*):\\?([^}]+)}");
    /** Any Compose reference {@code ${NAME...}}: group 1 the variable, group 2 what follows it. */
    private static final Pattern REFERENCE = Pattern.compile("\\$\\{([A-Za-z0-9_]++)([^}]*)}");
    /** The repository's development and test secrets are named so ({@code dev-only-jwt-secret-change-me-...}). */
    private static final Pattern KNOWN_SECRET = Pattern.compile("\\b(?:dev|test)-only-[A-Za-z0-9-]+");
    /** A Spring placeholder with a default, {@code ${GRAPH_JWT_SECRET:dev-only-...}}: group 1 the variable, 2 it. */
    private static final Pattern SPRING_DEFAULT = Pattern.compile("\\$\\{([A-Z_][A-Z0-9_]*):([^}]+)}");

    @Test
    void checks_flagDefaultsLiteralsAndGeneratorLiterals_butNotRequiredReferences() {
        Map<String, Object> compose = yaml("""
                services:
                  gateway:
                    environment:
                      GRAPH_JWT_SECRET: ${GRAPH_JWT_SECRET:-dev-only-jwt-secret-change-me-0123456789abcdef}
                      GRAPH_SERVICE_TOKEN: ${GRAPH_SERVICE_TOKEN:?run deploy/local-secrets.sh to generate .env}
                      GRAPH_CURSOR_KEY: ${GRAPH_CURSOR_KEY}
                      SERVER_ADDRESS: 0.0.0.0
                  grafana:
                    environment:
                      - GF_SECURITY_ADMIN_PASSWORD=admin
                """);
        String composeText = "command: [\"--requirepass\", \"${REDIS_PASSWORD-x}\"]";
        List<Object> kustomization = yamlAll("""
                secretGenerator:
                  - name: graph-secrets
                    literals: [jwt-secret=x]
                configMapGenerator:
                  - name: graph-env
                    literals: [GRAPH_TOKEN_SECRET=x, GRAPH_REDIS_MODE=standalone]
                """);
        List<Object> manifests = yamlAll("""
                kind: Deployment
                spec:
                  template:
                    spec:
                      containers:
                        - name: x
                          env:
                            - name: POSTGRES_PASSWORD
                              value: graph-local
                            - name: GRAPH_SERVICE_TOKEN
                              valueFrom:
                                secretKeyRef: {name: graph-secrets, key: service-token}
                            - name: GRAPH_REDIS_URI
                              value: redis://redis:6379
                ---
                kind: Secret
                stringData: {jwt-secret: x}
                """);

        assertThat(composeFindings(compose, composeText)).hasSize(4)
                .anyMatch(f -> f.contains("GRAPH_JWT_SECRET")).anyMatch(f -> f.contains("GRAPH_CURSOR_KEY"))
                .anyMatch(f -> f.contains("GF_SECURITY_ADMIN_PASSWORD")).anyMatch(f -> f.contains("REDIS_PASSWORD"));
        assertThat(manifestFindings("kustomization.yaml", kustomization)).hasSize(2)
                .anyMatch(f -> f.contains("literals")).anyMatch(f -> f.contains("GRAPH_TOKEN_SECRET"));
        assertThat(manifestFindings("x.yaml", manifests)).hasSize(2)
                .anyMatch(f -> f.contains("POSTGRES_PASSWORD")).anyMatch(f -> f.contains("Secret"));
    }

    @Test
    void composeFile_requiresEverySecret_withAMessageNamingTheScript() {
        Path file = Repo.path("docker-compose.yml");

        assertThat(composeFindings(Repo.yaml(file), Repo.read(file))).isEmpty();
        assertThat(requiredVariables()).contains("GRAPH_JWT_SECRET", "GRAPH_TOKEN_SECRET", "GRAPH_CURSOR_KEY",
                "GRAPH_SERVICE_TOKEN", "POSTGRES_PASSWORD", "GRAFANA_ADMIN_PASSWORD");
    }

    @Test
    void manifests_takeSecretsFromSecrets_andGenerateNoneFromLiterals() {
        List<String> findings = new ArrayList<>();
        for (Path file : deployFiles()) {
            String name = file.getFileName().toString();
            if (name.endsWith(".yaml") || name.endsWith(".yml")) {
                findings.addAll(manifestFindings(Repo.ROOT.relativize(file).toString(), yamlAll(Repo.read(file))));
            }
        }

        assertThat(findings).isEmpty();
    }

    /** Every env file a secretGenerator reads is generated (ignored by git), never committed. */
    @Test
    void secretGeneratorEnvFiles_areIgnoredByGit() {
        List<String> ignored = Repo.read(Repo.path(".gitignore")).lines().map(String::strip).toList();
        List<String> envFiles = new ArrayList<>();
        for (Path file : deployFiles()) {
            if (!file.getFileName().toString().equals("kustomization.yaml")) {
                continue;
            }
            for (Object generator : list(Repo.yaml(file).get("secretGenerator"))) {
                for (Object envFile : list(((Map<?, ?>) generator).get("envs"))) {
                    envFiles.add("/" + Repo.ROOT.relativize(file.resolveSibling(String.valueOf(envFile))));
                }
            }
        }

        assertThat(envFiles).containsExactly("/deploy/overlays/local/" + Repo.LOCAL_SECRETS_FILE);
        assertThat(ignored).containsAll(envFiles).contains("/.env");
    }

    @Test
    void deploymentFiles_holdNoDevelopmentSecretOfTheRepository() {
        Set<String> known = knownSecrets();
        // The extraction finds the local profile's secrets (and more): an empty list would pass everything.
        Map<String, Object> gatewayLocal = Repo.yaml(Repo.path("gateway/src/main/resources/application-local.yml"));
        String jwt = String.valueOf(((Map<?, ?>) ((Map<?, ?>) gatewayLocal.get("graph")).get("gateway"))
                .get("jwt-secret"));
        assertThat(known).hasSizeGreaterThanOrEqualTo(4).anyMatch(jwt::contains);

        List<Path> files = new ArrayList<>(deployFiles());
        files.add(Repo.path("docker-compose.yml"));
        for (Path file : files) {
            String text = Repo.read(file);
            assertThat(known).as("%s", Repo.ROOT.relativize(file)).noneMatch(text::contains);
            assertThat(KNOWN_SECRET.matcher(text).find()).as("%s holds a dev-only-/test-only- value", file).isFalse();
        }
    }

    @Test
    void localSecretsScript_writesWhatComposeAndThePodsNeed_randomAndOwnerOnly(@TempDir Path dir) {
        Repo.deployWithLocalSecrets(dir);
        Map<String, String> compose = envFile(dir.resolve(".env"));
        Map<String, String> kustomize = envFile(localSecrets(dir));
        Map<String, String> keyOfVariable = graphSecretKeys();

        assertThat(compose.keySet()).isEqualTo(requiredVariables());
        assertThat(kustomize.keySet()).isEqualTo(new TreeSet<>(keyOfVariable.values()));
        for (Map<String, String> values : List.of(compose, kustomize)) {
            // Base64url of 48 random bytes: at least the services' 32 bytes, each value its own.
            assertThat(values.values()).allMatch(v -> v.matches("[A-Za-z0-9_-]{64}")).doesNotHaveDuplicates();
        }
        // The same secret has the same value in both files, e.g. GRAPH_JWT_SECRET and jwt-secret.
        compose.forEach((variable, value) -> {
            if (keyOfVariable.containsKey(variable)) {
                assertThat(kustomize.get(keyOfVariable.get(variable))).as(variable).isEqualTo(value);
            }
        });
        for (Path file : List.of(dir.resolve(".env"), localSecrets(dir))) {
            assertThat(permissions(file)).as("%s", file).isEqualTo("rw-------");
        }
    }

    @Test
    void localSecretsScript_keepsValuesAndOtherLines_unlessForced(@TempDir Path dir) throws IOException {
        Repo.deployWithLocalSecrets(dir);
        Path dotEnv = dir.resolve(".env");
        Map<String, String> first = envFile(dotEnv);
        Map<String, String> firstKustomize = envFile(localSecrets(dir));
        // A setting of the user's own, without a final newline, and a key lost from the overlay's file.
        Files.writeString(dotEnv, Repo.read(dotEnv) + "GRAPH_PUBLISH_ADDRESS=0.0.0.0");
        Files.writeString(localSecrets(dir), Repo.read(localSecrets(dir)).replaceAll("(?m)^jwt-secret=.*\n", ""));

        assertThat(script(dir).exitCode()).isZero();
        assertThat(envFile(dotEnv)).containsAllEntriesOf(first).containsEntry("GRAPH_PUBLISH_ADDRESS", "0.0.0.0");
        assertThat(envFile(localSecrets(dir))).isEqualTo(firstKustomize);

        assertThat(script(dir, "--force").exitCode()).isZero();
        Map<String, String> forced = envFile(dotEnv);
        Set<String> keys = new LinkedHashSet<>(first.keySet());
        keys.add("GRAPH_PUBLISH_ADDRESS");
        assertThat(forced).containsEntry("GRAPH_PUBLISH_ADDRESS", "0.0.0.0").containsOnlyKeys(keys);
        first.forEach((variable, value) -> assertThat(forced.get(variable)).as(variable).isNotNull()
                .isNotEqualTo(value));
        firstKustomize.forEach((key, value) -> assertThat(envFile(localSecrets(dir)).get(key)).as(key)
                .isNotEqualTo(value));
    }

    @Test
    void localSecretsScript_refusesAShortSecret_andChangesNothing(@TempDir Path dir) throws IOException {
        Repo.deployWithLocalSecrets(dir);
        Path dotEnv = dir.resolve(".env");
        Files.writeString(dotEnv, Repo.read(dotEnv).replaceAll("(?m)^GRAPH_JWT_SECRET=.*$", "GRAPH_JWT_SECRET=short"));
        String before = Repo.read(dotEnv) + Repo.read(localSecrets(dir));

        Repo.Run run = script(dir);

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.output()).contains("GRAPH_JWT_SECRET", "32");
        assertThat(Repo.read(dotEnv) + Repo.read(localSecrets(dir))).isEqualTo(before);
        assertThat(script(dir, "--bogus").exitCode()).isEqualTo(2);
    }

    /**
     * What is wrong in a compose file: a secret-named environment entry of a service that is not one required
     * reference, and anywhere in the text a reference to a secret-named variable that has a default or may be empty.
     */
    static List<String> composeFindings(Map<String, Object> compose, String text) {
        List<String> findings = new ArrayList<>();
        Map<?, ?> services = (Map<?, ?>) compose.getOrDefault("services", Map.of());
        services.forEach((service, definition) -> environment(((Map<?, ?>) definition).get("environment"))
                .forEach((name, value) -> {
                    if (!SECRET_NAME.matcher(name).matches()) {
                        return;
                    }
                    Matcher required = REQUIRED.matcher(String.valueOf(value));
                    if (!required.matches()) {
                        findings.add(service + ": " + name + " is not ${VAR:?message}: " + value);
                    } else if (!required.group(2).contains(Repo.LOCAL_SECRETS_SCRIPT)) {
                        findings.add(service + ": " + name + "'s message does not name " + Repo.LOCAL_SECRETS_SCRIPT);
                    }
                }));
        Matcher reference = REFERENCE.matcher(text);
        while (reference.find()) {
            if (SECRET_NAME.matcher(reference.group(1)).matches() && !reference.group(2).startsWith(":?")) {
                findings.add(reference.group() + " may start with a default or an empty value");
            }
        }
        return findings;
    }

    /**
     * What is wrong in the YAML documents of a file under {@code deploy/}: a Kustomize secretGenerator with
     * {@code literals}, a configMapGenerator literal or ConfigMap key with a secret's name, a Secret with data, and a
     * secret-named environment variable with a {@code value} (not {@code valueFrom}).
     */
    static List<String> manifestFindings(String file, List<Object> documents) {
        List<String> findings = new ArrayList<>();
        for (Object document : documents) {
            if (!(document instanceof Map<?, ?> object)) {
                continue;
            }
            for (Object generator : list(object.get("secretGenerator"))) {
                if (((Map<?, ?>) generator).containsKey("literals")) {
                    findings.add(file + ": secretGenerator " + ((Map<?, ?>) generator).get("name")
                            + " has literals");
                }
            }
            for (Object generator : list(object.get("configMapGenerator"))) {
                for (Object literal : list(((Map<?, ?>) generator).get("literals"))) {
                    String name = String.valueOf(literal).split("=", 2)[0];
                    if (SECRET_NAME.matcher(name).matches()) {
                        findings.add(file + ": configMapGenerator literal " + name);
                    }
                }
            }
            if ("Secret".equals(object.get("kind"))
                    && (object.containsKey("data") || object.containsKey("stringData"))) {
                findings.add(file + ": a Secret with data");
            }
            if ("ConfigMap".equals(object.get("kind")) && object.get("data") instanceof Map<?, ?> data) {
                data.keySet().stream().map(String::valueOf).filter(k -> SECRET_NAME.matcher(k).matches())
                        .forEach(k -> findings.add(file + ": ConfigMap key " + k));
            }
            walk(object, (key, value) -> {
                if (key.equals("env")) {
                    for (Object variable : list(value)) {
                        if (variable instanceof Map<?, ?> v && v.containsKey("value")
                                && SECRET_NAME.matcher(String.valueOf(v.get("name"))).matches()) {
                            findings.add(file + ": env " + v.get("name") + " has a value, not a secretKeyRef");
                        }
                    }
                }
            });
        }
        return findings;
    }

    /** The variables {@code docker-compose.yml} requires ({@code ${VAR:?...}}). */
    private static Set<String> requiredVariables() {
        Set<String> variables = new TreeSet<>();
        Matcher required = REQUIRED.matcher(Repo.read(Repo.path("docker-compose.yml")));
        while (required.find()) {
            variables.add(required.group(1));
        }
        return variables;
    }

    /**
     * The repository's known secrets: every {@code dev-only-...} / {@code test-only-...} value in a module's sources
     * and tests, and every default of a Spring placeholder in a {@code local} profile (its development secrets).
     */
    private static Set<String> knownSecrets() {
        Set<String> known = new TreeSet<>();
        try {
            Files.walkFileTree(Repo.ROOT, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                    String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                    return Set.of(".git", "target", "node_modules", ".graph", "deploy").contains(name)
                            ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    String name = file.getFileName().toString();
                    if (!file.toString().contains("/src/") || !name.matches(".*\\.(java|ya?ml|properties)")) {
                        return FileVisitResult.CONTINUE;
                    }
                    String text = Repo.read(file);
                    KNOWN_SECRET.matcher(text).results().forEach(r -> known.add(r.group()));
                    if (name.matches("application-local\\.ya?ml")) {
                        SPRING_DEFAULT.matcher(text).results()
                                .filter(r -> SECRET_NAME.matcher(r.group(1)).matches())
                                .forEach(r -> known.add(r.group(2)));
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return known;
    }

    /**
     * Environment variable -> key of every {@code graph-secrets} reference of the manifests under {@code deploy/}
     * ({@code GRAPH_JWT_SECRET -> jwt-secret}, {@code POSTGRES_PASSWORD -> postgres-password}, ...).
     */
    private static Map<String, String> graphSecretKeys() {
        Map<String, String> keys = new HashMap<>();
        for (Path file : deployFiles()) {
            if (!file.toString().endsWith(".yaml")) {
                continue;
            }
            for (Object document : yamlAll(Repo.read(file))) {
                walk(document, (key, value) -> {
                    if (key.equals("env")) {
                        for (Object variable : list(value)) {
                            if (variable instanceof Map<?, ?> v && v.get("valueFrom") instanceof Map<?, ?> from
                                    && from.get("secretKeyRef") instanceof Map<?, ?> ref
                                    && "graph-secrets".equals(ref.get("name"))) {
                                keys.put(String.valueOf(v.get("name")), String.valueOf(ref.get("key")));
                            }
                        }
                    }
                });
            }
        }
        assertThat(keys).containsEntry("GRAPH_JWT_SECRET", "jwt-secret");
        return keys;
    }

    /** Every file under {@code deploy/} but the generated secrets (git ignores those; checked above). */
    private static List<Path> deployFiles() {
        try (Stream<Path> files = Files.walk(Repo.path("deploy"))) {
            return files.filter(Files::isRegularFile)
                    .filter(f -> !f.getFileName().toString().equals(Repo.LOCAL_SECRETS_FILE)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path localSecrets(Path root) {
        return root.resolve("deploy/overlays/local").resolve(Repo.LOCAL_SECRETS_FILE);
    }

    private static Repo.Run script(Path root, String... arguments) {
        List<String> command = new ArrayList<>(List.of(root.resolve(Repo.LOCAL_SECRETS_SCRIPT).toString()));
        command.addAll(List.of(arguments));
        return Repo.run(root, command);
    }

    /** The {@code NAME=value} lines of an env file (compose's {@code .env}, Kustomize's {@code envs}). */
    private static Map<String, String> envFile(Path file) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : Repo.read(file).lines().toList()) {
            if (!line.isBlank() && !line.startsWith("#")) {
                assertThat(line).as("%s", file).contains("=");
                assertThat(values.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1)))
                        .as("%s: %s twice", file, line).isNull();
            }
        }
        return values;
    }

    private static String permissions(Path file) {
        try {
            return PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
        } catch (UnsupportedOperationException e) {
            return "rw-------"; // not a POSIX file system: nothing to check
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A compose environment, given as a map or as a list of {@code NAME=value}. */
    private static Map<String, Object> environment(Object environment) {
        Map<String, Object> entries = new LinkedHashMap<>();
        if (environment instanceof Map<?, ?> map) {
            map.forEach((k, v) -> entries.put(String.valueOf(k), v));
        }
        for (Object entry : list(environment instanceof List<?> ? environment : null)) {
            String[] parts = String.valueOf(entry).split("=", 2);
            entries.put(parts[0], parts.length > 1 ? parts[1] : null);
        }
        return entries;
    }

    /** Calls {@code visitor} with every key and value of every map inside {@code node}, at any depth. */
    private static void walk(Object node, BiConsumer<String, Object> visitor) {
        if (node instanceof Map<?, ?> map) {
            map.forEach((k, v) -> {
                visitor.accept(String.valueOf(k), v);
                walk(v, visitor);
            });
        } else if (node instanceof List<?> items) {
            items.forEach(item -> walk(item, visitor));
        }
    }

    private static List<?> list(Object value) {
        return value instanceof List<?> items ? items : List.of();
    }

    private static Map<String, Object> yaml(String text) {
        return Repo.yamlDocuments(text).get(0);
    }

    /** Every YAML document of {@code text}, whatever its shape (some files under deploy/ are lists). */
    private static List<Object> yamlAll(String text) {
        List<Object> documents = new ArrayList<>();
        new Yaml(new LoaderOptions()).loadAll(text).forEach(documents::add);
        return documents;
    }
}
