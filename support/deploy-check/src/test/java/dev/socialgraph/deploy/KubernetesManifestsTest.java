package dev.socialgraph.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Kubernetes manifests of {@code deploy/}: every object the base and each overlay render to is valid
 * against the Kubernetes 1.32 schema ({@link KubernetesSchema}; the ServiceMonitor, a custom resource, is checked on
 * its own), and the rendered objects fit together (probes and actuator on the management port, resources, JVM
 * flags, references, the network policies the issue asks for, autoscalers and disruption budgets, shard-affine
 * check instances and the Redis settings).
 *
 * <p>Rendering needs {@code kubectl} (its built-in Kustomize); without it, the base's resource files, which are
 * complete objects, are still validated by {@link #baseResourceFiles_areSchemaValid()}. It renders a copy of
 * {@code deploy/} in which {@code deploy/local-secrets.sh} has generated the local overlay's {@code secrets.env}
 * ({@link Repo#deployWithLocalSecrets}): the overlay needs that file, and the checkout is never written.
 */
class KubernetesManifestsTest {

    private static final List<String> SERVICES =
            List.of("gateway", "follow-check-service", "follow-write-service", "cdc-consumer", "reconciler");
    private static final String CHECK = "follow-check-service";
    /** Kinds outside the Kubernetes API schema ({@code apiVersion/kind}), checked by tests of their own. */
    private static final Set<String> CUSTOM_RESOURCES = Set.of("monitoring.coreos.com/v1/ServiceMonitor");
    /** Where the gateway and the check pods find the one list of check instances. */
    private static final String CHECK_INSTANCES = "/etc/graph/check-instances.yml";
    /** Environment variables that would override that list (the environment outranks a config file). */
    private static final List<String> INSTANCE_LIST_OVERRIDES = List.of("GRAPH_CHECK_AFFINITY_INSTANCES",
            "SPRING_CLOUD_DISCOVERY_CLIENT_SIMPLE_INSTANCES_FOLLOWCHECKSERVICE");

    /** The root of the copy of {@code deploy/} every kustomization is rendered from. */
    @TempDir
    static Path rendered;

    @BeforeAll
    static void generateLocalSecrets() {
        Repo.deployWithLocalSecrets(rendered);
    }

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
        // graph-secrets holds exactly the keys the pods read, with the values local-secrets.sh generated.
        Map<String, Object> secret = objects.stream().filter(o -> "Secret".equals(o.get("kind"))
                && String.valueOf(metadata(o).get("name")).startsWith("graph-secrets-")).findFirst().orElseThrow();
        Set<String> keysRead = new HashSet<>();
        workloads(objects).forEach(w -> keysRead.addAll(secretKeys(podSpec(w),
                String.valueOf(metadata(secret).get("name")))));
        Map<String, String> data = new LinkedHashMap<>();
        map(secret, "data").forEach((k, v) -> data.put(k, new String(Base64.getMimeDecoder().decode((String) v),
                StandardCharsets.UTF_8)));
        assertThat(keysRead).contains("jwt-secret", "token-secret", "cursor-key", "service-token",
                "postgres-password");
        assertThat(data).containsOnlyKeys(keysRead).isEqualTo(generatedLocalSecrets());
        // Nothing is published on the nodes: the gateway is reached with kubectl port-forward.
        assertThat(objects).filteredOn(o -> "Service".equals(o.get("kind")))
                .allSatisfy(service -> assertThat(map(service, "spec").getOrDefault("type", "ClusterIP"))
                        .as(String.valueOf(metadata(service).get("name"))).isEqualTo("ClusterIP"));
        // One replica of each service locally, two check pods (the smallest shard-affine fleet).
        assertThat(map(only(objects, "StatefulSet", CHECK), "spec")).containsEntry("replicas", 2);
        for (String service : List.of("gateway", "follow-write-service", "cdc-consumer", "reconciler")) {
            assertThat(map(only(objects, "Deployment", service), "spec")).containsEntry("replicas", 1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kustomizations")
    void rendered_isSchemaValid(String kustomization) {
        List<Map<String, Object>> objects = render(kustomization);

        // Custom resources are not in the Kubernetes schema: each kind has a test of its own.
        assertThat(objects).filteredOn(o -> !CUSTOM_RESOURCES.contains(o.get("apiVersion") + "/" + o.get("kind")))
                .flatMap(KubernetesSchema::errors).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kustomizations")
    void everyService_hasProbesResourcesJvmFlagsAndRunsAsNonRoot(String kustomization) {
        List<Map<String, Object>> objects = render(kustomization);

        for (String service : SERVICES) {
            Map<String, Object> workload = workload(objects, service);
            Map<String, Object> pod = podSpec(workload);
            assertThat(map(pod, "securityContext")).as(service).containsEntry("runAsNonRoot", true);
            Map<String, Object> container = list(pod, "containers").get(0);
            assertThat(container.get("image")).as(service).isEqualTo("social-graph/" + service + ":0.1.0-SNAPSHOT");
            assertThat(map(map(container, "resources"), "requests")).as(service).containsKeys("cpu", "memory");
            assertThat(map(map(container, "resources"), "limits")).as(service).containsKey("memory");
            assertThat(env(container, "JAVA_TOOL_OPTIONS")).as(service).contains("-XX:MaxRAMPercentage=75");
            if (!service.equals("gateway")) {
                assertThat(locations(container)).as(service).contains("file:/etc/graph/graph-shards.yml");
                assertThat(mountedFile(objects, workload, "/etc/graph/graph-shards.yml").configMap())
                        .startsWith("graph-shards-");
            }
        }
        assertThat(env(list(podSpec(workload(objects, CHECK)), "containers").get(0), "JAVA_TOOL_OPTIONS"))
                .contains("-XX:InitialRAMPercentage=75", "-XX:MaxRAMPercentage=75").doesNotContain("UseZGC");
    }

    /**
     * Actuator lives on a management port of its own (management.server.port), never on the API port: the
     * container names it {@code management}, the probes and the Prometheus annotation use it, the
     * {@code -metrics} Service publishes it alone, and no other Service publishes it. Both ports listen on the
     * pod's address, and the logs are JSON.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("kustomizations")
    void everyService_servesActuatorOnItsManagementPortOnly(String kustomization) {
        List<Map<String, Object>> objects = render(kustomization);

        for (String service : SERVICES) {
            Map<String, Object> workload = workload(objects, service);
            Map<String, Object> container = list(podSpec(workload), "containers").get(0);
            int management = ComposeFileTest.managementPort(service);
            assertThat(list(container, "ports")).as(service)
                    .extracting(p -> p.get("name"), p -> p.get("containerPort"))
                    .containsExactly(tuple("http", ComposeFileTest.serverPort(service)),
                            tuple("management", management));
            assertThat(path(container, "startupProbe", "httpGet")).as(service)
                    .isEqualTo(Map.of("path", "/actuator/health/liveness", "port", "management"));
            assertThat(path(container, "livenessProbe", "httpGet")).as(service)
                    .isEqualTo(Map.of("path", "/actuator/health/liveness", "port", "management"));
            assertThat(path(container, "readinessProbe", "httpGet")).as(service)
                    .isEqualTo(Map.of("path", "/actuator/health/readiness", "port", "management"));
            Object annotations = path(map(workload, "spec"), "template", "metadata", "annotations");
            assertThat(cast(annotations)).as(service).containsEntry("prometheus.io/port", String.valueOf(management))
                    .containsEntry("prometheus.io/path", "/actuator/prometheus");

            Map<String, String> podLabels = templateLabels(workload);
            for (Map<String, Object> serviceObject : objects.stream().filter(o -> "Service".equals(o.get("kind"))
                    && selects(map(map(o, "spec"), "selector"), podLabels)).toList()) {
                String name = String.valueOf(metadata(serviceObject).get("name"));
                List<Map<String, Object>> ports = list(map(serviceObject, "spec"), "ports");
                if (name.equals(service + "-metrics")) {
                    assertThat(ports).as(name).singleElement().satisfies(p -> assertThat(p)
                            .containsEntry("name", "management").containsEntry("port", management)
                            .containsEntry("targetPort", "management"));
                    assertThat(map(metadata(serviceObject), "labels")).as(name)
                            .containsEntry("app.kubernetes.io/component", "metrics");
                } else {
                    assertThat(ports).as(name).noneMatch(p -> "management".equals(p.get("targetPort"))
                            || Integer.valueOf(management).equals(p.get("targetPort")));
                }
            }
            assertThat(names(objects, "Service")).contains(service + "-metrics");
            Set<String> environment = environment(objects, container);
            assertThat(environment).as(service).contains("SERVER_ADDRESS", "MANAGEMENT_SERVER_ADDRESS",
                    "LOGGING_STRUCTURED_FORMAT_CONSOLE");
        }
        assertThat(graphEnv(objects)).containsEntry("SERVER_ADDRESS", "0.0.0.0")
                .containsEntry("MANAGEMENT_SERVER_ADDRESS", "0.0.0.0")
                .containsEntry("LOGGING_STRUCTURED_FORMAT_CONSOLE", "ecs");
    }

    /**
     * Autoscaling (DESIGN.md 8): every autoscaler scales a workload that exists, from its replicas up; CPU targets
     * are 70 %; the write service and the cdc-consumer also scale on queue depth, external metrics the Prometheus
     * Adapter's rules define; the check service's is pinned to its instance list (in the test of the list).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("kustomizations")
    void autoscalers_scaleExistingWorkloads_onCpuAndQueueDepth(String kustomization) {
        List<Map<String, Object>> objects = render(kustomization);
        Set<String> adapterMetrics = PrometheusRulesTest.adapterExternalMetrics();
        List<Map<String, Object>> autoscalers = objects.stream()
                .filter(o -> "HorizontalPodAutoscaler".equals(o.get("kind"))).toList();

        for (Map<String, Object> autoscaler : autoscalers) {
            Map<String, Object> spec = map(autoscaler, "spec");
            Map<String, Object> target = map(spec, "scaleTargetRef");
            assertThat(target.get("apiVersion")).isEqualTo("apps/v1");
            Map<String, Object> workload = only(objects, (String) target.get("kind"), (String) target.get("name"));
            String name = (String) target.get("name");
            int min = (Integer) spec.get("minReplicas");
            assertThat(min).as(name).isPositive().isLessThanOrEqualTo((Integer) spec.get("maxReplicas"));
            assertThat(map(workload, "spec").get("replicas")).as("replicas of %s: the floor", name).isEqualTo(min);
            for (Map<String, Object> metric : list(spec, "metrics")) {
                switch (String.valueOf(metric.get("type"))) {
                    case "Resource" -> {
                        assertThat(path(metric, "resource", "name")).as(name).isEqualTo("cpu");
                        assertThat(path(metric, "resource", "target")).as(name)
                                .isEqualTo(Map.of("type", "Utilization", "averageUtilization", 70));
                        // Utilization is relative to the request.
                        assertThat(path(list(podSpec(workload), "containers").get(0), "resources", "requests", "cpu"))
                                .as(name).isNotNull();
                    }
                    case "External" -> {
                        assertThat(path(metric, "external", "metric", "name")).as(name).isIn(adapterMetrics);
                        assertThat(path(metric, "external", "target", "type")).as(name).isEqualTo("AverageValue");
                    }
                    default -> throw new AssertionError(name + ": metric type " + metric.get("type"));
                }
            }
        }
        assertThat(autoscalers).extracting(a -> path(map(a, "spec"), "scaleTargetRef", "name"))
                .containsExactlyInAnyOrder(CHECK, "gateway", "follow-write-service", "cdc-consumer");
        assertThat(metricTypes(autoscalersOf(objects, workload(objects, CHECK)))).containsExactly("cpu");
        assertThat(metricTypes(autoscalersOf(objects, workload(objects, "gateway")))).containsExactly("cpu");
        assertThat(metricTypes(autoscalersOf(objects, workload(objects, "follow-write-service"))))
                .containsExactly("cpu", "social_graph_outbox_backlog");
        assertThat(metricTypes(autoscalersOf(objects, workload(objects, "cdc-consumer"))))
                .containsExactly("social_graph_consumer_lag");
    }

    /** Every workload that may run more than one pod (replicas, or its autoscaler's maximum) has a budget. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("kustomizations")
    void everyWorkloadOfSeveralPods_hasOneDisruptionBudget(String kustomization) {
        List<Map<String, Object>> objects = render(kustomization);
        List<Map<String, Object>> budgets = objects.stream()
                .filter(o -> "PodDisruptionBudget".equals(o.get("kind"))).toList();

        for (Map<String, Object> workload : objects.stream()
                .filter(o -> Set.of("Deployment", "StatefulSet").contains(o.get("kind"))).toList()) {
            String name = String.valueOf(metadata(workload).get("name"));
            int most = (Integer) map(workload, "spec").getOrDefault("replicas", 1);
            for (Map<String, Object> autoscaler : autoscalersOf(objects, workload)) {
                most = Math.max(most, (Integer) map(autoscaler, "spec").get("maxReplicas"));
            }
            List<Map<String, Object>> selecting = budgets.stream()
                    .filter(b -> selects(map(map(b, "spec"), "selector"), templateLabels(workload))).toList();
            assertThat(selecting).as("budgets of %s in %s", name, kustomization).hasSizeLessThanOrEqualTo(1);
            if (most > 1) {
                assertThat(selecting).as("budget of %s (up to %d pods) in %s", name, most, kustomization)
                        .singleElement().satisfies(b -> assertThat(map(b, "spec")).containsEntry("maxUnavailable", 1));
            }
        }
    }

    /**
     * Shard-affine reads: the gateway routes a user's reads to the check pod that owns the user's logical shard, and
     * each check pod loads only its shards, both by rendezvous hashing over one list of instance ids. The rendered
     * pods must read that list from one file, and it must name exactly the StatefulSet's pods at their stable DNS
     * names: a missing pod loses its users' reads, an extra or misspelt one refuses to start.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("kustomizations")
    void checkInstances_areTheStatefulSetsPods_andOneListForGatewayAndCheckPods(String kustomization) {
        List<Map<String, Object>> objects = render(kustomization);
        Map<String, Object> statefulSet = only(objects, "StatefulSet", CHECK);
        Map<String, Object> gateway = only(objects, "Deployment", "gateway");
        Map<String, Object> checkContainer = list(podSpec(statefulSet), "containers").get(0);
        Map<String, Object> gatewayContainer = list(podSpec(gateway), "containers").get(0);
        Object replicas = map(statefulSet, "spec").get("replicas");
        assertThat(replicas).as("replicas of %s in %s", CHECK, kustomization).isInstanceOf(Integer.class);
        List<String> pods = IntStream.range(0, (Integer) replicas).mapToObj(i -> CHECK + "-" + i).toList();

        // Both load the file, from the same generated ConfigMap: one source, so they cannot disagree...
        assertThat(locations(checkContainer)).contains("file:" + CHECK_INSTANCES);
        assertThat(locations(gatewayContainer)).contains("file:" + CHECK_INSTANCES);
        MountedFile checkFile = mountedFile(objects, statefulSet, CHECK_INSTANCES);
        MountedFile gatewayFile = mountedFile(objects, gateway, CHECK_INSTANCES);
        assertThat(gatewayFile.configMap()).startsWith("check-instances-").isEqualTo(checkFile.configMap());
        // ...and no environment variable, which outranks the file, replaces either list.
        for (Map<String, Object> container : List.of(checkContainer, gatewayContainer)) {
            assertThat(environment(objects, container)).as("environment of %s", container.get("name"))
                    .noneMatch(name -> INSTANCE_LIST_OVERRIDES.stream().anyMatch(name::startsWith));
        }

        // The gateway's list: one entry per pod, in order, at the pod's stable name under the governing Service.
        Map<String, Object> gatewayConfig = Repo.yamlDocuments(gatewayFile.content()).get(0);
        Object routed = path(gatewayConfig, "spring", "cloud", "discovery", "client", "simple", "instances", CHECK);
        assertThat(routed).as("the gateway's instances of %s", CHECK).isInstanceOf(List.class);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> instances = (List<Map<String, Object>>) routed;
        assertThat(instances).extracting(i -> i.get("instance-id")).as("the gateway's instance ids in %s",
                kustomization).isEqualTo(pods);
        String governing = (String) map(statefulSet, "spec").get("serviceName");
        int port = (Integer) list(checkContainer, "ports").get(0).get("containerPort");
        String namespace = String.valueOf(metadata(statefulSet).get("namespace"));
        for (int i = 0; i < pods.size(); i++) {
            URI uri = URI.create(String.valueOf(instances.get(i).get("uri")));
            String stable = pods.get(i) + "." + governing;
            assertThat(uri.getScheme()).isEqualTo("http");
            assertThat(uri.getHost()).as("host of %s", uri).isIn(stable, stable + "." + namespace,
                    stable + "." + namespace + ".svc", stable + "." + namespace + ".svc.cluster.local");
            assertThat(uri.getPort()).as("port of %s", uri).isEqualTo(port);
        }
        Map<String, Object> headless = map(only(objects, "Service", governing), "spec");
        assertThat(headless).containsEntry("clusterIP", "None").containsEntry("publishNotReadyAddresses", true);
        assertThat(selects(map(headless, "selector"), templateLabels(statefulSet))).isTrue();
        assertThat(list(headless, "ports")).anyMatch(p -> Objects.equals(p.get("port"), port));

        // The check pods' list is the gateway's, and each pod's id is its name.
        Map<String, Object> checkConfig = Repo.yamlDocuments(checkFile.content()).get(0);
        assertThat(idList(path(checkConfig, "graph", "check", "affinity", "instances")))
                .as("graph.check.affinity.instances in %s", kustomization).isEqualTo(pods);
        Map<String, Object> instanceId = list(checkContainer, "env").stream()
                .filter(e -> "GRAPH_CHECK_AFFINITY_INSTANCEID".equals(e.get("name"))).findFirst()
                .orElseThrow(() -> new AssertionError("no GRAPH_CHECK_AFFINITY_INSTANCEID"));
        assertThat(path(instanceId, "valueFrom", "fieldRef", "fieldPath")).isEqualTo("metadata.name");

        // A static list does not follow an autoscaler: the check service's is pinned to the list's length.
        for (Map<String, Object> autoscaler : autoscalersOf(objects, statefulSet)) {
            assertThat(map(autoscaler, "spec")).as("autoscaler of %s in %s", CHECK, kustomization)
                    .containsEntry("minReplicas", replicas).containsEntry("maxReplicas", replicas);
        }
    }

    /**
     * A check pod that is down leaves its slice's users without reads (the gateway does not fail over): pods are
     * replaced one at a time and evicted one at a time.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("kustomizations")
    void checkService_isReplacedAndEvictedOnePodAtATime(String kustomization) {
        List<Map<String, Object>> objects = render(kustomization);
        Map<String, Object> statefulSet = only(objects, "StatefulSet", CHECK);
        Map<String, Object> spec = map(statefulSet, "spec");

        assertThat(spec).containsEntry("podManagementPolicy", "Parallel");
        assertThat(path(spec, "updateStrategy", "type")).isIn(null, "RollingUpdate");
        assertThat(path(spec, "updateStrategy", "rollingUpdate", "maxUnavailable")).isIn(null, 1);
        assertThat(path(spec, "updateStrategy", "rollingUpdate", "partition")).isIn(null, 0);
        Map<String, Object> budget = map(only(objects, "PodDisruptionBudget", CHECK), "spec");
        assertThat(budget).containsEntry("maxUnavailable", 1).doesNotContainKey("minAvailable");
        assertThat(selects(map(budget, "selector"), templateLabels(statefulSet))).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kustomizations")
    void networkPolicies_admitTheGatewayToEveryCheckPod(String kustomization) {
        List<Map<String, Object>> objects = render(kustomization);
        Map<String, Object> statefulSet = only(objects, "StatefulSet", CHECK);
        Map<String, String> checkPod = templateLabels(statefulSet);
        Map<String, String> gatewayPod = templateLabels(only(objects, "Deployment", "gateway"));
        int port = (Integer) list(list(podSpec(statefulSet), "containers").get(0), "ports").get(0)
                .get("containerPort");

        List<String> admitting = new ArrayList<>();
        for (Map<String, Object> policy : objects.stream().filter(o -> "NetworkPolicy".equals(o.get("kind")))
                .toList()) {
            Map<String, Object> spec = map(policy, "spec");
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> rules = (List<Map<String, Object>>) spec.getOrDefault("ingress", List.of());
            if (!selects(map(spec, "podSelector"), checkPod)) {
                continue;
            }
            for (Map<String, Object> rule : rules) {
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> from = (List<Map<String, Object>>) rule.getOrDefault("from", List.of());
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> ports = (List<Map<String, Object>>) rule.get("ports");
                boolean fromGateway = from.stream().anyMatch(peer -> !peer.containsKey("namespaceSelector")
                        && peer.get("podSelector") instanceof Map<?, ?> selector
                        && selects(cast(selector), gatewayPod));
                if (fromGateway && (ports == null || ports.stream().anyMatch(p -> covers(p, port)))) {
                    admitting.add(String.valueOf(metadata(policy).get("name")));
                }
            }
        }
        assertThat(admitting).as("policies admitting the gateway to %s:%d in %s", CHECK, port, kustomization)
                .isNotEmpty();
    }

    /**
     * Redis: a Redis Cluster in the base (the services' seed URIs and the gateway's cluster nodes name the same
     * nodes), one server in the local overlay (no cluster nodes left over, which would make the gateway connect as
     * to a cluster). The check service's old {@code GRAPH_CHECK_REDISURI} is gone: it would override
     * {@code GRAPH_REDIS_URI}.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("kustomizations")
    void redisSettings_nameOneTopologyForEveryService(String kustomization) {
        List<Map<String, Object>> objects = render(kustomization);
        Map<String, String> env = graphEnv(objects);
        List<String> seeds = Arrays.stream(env.getOrDefault("GRAPH_REDIS_URI", "").split(",")).map(String::strip)
                .toList();
        assertThat(seeds).as("GRAPH_REDIS_URI in %s", kustomization)
                .allSatisfy(uri -> assertThat(uri).matches("redis://[a-z0-9.-]+:[0-9]+"));
        List<String> nodes = seeds.stream().map(uri -> uri.substring("redis://".length())).toList();
        for (Map<String, Object> workload : workloads(objects)) {
            for (Map<String, Object> container : list(podSpec(workload), "containers")) {
                assertThat(environment(objects, container)).doesNotContain("GRAPH_CHECK_REDISURI");
            }
        }

        switch (env.get("GRAPH_REDIS_MODE")) {
            case "cluster" -> {
                assertThat(nodes).hasSizeGreaterThanOrEqualTo(3);
                assertThat(env.get("SPRING_DATA_REDIS_CLUSTER_NODES")).isEqualTo(String.join(",", nodes));
                assertThat(env).containsEntry("SPRING_DATA_REDIS_LETTUCE_CLUSTER_REFRESH_ADAPTIVE", "true")
                        .containsEntry("SPRING_DATA_REDIS_LETTUCE_CLUSTER_REFRESH_PERIOD", "1s")
                        .doesNotContainKeys("SPRING_DATA_REDIS_HOST", "SPRING_DATA_REDIS_PORT");
            }
            case "standalone" -> {
                assertThat(nodes).singleElement().isEqualTo(env.get("SPRING_DATA_REDIS_HOST") + ":"
                        + env.get("SPRING_DATA_REDIS_PORT"));
                assertThat(env).doesNotContainKey("SPRING_DATA_REDIS_CLUSTER_NODES");
            }
            case null, default -> throw new AssertionError("GRAPH_REDIS_MODE in " + kustomization + ": "
                    + env.get("GRAPH_REDIS_MODE"));
        }
        if (kustomization.equals("deploy/base")) {
            assertThat(env).containsEntry("GRAPH_REDIS_MODE", "cluster");
        }
        if (kustomization.equals("deploy/overlays/local")) {
            // The in-cluster server of redis.yaml.
            assertThat(env).containsEntry("GRAPH_REDIS_MODE", "standalone");
            assertThat(list(map(only(objects, "Service", env.get("SPRING_DATA_REDIS_HOST")), "spec"), "ports"))
                    .anyMatch(p -> String.valueOf(p.get("port")).equals(env.get("SPRING_DATA_REDIS_PORT")));
        }
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

    /**
     * The management ports (actuator without a credential) admit the namespace "monitoring" and nobody else, in the
     * base and every overlay: every rule that opens a service's management port names exactly that namespace, and
     * some rule does. The API ports stay closed to it.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("kustomizations")
    void networkPolicies_admitOnlyMonitoringToTheManagementPorts(String kustomization) {
        List<Map<String, Object>> objects = render(kustomization);
        List<Map<String, Object>> policies = objects.stream().filter(o -> "NetworkPolicy".equals(o.get("kind")))
                .toList();
        Map<String, Object> monitoring = Map.of("namespaceSelector",
                Map.of("matchLabels", Map.of("kubernetes.io/metadata.name", "monitoring")));

        for (String service : SERVICES) {
            Map<String, String> pod = templateLabels(workload(objects, service));
            int management = ComposeFileTest.managementPort(service);
            int api = ComposeFileTest.serverPort(service);
            boolean admitted = false;
            for (Map<String, Object> policy : policies) {
                Map<String, Object> spec = map(policy, "spec");
                if (!selects(map(spec, "podSelector"), pod)) {
                    continue;
                }
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> rules = (List<Map<String, Object>>) spec.getOrDefault("ingress", List.of());
                for (Map<String, Object> rule : rules) {
                    @SuppressWarnings("unchecked")
                    List<Map<String, Object>> ports = (List<Map<String, Object>>) rule.get("ports");
                    String name = metadata(policy).get("name") + " for " + service;
                    if (ports == null || ports.stream().anyMatch(p -> covers(p, management))) {
                        assertThat(rule.get("from")).as(name).isEqualTo(List.of(monitoring));
                        admitted = true;
                    }
                    if (List.of(monitoring).equals(rule.get("from"))) {
                        assertThat(ports).as(name).isNotNull().noneMatch(p -> covers(p, api));
                    }
                }
            }
            assertThat(admitted).as("monitoring admitted to %s:%d in %s", service, management, kustomization)
                    .isTrue();
        }
    }

    /**
     * The Prometheus Operator overlay's ServiceMonitor scrapes every service's {@code -metrics} Service, and only
     * those, on the port named {@code management}, under the job the alert rules select.
     */
    @Test
    void serviceMonitor_selectsTheManagementPortOfEveryService() {
        List<Map<String, Object>> objects = render("deploy/overlays/prometheus-operator");
        Map<String, Object> monitor = only(objects, "ServiceMonitor", "social-graph");
        Map<String, Object> spec = map(monitor, "spec");

        assertThat(monitor.get("apiVersion")).isEqualTo("monitoring.coreos.com/v1");
        assertThat(list(spec, "endpoints")).singleElement().satisfies(e -> assertThat(e)
                .containsEntry("port", "management").containsEntry("path", "/actuator/prometheus"));
        List<String> selected = new ArrayList<>();
        for (Map<String, Object> service : objects.stream().filter(o -> "Service".equals(o.get("kind"))).toList()) {
            Map<String, String> labels = new LinkedHashMap<>();
            map(metadata(service), "labels").forEach((k, v) -> labels.put(k, String.valueOf(v)));
            if (selects(map(spec, "selector"), labels)) {
                selected.add(String.valueOf(metadata(service).get("name")));
                // job="social-graph", as GraphServiceDown selects.
                assertThat(labels).containsEntry((String) spec.get("jobLabel"), "social-graph");
                assertThat(list(map(service, "spec"), "ports")).extracting(p -> p.get("name"))
                        .containsExactly("management");
            }
        }
        assertThat(selected).containsExactlyInAnyOrderElementsOf(SERVICES.stream().map(s -> s + "-metrics").toList());
    }

    // --- rendering and navigation ----------------------------------------------------------------------------

    /** The base and every overlay under {@code deploy/overlays}. */
    static Stream<String> kustomizations() {
        List<String> all = new ArrayList<>(List.of("deploy/base"));
        try (Stream<Path> overlays = Files.list(Repo.path("deploy/overlays"))) {
            overlays.filter(d -> Files.exists(d.resolve("kustomization.yaml"))).sorted()
                    .forEach(d -> all.add("deploy/overlays/" + d.getFileName()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return all.stream();
    }

    /** A file a pod sees through a ConfigMap volume (plain or projected), and that ConfigMap's rendered name. */
    record MountedFile(String configMap, String content) {
    }

    /** The file at {@code file} in the first container of {@code workload}, looked up in the rendered ConfigMaps. */
    private static MountedFile mountedFile(List<Map<String, Object>> objects, Map<String, Object> workload,
                                           String file) {
        Map<String, Object> pod = podSpec(workload);
        Map<String, Object> container = list(pod, "containers").get(0);
        String directory = file.substring(0, file.lastIndexOf('/'));
        String key = file.substring(file.lastIndexOf('/') + 1);
        String volumeName = list(container, "volumeMounts").stream()
                .filter(m -> directory.equals(m.get("mountPath")) && !m.containsKey("subPath"))
                .map(m -> (String) m.get("name")).findFirst()
                .orElseThrow(() -> new AssertionError(container.get("name") + " mounts nothing at " + directory));
        Map<String, Object> volume = list(pod, "volumes").stream().filter(v -> volumeName.equals(v.get("name")))
                .findFirst().orElseThrow(() -> new AssertionError("no volume " + volumeName));
        List<String> configMaps = new ArrayList<>();
        if (volume.get("configMap") instanceof Map<?, ?> c) {
            configMaps.add((String) c.get("name"));
        }
        if (path(volume, "projected", "sources") instanceof List<?> sources) {
            for (Object source : sources) {
                if (path(cast(source), "configMap", "name") instanceof String name) {
                    configMaps.add(name);
                }
            }
        }
        List<MountedFile> found = new ArrayList<>();
        for (String name : configMaps) {
            Object content = path(only(objects, "ConfigMap", name), "data", key);
            if (content instanceof String text) {
                found.add(new MountedFile(name, text));
            }
        }
        assertThat(found).as("ConfigMaps of %s giving %s", metadata(workload).get("name"), file).hasSize(1);
        return found.get(0);
    }

    /** The locations of {@code SPRING_CONFIG_ADDITIONALLOCATION} (comma-separated, ';' groups several). */
    private static List<String> locations(Map<String, Object> container) {
        return Arrays.stream(env(container, "SPRING_CONFIG_ADDITIONALLOCATION").split("[,;]")).map(String::strip)
                .toList();
    }

    /** Names of every environment variable the container gets: its ConfigMaps' keys and its own env. */
    private static Set<String> environment(List<Map<String, Object>> objects, Map<String, Object> container) {
        Set<String> names = new HashSet<>();
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> envFrom = (List<Map<String, Object>>) container.getOrDefault("envFrom", List.of());
        for (Map<String, Object> source : envFrom) {
            if (path(source, "configMapRef", "name") instanceof String name) {
                Object data = only(objects, "ConfigMap", name).get("data");
                if (data instanceof Map<?, ?> d) {
                    d.keySet().forEach(k -> names.add(String.valueOf(k)));
                }
            }
        }
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> env = (List<Map<String, Object>>) container.getOrDefault("env", List.of());
        env.forEach(e -> names.add(String.valueOf(e.get("name"))));
        return names;
    }

    /** The data of the rendered {@code graph-env} ConfigMap. */
    private static Map<String, String> graphEnv(List<Map<String, Object>> objects) {
        Map<String, Object> configMap = objects.stream().filter(o -> "ConfigMap".equals(o.get("kind"))
                && String.valueOf(metadata(o).get("name")).startsWith("graph-env-")).findFirst()
                .orElseThrow(() -> new AssertionError("no graph-env ConfigMap"));
        Map<String, String> data = new LinkedHashMap<>();
        map(configMap, "data").forEach((k, v) -> data.put(k, String.valueOf(v)));
        return data;
    }

    /** Ids given as a YAML list or as one comma-separated string (Spring binds both to a list). */
    private static List<String> idList(Object value) {
        if (value instanceof List<?> ids) {
            return ids.stream().map(String::valueOf).toList();
        }
        assertThat(value).as("an id list").isInstanceOf(String.class);
        return Arrays.stream(((String) value).split(",")).map(String::strip).toList();
    }

    private static Map<String, String> templateLabels(Map<String, Object> workload) {
        Map<String, String> labels = new LinkedHashMap<>();
        Object template = path(map(workload, "spec"), "template", "metadata", "labels");
        if (template instanceof Map<?, ?> m) {
            m.forEach((k, v) -> labels.put(String.valueOf(k), String.valueOf(v)));
        }
        return labels;
    }

    /** Whether a label selector ({@code matchLabels}, {@code matchExpressions}) selects these labels. */
    private static boolean selects(Map<String, Object> selector, Map<String, String> labels) {
        // A Service's selector is a plain label map; a workload's or policy's has matchLabels/matchExpressions.
        boolean structured = selector.containsKey("matchLabels") || selector.containsKey("matchExpressions");
        Object matchLabels = structured ? selector.getOrDefault("matchLabels", Map.of()) : selector;
        for (Map.Entry<?, ?> e : ((Map<?, ?>) matchLabels).entrySet()) {
            if (!String.valueOf(e.getValue()).equals(labels.get(String.valueOf(e.getKey())))) {
                return false;
            }
        }
        Object expressions = structured ? selector.getOrDefault("matchExpressions", List.of()) : List.of();
        for (Object expression : (List<?>) expressions) {
            Map<String, Object> x = cast(expression);
            String value = labels.get(String.valueOf(x.get("key")));
            List<?> values = (List<?>) x.getOrDefault("values", List.of());
            boolean matches = switch (String.valueOf(x.get("operator"))) {
                case "In" -> value != null && values.contains(value);
                case "NotIn" -> value == null || !values.contains(value);
                case "Exists" -> value != null;
                case "DoesNotExist" -> value == null;
                default -> throw new AssertionError("operator " + x.get("operator"));
            };
            if (!matches) {
                return false;
            }
        }
        return true;
    }

    /** Whether a NetworkPolicy port entry admits TCP {@code port} (a number, or a range up to endPort). */
    private static boolean covers(Map<String, Object> entry, int port) {
        if (!"TCP".equals(entry.getOrDefault("protocol", "TCP"))) {
            return false;
        }
        Object from = entry.get("port");
        if (from == null) {
            return true;
        }
        if (!(from instanceof Integer first)) {
            return false; // a named port: not used by these policies
        }
        int last = entry.get("endPort") instanceof Integer end ? end : first;
        return first <= port && port <= last;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Object value) {
        return (Map<String, Object>) value;
    }

    private static List<Map<String, Object>> render(String kustomization) {
        Path kubectl = Repo.tool("kubectl", "KUBECTL");
        Repo.Run run = Repo.run(rendered, List.of(kubectl.toString(), "kustomize", kustomization));
        assertThat(run.exitCode()).as("kubectl kustomize %s:%n%s", kustomization, run.output()).isZero();
        return Repo.yamlDocuments(run.output());
    }

    /** The Deployment or StatefulSet of a service. */
    private static Map<String, Object> workload(List<Map<String, Object>> objects, String service) {
        return only(objects, service.equals(CHECK) ? "StatefulSet" : "Deployment", service);
    }

    /** The HorizontalPodAutoscalers that scale {@code workload}. */
    private static List<Map<String, Object>> autoscalersOf(List<Map<String, Object>> objects,
                                                           Map<String, Object> workload) {
        return objects.stream().filter(o -> "HorizontalPodAutoscaler".equals(o.get("kind"))).filter(h -> {
            Object target = path(map(h, "spec"), "scaleTargetRef");
            return target instanceof Map<?, ?> t && Objects.equals(t.get("kind"), workload.get("kind"))
                    && Objects.equals(t.get("name"), metadata(workload).get("name"));
        }).toList();
    }

    /** The resource names and external metric names the autoscalers scale on, in order. */
    private static List<String> metricTypes(List<Map<String, Object>> autoscalers) {
        assertThat(autoscalers).hasSize(1);
        return list(map(autoscalers.get(0), "spec"), "metrics").stream()
                .map(m -> String.valueOf("Resource".equals(m.get("type")) ? path(m, "resource", "name")
                        : path(m, "external", "metric", "name"))).toList();
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
            if (path(volume, "projected", "sources") instanceof List<?> sources) {
                for (Object source : sources) {
                    if (path(cast(source), "configMap", "name") instanceof String name) {
                        references.add("ConfigMap/" + name);
                    }
                }
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

    /**
     * The keys of Secret {@code name} (as rendered, with Kustomize's hash suffix) that the pod spec's containers read
     * ({@code valueFrom.secretKeyRef}).
     */
    private static Set<String> secretKeys(Map<String, Object> pod, String name) {
        Set<String> keys = new HashSet<>();
        for (Map<String, Object> container : list(pod, "containers")) {
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> env = (List<Map<String, Object>>) container.getOrDefault("env", List.of());
            for (Map<String, Object> variable : env) {
                if (name.equals(path(variable, "valueFrom", "secretKeyRef", "name"))) {
                    keys.add(String.valueOf(path(variable, "valueFrom", "secretKeyRef", "key")));
                }
            }
        }
        return keys;
    }

    /** The {@code key=value} lines of the copy's generated {@code deploy/overlays/local/secrets.env}. */
    private static Map<String, String> generatedLocalSecrets() {
        return Repo.read(rendered.resolve("deploy/overlays/local").resolve(Repo.LOCAL_SECRETS_FILE)).lines()
                .filter(l -> !l.isBlank() && !l.startsWith("#"))
                .collect(Collectors.toMap(l -> l.substring(0, l.indexOf('=')), l -> l.substring(l.indexOf('=') + 1)));
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
