package dev.socialgraph.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonMetaSchema;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.NonValidationKeyword;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code docker-compose.yml} against the Compose Specification's JSON schema (anchors and merge keys resolved
 * first, as Compose does), plus what the schema cannot know: each service's image is built from the shared
 * Dockerfile for an existing module, its ports are that module's API and management ports, its health check asks
 * the management port, it listens on the container's address and logs JSON, every published port binds 127.0.0.1
 * unless the user says otherwise, the gateway gets the JVM flags its README recommends, Prometheus scrapes exactly
 * those services on their management ports, and every mounted file exists. The
 * Dockerfile itself is checked for structure (no Docker engine here to build it).
 */
class ComposeFileTest {

    private static final List<String> SERVICES =
            List.of("gateway", "follow-check-service", "follow-write-service", "cdc-consumer", "reconciler");

    /** Each service's management port: its API port + 1000 (gateway 8080 -> 9080, ..., reconciler 8084 -> 9084). */
    static final Map<String, Integer> MANAGEMENT_PORTS = Map.of("gateway", 9080, "follow-check-service", 9081,
            "follow-write-service", 9082, "cdc-consumer", 9083, "reconciler", 9084);

    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * A published port's host address and ports: a literal address (group 1) or {@code GRAPH_PUBLISH_ADDRESS} with
     * its default (group 2).
     */
    private static final Pattern PUBLISHED_PORT = Pattern.compile(
            "(?:([0-9.]+)|\\$\\{GRAPH_PUBLISH_ADDRESS:-([0-9.]+)}):(\\d+):(\\d+)");

    @Test
    void schema_rejectsMisspelledServiceKeys() {
        Map<String, Object> broken = Repo.yamlDocuments("""
                services:
                  redis:
                    image: redis:7.4
                    helthcheck: {test: [CMD, redis-cli, ping]}
                """).get(0);

        assertThat(validate(broken)).anyMatch(m -> m.getMessage().contains("helthcheck"));
    }

    @Test
    void composeFile_isValidAgainstTheComposeSpecSchema() {
        Set<ValidationMessage> errors = validate(compose());

        assertThat(errors).isEmpty();
    }

    @Test
    void services_areBuiltFromTheirModulesAndUseTheirPorts() {
        Map<String, Object> services = map(compose(), "services");

        assertThat(services).containsKeys("postgres", "redis", "kafka", "kafka-init", "prometheus", "grafana");
        for (String service : SERVICES) {
            Map<String, Object> definition = map(services, service);
            Map<String, Object> build = map(definition, "build");
            assertThat(build.get("dockerfile")).as(service).isEqualTo("deploy/docker/Dockerfile");
            assertThat(map(build, "args")).as(service).containsEntry("MODULE", service);
            assertThat(Files.isRegularFile(Repo.path(service).resolve("pom.xml"))).as(service).isTrue();
            assertThat(definition.get("image")).isEqualTo("social-graph/" + service + ":0.1.0-SNAPSHOT");
            int port = serverPort(service);
            int management = managementPort(service);
            @SuppressWarnings("unchecked")
            List<String> ports = (List<String>) definition.get("ports");
            // The API port, and the management port for debugging, never beyond this machine.
            assertThat(ports).as(service).hasSize(2);
            assertThat(ports.get(0)).as(service).endsWith(port + ":" + port);
            assertThat(ports.get(1)).as(service).isEqualTo("127.0.0.1:" + management + ":" + management);
            // Actuator is served on the management port only.
            @SuppressWarnings("unchecked")
            List<String> test = (List<String>) map(definition, "healthcheck").get("test");
            assertThat(String.join(" ", test)).as(service).contains("/dev/tcp/127.0.0.1/" + management + " ")
                    .contains("/actuator/health/readiness");
        }
    }

    @Test
    void services_listenOnTheContainersAddressAndLogJson() {
        Map<String, Object> services = map(compose(), "services");

        for (String service : SERVICES) {
            Map<String, Object> environment = map(map(services, service), "environment");
            assertThat(environment).as(service).containsEntry("SERVER_ADDRESS", "0.0.0.0")
                    .containsEntry("MANAGEMENT_SERVER_ADDRESS", "0.0.0.0")
                    .containsEntry("LOGGING_STRUCTURED_FORMAT_CONSOLE", "ecs");
        }
    }

    @Test
    void gateway_getsEveryJvmFlagItsReadmeRecommends() {
        String readme = Repo.read(Repo.path("gateway/README.md"));
        int intro = readme.indexOf("JVM flags of the gateway");
        assertThat(intro).isNotNegative();
        int start = readme.indexOf("```", intro) + 3;
        List<String> recommended = List.of(readme.substring(start, readme.indexOf("```", start)).strip()
                .split("\\s+"));
        Object options = map(map(map(compose(), "services"), "gateway"), "environment").get("JAVA_TOOL_OPTIONS");

        assertThat(recommended).contains("-XX:ActiveProcessorCount=2", "-XX:+UseParallelGC");
        assertThat(List.of(String.valueOf(options).split("\\s+"))).containsAll(recommended);
    }

