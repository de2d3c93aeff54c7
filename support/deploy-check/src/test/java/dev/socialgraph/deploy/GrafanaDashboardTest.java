package dev.socialgraph.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard {@code deploy/grafana/dashboards/social-graph.json}: its structure (what Grafana needs to
 * load and lay it out), that it covers every metric of DESIGN.md section 8, and that the compose provisioning
 * points at it. Its expressions' syntax is checked by {@code PrometheusRulesTest} (promtool) and their metric
 * names against the running services by {@code ExportedMetricsIT}.
 */
class GrafanaDashboardTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> PANEL_TYPES = Set.of("row", "timeseries", "stat", "gauge", "table");

    @Test
    void dashboard_hasTheStructureGrafanaLoads() {
        JsonNode dashboard = dashboard();

        assertThat(dashboard.path("uid").asText()).isEqualTo("social-graph");
        assertThat(dashboard.path("title").asText()).isNotBlank();
        assertThat(dashboard.path("schemaVersion").asInt()).isGreaterThanOrEqualTo(36);
        JsonNode variable = dashboard.path("templating").path("list").get(0);
        assertThat(variable.path("type").asText()).isEqualTo("datasource");
        assertThat(variable.path("query").asText()).isEqualTo("prometheus");
        Set<Integer> ids = new HashSet<>();
        Set<String> cells = new HashSet<>();
        for (JsonNode panel : dashboard.path("panels")) {
            String title = panel.path("title").asText();
            assertThat(ids.add(panel.path("id").asInt())).as("unique id of %s", title).isTrue();
            assertThat(panel.path("type").asText()).as(title).isIn(PANEL_TYPES);
            JsonNode grid = panel.path("gridPos");
            int x = grid.path("x").asInt();
            int y = grid.path("y").asInt();
            int w = grid.path("w").asInt();
            int h = grid.path("h").asInt();
            assertThat(w).as(title).isPositive();
            assertThat(h).as(title).isPositive();
            assertThat(x + w).as("%s fits the 24 columns", title).isLessThanOrEqualTo(24);
            for (int row = y; row < y + h; row++) {
                for (int column = x; column < x + w; column++) {
                    assertThat(cells.add(row + "," + column)).as("%s overlaps another panel", title).isTrue();
                }
            }
            if (!panel.path("type").asText().equals("row")) {
                assertThat(panel.path("datasource").path("uid").asText()).as(title).isEqualTo("${datasource}");
                assertThat(panel.path("targets")).as(title).isNotEmpty();
                Set<String> refIds = new HashSet<>();
                for (JsonNode target : panel.path("targets")) {
                    assertThat(target.path("expr").asText()).as(title).isNotBlank();
                    assertThat(refIds.add(target.path("refId").asText())).as(title).isTrue();
                }
            }
        }
    }

    @Test
    void dashboard_coversTheMetricsOfDesignSection8() {
        Set<String> names = metricNames();

        assertThat(names).contains(
                "graph_check_latency_seconds_bucket",        // check latency histogram, SLO buckets, by layer
                "graph_check_latency_seconds_count",         // bloom negatives (layer=bloom), Redis hit ratio
                "graph_check_bloom_false_positives_total",   // bloom false positives
                "graph_outbox_backlog",                      // outbox backlog
                "graph_outbox_oldest_age_seconds",           // outbox age
                "kafka_consumer_fetch_manager_records_lag_max", // consumer lag
                "reconciler_divergences_total",              // reconciler repairs
                "graph_write_results_total");                // write results by outcome
        String text = dashboard().toString();
        assertThat(text).contains("le=~\\\"3.0E-4|0.0003\\\"", "le=\\\"0.001\\\"", "layer=\\\"redis\\\"");
    }

    @Test
    void dashboard_showsTheGatewaysLatencyPercentiles() {
        JsonNode latency = null;
        for (JsonNode panel : dashboard().path("panels")) {
            if (panel.path("title").asText().equals("Gateway latency")) {
                latency = panel;
            }
        }
        assertThat(latency).as("panel \"Gateway latency\"").isNotNull();
        List<String> targets = new ArrayList<>();
        latency.path("targets").forEach(t -> targets.add(t.path("expr").asText()));

        assertThat(latency.path("fieldConfig").path("defaults").path("unit").asText()).isEqualTo("s");
        assertThat(targets).anyMatch(e -> e.startsWith("histogram_quantile(0.99,")
                && e.contains("http_server_requests_seconds_bucket{application=\"gateway\""));
        assertThat(targets).anyMatch(e -> e.startsWith("histogram_quantile(0.5,")
                && e.contains("http_server_requests_seconds_bucket{application=\"gateway\""));
        // Each target reads the gateway's requests only, without the scrapes and probes of the management port.
        assertThat(targets).allSatisfy(e -> assertThat(e).contains("application=\"gateway\", uri!~\"/actuator.*\""));
    }

    @Test
    void composeProvisioning_loadsTheDashboardFromItsMountedDirectory() {
        var provider = Repo.yaml(Repo.path("deploy/grafana/provisioning/dashboards/social-graph.yml"));
        var datasource = Repo.yaml(Repo.path("deploy/grafana/provisioning/datasources/prometheus.yml"));

        assertThat(provider.toString()).contains("path=/var/lib/grafana/dashboards");
        assertThat(Repo.read(Repo.path("docker-compose.yml")))
                .contains("./deploy/grafana/dashboards:/var/lib/grafana/dashboards:ro");
        assertThat(datasource.toString()).contains("type=prometheus", "url=http://prometheus:9090");
    }

    /** Every target expression of the dashboard, in panel order. */
    static List<String> expressions() {
        List<String> expressions = new ArrayList<>();
        for (JsonNode panel : dashboard().path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                expressions.add(target.path("expr").asText());
            }
        }
        return expressions;
    }

    /** Metric names the dashboard reads. */
    static Set<String> metricNames() {
        Set<String> names = new TreeSet<>();
        expressions().forEach(e -> names.addAll(PromQl.metricNames(e)));
        return names;
    }

    private static JsonNode dashboard() {
        try {
            return JSON.readTree(Repo.path("deploy/grafana/dashboards/social-graph.json").toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
