package dev.socialgraph.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every metric the alert rules and the Grafana dashboard read is exported by the services: all five run from
 * their runnable jars (each in its own JVM, as in a container) against real PostgreSQL shards, Redis and Kafka,
 * serve one follow, one check and one gateway request, and their {@code /actuator/prometheus} scrapes together
 * must name every metric of {@code deploy/} ({@code up} is Prometheus' own). Also: each service tags its series
 * with {@code application=<its name>}, which the rules' and the dashboard's selectors rely on.
 */
class ExportedMetricsIT {

    private static final Duration STARTUP = Duration.ofSeconds(180);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    /** Series Prometheus makes itself, never exported by a target. */
    private static final Set<String> SYNTHETIC = Set.of("up");

    private static TestShards shards;
    private static Path snapshots;
    private static final Map<String, ServiceProcess> SERVICES = new LinkedHashMap<>();

    @BeforeAll
    static void startEveryService() throws IOException {
        shards = TestShards.create("deploy_metrics");
        snapshots = Files.createTempDirectory("deploy-metrics-bloom");
        RedisServer redis = TestServers.redis();
        int redisDatabase = redis.freshDatabase();
        String redisUri = redis.uri(redisDatabase);
        KafkaServer kafka = TestServers.kafka();
        String topic = kafka.createTopic("deploy-follow-events", 12);
        String deadLetters = kafka.createTopic(topic + ".DLT", 1);

        Map<String, String> common = new HashMap<>(shards.springProperties());
        common.put("spring.main.banner-mode", "off");
        common.put("logging.level.org.apache.kafka", "warn");

        Map<String, String> write = new HashMap<>(common);
        write.put("graph.shards.migrate-on-startup", "true");
        write.put("graph.write.topic", topic);
        write.put("graph.write.redis.uri", redisUri);
        write.put("graph.write.relay.bootstrap-servers", kafka.bootstrapServers());
        start("follow-write-service", write);

        Map<String, String> check = new HashMap<>(common);
        check.put("graph.shards.migrate-on-startup", "false");
        check.put("graph.check.redis-uri", redisUri);
        check.put("graph.check.bloom.kafka-bootstrap", kafka.bootstrapServers());
        check.put("graph.check.bloom.topic", topic);
        check.put("graph.check.bloom.snapshot-dir", snapshots.toString());
        start("follow-check-service", check);

        Map<String, String> cdc = new HashMap<>(common);
        cdc.put("graph.shards.migrate-on-startup", "false");
        cdc.put("spring.kafka.bootstrap-servers", kafka.bootstrapServers());
        cdc.put("graph.cdc.topic", topic);
        cdc.put("graph.cdc.dlt-topic", deadLetters);
        cdc.put("graph.cdc.group-id", "cdc-" + topic);
        cdc.put("graph.cdc.redis-uri", redisUri);
        start("cdc-consumer", cdc);

        Map<String, String> reconciler = new HashMap<>(common);
        reconciler.put("graph.shards.migrate-on-startup", "false");
        reconciler.put("graph.reconciler.bloom.kafka-bootstrap", kafka.bootstrapServers());
        reconciler.put("graph.reconciler.bloom.topic", topic);
        reconciler.put("graph.reconciler.bloom.snapshot-dir", snapshots.toString());
        reconciler.put("graph.reconciler.bloom.scheduled", "false");
        start("reconciler", reconciler);

        Map<String, String> gateway = new HashMap<>();
        gateway.put("spring.main.banner-mode", "off");
        gateway.put("spring.data.redis.host", redis.host());
        gateway.put("spring.data.redis.port", Integer.toString(redis.port()));
        gateway.put("spring.data.redis.database", Integer.toString(redisDatabase));
        gateway.put("graph.gateway.check-uri", SERVICES.get("follow-check-service").baseUrl());
        gateway.put("graph.gateway.write-uri", SERVICES.get("follow-write-service").baseUrl());
        start("gateway", gateway);
    }

    @AfterAll
    static void stopEveryService() throws IOException {
        List<ServiceProcess> running = new ArrayList<>(SERVICES.values());
        Collections.reverse(running);
        running.forEach(ServiceProcess::close);
        if (shards != null) {
            shards.close();
        }
        if (snapshots != null) {
            try (var files = Files.list(snapshots)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(snapshots);
        }
    }

    @Test
    void everyMetricOfTheRulesAndTheDashboard_isExported() throws Exception {
        HttpResponse<String> follow = send("PUT", "follow-write-service", "/internal/v1/users/1/following/2");
        assertThat(follow.statusCode()).isEqualTo(200);
        // The follow token makes the check read past the bloom filter, which learns the edge from Kafka later.
        Matcher token = Pattern.compile("\"followToken\":\"([^\"]+)\"").matcher(follow.body());
        assertThat(token.find()).as(follow.body()).isTrue();
        assertThat(send("GET", "follow-check-service", "/internal/v1/users/1/following/2",
                "X-Follow-Token", token.group(1)).body()).contains("\"following\":true");
        assertThat(send("GET", "gateway", "/v1/users/1/following/2").statusCode()).isEqualTo(401);
        // The consumer's Kafka metrics appear once it has fetched; the follow reaches it through the outbox.
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                assertThat(scrape("cdc-consumer")).contains("kafka_consumer_fetch_manager_records_lag_max{")
                        .contains("graph_cdc_events_applied_total{"));

        Set<String> exported = new TreeSet<>(SYNTHETIC);
        for (String service : SERVICES.keySet()) {
            String scrape = scrape(service);
            // Kept for reading: target/scrapes/<service>.txt lists what each service exports.
            Files.createDirectories(Path.of("target", "scrapes"));
            Files.writeString(Path.of("target", "scrapes", service + ".txt"), scrape);
            assertThat(scrape).as(service).contains("process_uptime_seconds{application=\"" + service + "\"");
            exported.addAll(names(scrape));
        }
        Set<String> wanted = new TreeSet<>(PrometheusRulesTest.ruleMetricNames());
        wanted.addAll(GrafanaDashboardTest.metricNames());

        assertThat(wanted).hasSizeGreaterThan(25);
        assertThat(exported).containsAll(wanted);
    }

    @Test
    void everyBucketBoundTheDashboardSelects_isAnExportedBound() throws Exception {
        Set<String> bounds = new TreeSet<>();
        Matcher exportedBound = Pattern.compile("^graph_check_latency_seconds_bucket\\{.*le=\"([^\"]+)\"",
                Pattern.MULTILINE).matcher(scrape("follow-check-service"));
        while (exportedBound.find()) {
            bounds.add(exportedBound.group(1));
        }
        List<String> selectors = new ArrayList<>();
        Matcher selected = Pattern.compile("le(=~?)\"([^\"]+)\"").matcher(
                String.join("\n", GrafanaDashboardTest.expressions()));
        while (selected.find()) {
            selectors.add(selected.group(1) + selected.group(2));
        }

        assertThat(bounds).contains("0.001");
        assertThat(selectors).isNotEmpty().allSatisfy(selector -> {
            Pattern bound = selector.startsWith("=~") ? Pattern.compile(selector.substring(2))
                    : Pattern.compile(Pattern.quote(selector.substring(1)));
            assertThat(bounds).as("exported bounds matching le%s", selector)
                    .anyMatch(b -> bound.matcher(b).matches());
        });
    }

    private static void start(String module, Map<String, String> properties) {
        properties.put("spring.application.name", module);
        SERVICES.put(module, ServiceProcess.start(module, properties, STARTUP));
    }

    private static String scrape(String service) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
                        URI.create(SERVICES.get(service).managementUrl() + "/actuator/prometheus"))
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(service).isEqualTo(200);
        return response.body();
    }

    private static HttpResponse<String> send(String method, String service, String path, String... headers)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(SERVICES.get(service).baseUrl() + path))
                .timeout(Duration.ofSeconds(10)).method(method, HttpRequest.BodyPublishers.noBody())
                .header("X-Service-Token", ServiceProcess.SERVICE_TOKEN); // each process got it from ServiceProcess
        if (headers.length > 0) {
            request.headers(headers);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Metric names of a Prometheus text exposition: the part of each sample line before its labels or value. */
    private static Set<String> names(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }
}