    @Test
    void prometheus_scrapesEveryServiceOnItsManagementPort() {
        Map<String, Object> config = Repo.yaml(Repo.path("deploy/prometheus/prometheus.yml"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> jobs = (List<Map<String, Object>>) config.get("scrape_configs");
        @SuppressWarnings("unchecked")
        List<String> targets = (List<String>) ((List<Map<String, Object>>) jobs.get(0).get("static_configs"))
                .get(0).get("targets");

        assertThat(jobs.get(0)).containsEntry("metrics_path", "/actuator/prometheus");
        assertThat(targets).containsExactlyInAnyOrderElementsOf(
                SERVICES.stream().map(s -> s + ":" + managementPort(s)).toList());
    }

    @Test
    void managementPorts_areApartFromTheApiPorts_andTheServicesOwn() {
        for (String service : SERVICES) {
            assertThat(managementPort(service)).as(service).isNotEqualTo(serverPort(service))
                    .isEqualTo(MANAGEMENT_PORTS.get(service));
        }
    }

    /**
     * Every published port binds 127.0.0.1 unless the user says otherwise: the services' debugging ports always, the
     * gateway, Prometheus and Grafana unless {@code GRAPH_PUBLISH_ADDRESS} is set. Docker publishes a port without a
     * host address on every interface (and past a host firewall such as ufw, through its own iptables rules).
     */
    @Test
    void publishedPorts_bindLoopbackByDefault() {
        Map<String, Object> services = map(compose(), "services");
        int published = 0;

        for (Map.Entry<String, Object> service : services.entrySet()) {
            @SuppressWarnings("unchecked")
            List<Object> ports = (List<Object>) ((Map<String, Object>) service.getValue())
                    .getOrDefault("ports", List.of());
            for (Object port : ports) {
                // The short syntax only ([host_ip:][published:]target): the long one would hide host_ip in a map.
                assertThat(port).as(service.getKey()).isInstanceOf(String.class);
                Matcher address = PUBLISHED_PORT.matcher((String) port);
                assertThat(address.matches()).as("%s: %s binds an address", service.getKey(), port).isTrue();
                String host = address.group(1) != null ? address.group(1) : address.group(2);
                assertThat(host).as("%s: %s", service.getKey(), port).isEqualTo("127.0.0.1");
                if (address.group(1) == null) {
                    assertThat(List.of("gateway", "prometheus", "grafana")).as(service.getKey())
                            .contains(service.getKey());
                }
                published++;
            }
        }
        assertThat(published).isEqualTo(2 * SERVICES.size() + 2);
    }

    @Test
    void mountedFiles_exist() {
        Map<String, Object> services = map(compose(), "services");
        for (Map.Entry<String, Object> service : services.entrySet()) {
            @SuppressWarnings("unchecked")
            List<String> volumes = (List<String>) ((Map<String, Object>) service.getValue())
                    .getOrDefault("volumes", List.of());
            for (String volume : volumes) {
                String source = volume.split(":")[0];
                if (source.startsWith("./")) {
                    assertThat(Repo.path(source.substring(2))).as(service.getKey()).exists();
                }
            }
        }
    }

    @Test
    void dockerfile_copiesTheExecJarAndRunsAsNonRoot() {
        List<String> lines = Repo.read(Repo.path("deploy/docker/Dockerfile")).lines()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        String version = Pattern.compile("<version>([^<]+)</version>").matcher(Repo.read(Repo.path("pom.xml")))
                .results().map(r -> r.group(1)).findFirst().orElseThrow();

        assertThat(lines.get(0)).matches("FROM eclipse-temurin:\\d+-jre[-\\w]*");
        assertThat(lines).contains("ARG MODULE", "ARG VERSION=" + version,
                "COPY ${MODULE}/target/${MODULE}-${VERSION}-exec.jar /app/service.jar");
        int user = indexOf(lines, "USER ");
        Matcher uid = Pattern.compile("USER (\\d+):(\\d+)").matcher(lines.get(user));
        assertThat(uid.matches()).isTrue();
        assertThat(Integer.parseInt(uid.group(1))).isPositive();
        assertThat(user).isLessThan(indexOf(lines, "ENTRYPOINT "));
        assertThat(lines.get(indexOf(lines, "ENV JAVA_TOOL_OPTIONS="))).contains("-XX:MaxRAMPercentage=");
        // The build context keeps only the runnable jars.
        assertThat(Repo.read(Repo.path(".dockerignore")).lines().toList()).contains("*", "!*/target/*-exec.jar");
    }

    /** {@code server.port} of the module's {@code application.yml}. */
    static int serverPort(String module) {
        Map<String, Object> config = Repo.yaml(Repo.path(module + "/src/main/resources/application.yml"));
        return (Integer) map(config, "server").get("port");
    }

    /**
     * {@code management.server.port} of the module's {@code application.yml}: the port of actuator (probes,
     * {@code /actuator/prometheus}), apart from the API; it must be the port decided for it in
     * {@link #MANAGEMENT_PORTS} (checked above).
     */
    static int managementPort(String module) {
        Map<String, Object> config = Repo.yaml(Repo.path(module + "/src/main/resources/application.yml"));
        return (Integer) map(map(config, "management"), "server").get("port");
    }

    private static int indexOf(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no line starting with " + prefix + " in " + lines);
    }

    private static Map<String, Object> compose() {
        return Repo.yaml(Repo.path("docker-compose.yml"));
    }

    private static Set<ValidationMessage> validate(Map<String, Object> compose) {
        try (InputStream schemaText = ComposeFileTest.class.getResourceAsStream("/schemas/compose-spec.json")) {
            // The compose schema still names its subschemas with draft-04's "id": an annotation, not a rule.
            JsonMetaSchema metaSchema = JsonMetaSchema.builder(JsonMetaSchema.getV201909())
                    .keyword(new NonValidationKeyword("id"))
                    .keyword(new NonValidationKeyword("service"))
                    .build();
            JsonSchema schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V201909,
                    builder -> builder.metaSchema(metaSchema)).getSchema(schemaText);
            JsonNode document = JSON.valueToTree(compose);
            return schema.validate(document).stream().collect(Collectors.toSet());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> parent, String key) {
        Object value = parent.get(key);
        assertThat(value).as("%s in %s", key, parent.keySet()).isInstanceOf(Map.class);
        return (Map<String, Object>) value;
    }
}
