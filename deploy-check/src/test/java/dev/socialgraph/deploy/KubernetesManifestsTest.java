package dev.socialgraph.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes manifests of {@code deploy/}: every object the base and the local overlay render to is valid
 * against the Kubernetes 1.32 schema ({@link KubernetesSchema}), and the rendered objects fit together (probes,
 * resources, JVM flags, references, the autoscaler and the network policies the issue asks for).
 *
 * <p>Rendering needs {@code kubectl} (its built-in Kustomize); without it, the base's resource files, which are
 * complete objects, are still validated by {@link #baseResourceFiles_areSchemaValid()}.
 */
class KubernetesManifestsTest {

    private static final List<String> SERVICES =
            List.of("gateway", "follow-check-service", "follow-write-service", "cdc-consumer", "reconciler");

    @Test
    void validator_rejectsUnknownFieldsMissingRequiredFieldsAndWrongKinds() {
        Map<String, Object> typo = Repo.yamlDocuments("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: x}
                spec:
                  selector: {matchLabels: {a: b}}
                  template:
                    metadata: {labels: {a: b}}
                    spec:
                      containers:
                        - name: x
                          image: x
                          livenesProbe: {httpGet: {path: /, port: 80}}
                """).get(0);
        Map<String, Object> noImageName = Repo.yamlDocuments("""
                apiVersion: v1
                kind: Service
                metadata: {name: x}
                spec:
                  ports: [{name: http, targetPort: http}]
                """).get(0);
        Map<String, Object> removedApi = Repo.yamlDocuments("""
                apiVersion: autoscaling/v2beta2
                kind: HorizontalPodAutoscaler
                metadata: {name: x}
                """).get(0);
        Map<String, Object> wrongType = Repo.yamlDocuments("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: x}
                spec:
                  replicas: [2]
                  selector: {matchLabels: {a: b}}
                  template: {spec: {containers: [{name: x}]}}
                """).get(0);

        assertThat(KubernetesSchema.errors(typo)).singleElement().asString().contains("livenesProbe");
        assertThat(KubernetesSchema.errors(noImageName)).singleElement().asString().contains("port");
        assertThat(KubernetesSchema.errors(removedApi)).singleElement().asString().contains("autoscaling/v2beta2");
        assertThat(KubernetesSchema.errors(wrongType)).singleElement().asString().contains("replicas");
    }

    @Test
    void baseResourceFiles_areSchemaValid() {
        Path base = Repo.path("deploy/base");
        @SuppressWarnings("unchecked")
        List<String> resources = (List<String>) Repo.yaml(base.resolve("kustomization.yaml")).get("resources");
        List<Map<String, Object>> objects = new ArrayList<>();
        for (String resource : resources) {
            objects.addAll(Repo.yamlDocuments(Repo.read(base.resolve(resource))));
        }

        assertThat(objects).hasSizeGreaterThan(20);
        assertThat(objects).flatMap(KubernetesSchema::errors).isEmpty();
    }

    @Test
    void renderedBase_isSchemaValid() {
        List<Map<String, Object>> objects = render("deploy/base");

        assertThat(objects).flatMap(KubernetesSchema::errors).isEmpty();
        assertThat(names(objects, "ConfigMap")).anyMatch(n -> n.startsWith("graph-shards-"))
                .anyMatch(n -> n.startsWith("graph-env-"));
        assertThat(objects).allSatisfy(o -> assertThat(metadata(o).get("namespace") == null
                ? "social-graph" : metadata(o).get("namespace")).isEqualTo("social-graph"));
    }

    @Test
    void renderedLocalOverlay_isSchemaValidAndSelfContained() {
        List<Map<String, Object>> objects = render("deploy/overlays/local");

        assertThat(objects).flatMap(KubernetesSchema::errors).isEmpty();
        assertThat(names(objects, "StatefulSet")).contains("postgres", "kafka", "follow-check-service");
        assertThat(names(objects, "Deployment")).contains("redis");
        assertThat(names(objects, "Secret")).anyMatch(n -> n.startsWith("graph-secrets-"));
        // Every ConfigMap, Secret and claim a pod refers to exists in the rendered overlay.
        Set<String> defined = new HashSet<>();
        objects.forEach(o -> defined.add(o.get("kind") + "/" + metadata(o).get("name")));
        for (Map<String, Object> workload : workloads(objects)) {
            for (String reference : references(podSpec(workload))) {
                assertThat(defined).as("%s refers to %s", metadata(workload).get("name"), reference)
                        .contains(reference);
            }
        }
        // One replica of each service locally; the overlay's autoscaler allows 1..2 check pods.
        Map<String, Object> hpa = only(objects, "HorizontalPodAutoscaler", "follow-check-service");
        assertThat(map(hpa, "spec")).containsEntry("minReplicas", 1).containsEntry("maxReplicas", 2);
        for (String service : List.of("gateway", "follow-write-service", "cdc-consumer", "reconciler")) {
            assertThat(map(only(objects, "Deployment", service), "spec")).containsEntry("replicas", 1);
        }
    }

    @Test
    void everyService_hasProbesResourcesJvmFlagsAndRunsAsNonRoot() {
        List<Map<String, Object>> objects = render("deploy/base");

        for (String service : SERVICES) {
            Map<String, Object> workload = service.equals("follow-check-service")
                    ? only(objects, "StatefulSet", service) : only(objects, "Deployment", service);
            Map<String, Object> pod = podSpec(workload);
            assertThat(map(pod, "securityContext")).as(service).containsEntry("runAsNonRoot", true);
            Map<String, Object> container = list(pod, "containers").get(0);
            assertThat(container.get("image")).as(service).isEqualTo("social-graph/" + service + ":0.1.0-SNAPSHOT");
            assertThat(path(container, "livenessProbe", "httpGet", "path")).isEqualTo("/actuator/health/liveness");
            assertThat(path(container, "readinessProbe", "httpGet", "path")).isEqualTo("/actuator/health/readiness");
            assertThat(path(container, "startupProbe", "httpGet", "path")).isEqualTo("/actuator/health/liveness");
            assertThat(map(map(container, "resources"), "requests")).as(service).containsKeys("cpu", "memory");
            assertThat(map(map(container, "resources"), "limits")).as(service).containsKey("memory");
            assertThat(env(container, "JAVA_TOOL_OPTIONS")).as(service).contains("-XX:MaxRAMPercentage=75");
            // The probes' named port and the Prometheus annotation are the service's port (DESIGN.md 10).
            Map<String, Object> port = list(container, "ports").get(0);
            assertThat(port).containsEntry("name", "http");
            Object annotated = path(map(workload, "spec"), "template", "metadata", "annotations", "prometheus.io/port");
            assertThat(annotated).isEqualTo(String.valueOf(port.get("containerPort")));
            if (!service.equals("gateway")) {
                assertThat(env(container, "SPRING_CONFIG_ADDITIONALLOCATION")).isEqualTo(
                        "file:/etc/graph/graph-shards.yml");
                assertThat(list(container, "volumeMounts")).anyMatch(m -> "/etc/graph".equals(m.get("mountPath")));
            }
        }
        assertThat(env(list(podSpec(only(objects, "StatefulSet", "follow-check-service")), "containers").get(0),
                "JAVA_TOOL_OPTIONS")).contains("-XX:+UseZGC");
    }

    @Test
    void checkService_scalesOnCpuAt70Percent() {
        List<Map<String, Object>> objects = render("deploy/base");

        Map<String, Object> spec = map(only(objects, "HorizontalPodAutoscaler", "follow-check-service"), "spec");
        assertThat(map(spec, "scaleTargetRef")).containsEntry("kind", "StatefulSet")
                .containsEntry("name", "follow-check-service");
        Map<String, Object> metric = list(spec, "metrics").get(0);
        assertThat(path(metric, "resource", "name")).isEqualTo("cpu");
        assertThat(path(metric, "resource", "target", "averageUtilization")).isEqualTo(70);
    }

    @Test
    void networkPolicies_admitOutsideTrafficToTheGatewayOnly() {
        List<Map<String, Object>> objects = render("deploy/base");
        List<Map<String, Object>> policies = objects.stream().filter(o -> "NetworkPolicy".equals(o.get("kind")))
                .toList();

        // A default deny of every pod's ingress...
        assertThat(policies).anyMatch(p -> map(map(p, "spec"), "podSelector").isEmpty()
                && !map(p, "spec").containsKey("ingress"));
        // ...and the only rule without a source restriction selects the gateway, on its port.
        for (Map<String, Object> policy : policies) {
            Map<String, Object> spec = map(policy, "spec");
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> rules = (List<Map<String, Object>>) spec.getOrDefault("ingress", List.of());
            for (Map<String, Object> rule : rules) {
                if (!rule.containsKey("from")) {
                    assertThat(path(spec, "podSelector", "matchLabels", "app.kubernetes.io/name"))
                            .as(String.valueOf(metadata(policy).get("name"))).isEqualTo("gateway");
                    assertThat(list(rule, "ports")).singleElement().satisfies(p -> assertThat(p.get("port"))
                            .isEqualTo(8080));
                }
            }
        }
    }

    // --- rendering and navigation ----------------------------------------------------------------------------

    private static List<Map<String, Object>> render(String kustomization) {
        Path kubectl = Repo.tool("kubectl", "KUBECTL");
        Repo.Run run = Repo.run(Repo.ROOT, List.of(kubectl.toString(), "kustomize", kustomization));
        assertThat(run.exitCode()).as("kubectl kustomize %s:%n%s", kustomization, run.output()).isZero();
        return Repo.yamlDocuments(run.output());
    }

    private static List<Map<String, Object>> workloads(List<Map<String, Object>> objects) {
        return objects.stream().filter(o -> Set.of("Deployment", "StatefulSet", "Job").contains(o.get("kind")))
                .toList();
    }

    private static Map<String, Object> podSpec(Map<String, Object> workload) {
        return map(map(map(workload, "spec"), "template"), "spec");
    }

    /** {@code Kind/name} of every ConfigMap, Secret and claim the pod spec refers to. */
    private static Set<String> references(Map<String, Object> pod) {
        Set<String> references = new HashSet<>();
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> volumes = (List<Map<String, Object>>) pod.getOrDefault("volumes", List.of());
        for (Map<String, Object> volume : volumes) {
            if (volume.get("configMap") instanceof Map<?, ?> c) {
                references.add("ConfigMap/" + c.get("name"));
            }
            if (volume.get("persistentVolumeClaim") instanceof Map<?, ?> c) {
                references.add("PersistentVolumeClaim/" + c.get("claimName"));
            }
        }
        for (Map<String, Object> container : list(pod, "containers")) {
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> envFrom =
                    (List<Map<String, Object>>) container.getOrDefault("envFrom", List.of());
            for (Map<String, Object> source : envFrom) {
                if (source.get("configMapRef") instanceof Map<?, ?> c) {
                    references.add("ConfigMap/" + c.get("name"));
                }
            }
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> env = (List<Map<String, Object>>) container.getOrDefault("env", List.of());
            for (Map<String, Object> variable : env) {
                Object secret = path(variable, "valueFrom", "secretKeyRef", "name");
                if (secret != null) {
                    references.add("Secret/" + secret);
                }
            }
        }
        return references;
    }

    private static String env(Map<String, Object> container, String name) {
        return list(container, "env").stream().filter(e -> name.equals(e.get("name")))
                .map(e -> (String) e.get("value")).filter(Objects::nonNull).findFirst()
                .orElseThrow(() -> new AssertionError("no env " + name + " in " + container.get("name")));
    }

    private static List<String> names(List<Map<String, Object>> objects, String kind) {
        return objects.stream().filter(o -> kind.equals(o.get("kind")))
                .map(o -> (String) metadata(o).get("name")).toList();
    }

    private static Map<String, Object> only(List<Map<String, Object>> objects, String kind, String name) {
        return objects.stream().filter(o -> kind.equals(o.get("kind")) && name.equals(metadata(o).get("name")))
                .reduce((a, b) -> {
                    throw new AssertionError("two " + kind + " " + name);
                }).orElseThrow(() -> new AssertionError("no " + kind + " " + name));
    }

    private static Map<String, Object> metadata(Map<String, Object> object) {
        return map(object, "metadata");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> parent, String key) {
        Object value = parent.get(key);
        assertThat(value).as("%s in %s", key, parent.keySet()).isInstanceOf(Map.class);
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Map<String, Object> parent, String key) {
        Object value = parent.get(key);
        assertThat(value).as("%s in %s", key, parent.keySet()).isInstanceOf(List.class);
        return (List<Map<String, Object>>) value;
    }

    private static Object path(Map<String, Object> root, String... keys) {
        Object current = root;
        for (String key : keys) {
            if (!(current instanceof Map<?, ?> m)) {
                return null;
            }
            current = m.get(key);
        }
        return current;
    }
}
