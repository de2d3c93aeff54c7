package dev.socialgraph.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Prometheus files of {@code deploy/prometheus} checked by {@code promtool}: rule syntax, the unit tests of
 * every alert, both scrape configurations, and the syntax of every Grafana dashboard expression (written as
 * recording rules so {@code promtool check rules} parses them), and the Prometheus Adapter's queries. Also: every
 * alert the issue asks for exists, has a test case where it fires and one where it stays silent, and links its
 * section of {@code docs/runbooks.md}.
 */
class PrometheusRulesTest {

    private static final Path PROMETHEUS = Repo.path("deploy/prometheus");
    private static final Set<String> ALERTS = Set.of("GraphConsumerLagHigh", "GraphOutboxStale",
            "GraphCheckLatencyP99High", "GraphRedisHitRatioCollapsed", "GraphReconcilerRepairsSpiking",
            "GraphServiceDown", "GraphServiceAbsent", "GraphEventsDeadLettered", "GraphGatewayErrorRatioHigh",
            "GraphStoreBreakerOpen");
    /** Where docs/runbooks.md is published; each alert links its section. */
    private static final String RUNBOOKS = "https://socialgraph.dev/docs/runbooks#";
    private static final Path ADAPTER = Repo.path("deploy/prometheus-adapter/config.yaml");

    @Test
    void rules_passPromtoolCheck() {
        Repo.Run run = promtool("check", "rules", "rules/social-graph-alerts.yml");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("SUCCESS: " + ALERTS.size() + " rules found");
    }

    @Test
    void rules_passTheirPromtoolUnitTests() {
        Repo.Run run = promtool("test", "rules", "tests/social-graph-alerts-test.yml");

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("SUCCESS");
    }

    @Test
    void scrapeConfigs_passPromtoolCheck() {
        Repo.Run run = promtool("check", "config", "prometheus.yml", "prometheus-kubernetes.yml");

        assertThat(run.exitCode()).as(run.output()).isZero();
    }

    @Test
    void everyAlert_hasAFiringAndASilentTestCase() {
        List<Map<String, Object>> rules = rules();
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> tests = (List<Map<String, Object>>) Repo
                .yaml(PROMETHEUS.resolve("tests/social-graph-alerts-test.yml")).get("tests");
        Set<String> fires = new HashSet<>();
        Set<String> silent = new HashSet<>();
        for (Map<String, Object> test : tests) {
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> cases = (List<Map<String, Object>>) test.get("alert_rule_test");
            for (Map<String, Object> c : cases) {
                List<?> expected = (List<?>) c.get("exp_alerts");
                (expected.isEmpty() ? silent : fires).add((String) c.get("alertname"));
            }
        }

        assertThat(rules).extracting(r -> (String) r.get("alert")).containsExactlyInAnyOrderElementsOf(ALERTS);
        assertThat(fires).isEqualTo(ALERTS);
        assertThat(silent).isEqualTo(ALERTS);
    }

    @Test
    void everyAlert_linksItsOwnRunbookSection() {
        Set<String> anchors = new HashSet<>();
        for (String line : Repo.read(Repo.path("docs/runbooks.md")).lines().toList()) {
            if (line.startsWith("## ")) {
                anchors.add(githubAnchor(line.substring(3)));
            }
        }

        for (Map<String, Object> rule : rules()) {
            String alert = (String) rule.get("alert");
            @SuppressWarnings("unchecked")
            Map<String, Object> annotations = (Map<String, Object>) rule.get("annotations");
            assertThat(annotations).as(alert).containsEntry("runbook_url", RUNBOOKS + alert.toLowerCase(Locale.ROOT));
            assertThat(anchors).as("sections of docs/runbooks.md").contains(alert.toLowerCase(Locale.ROOT));
        }
        assertThat(anchors).hasSizeGreaterThanOrEqualTo(ALERTS.size());
    }

    @Test
    void adapterQueries_parse(@TempDir Path dir) throws IOException {
        List<Map<String, Object>> rules = adapterRules();
        StringBuilder recording = new StringBuilder("groups:\n  - name: adapter\n    rules:\n");
        for (Map<String, Object> rule : rules) {
            String series = (String) rule.get("seriesQuery");
            String metric = series.substring(0, series.indexOf('{'));
            // The adapter's template: the series' name, and the namespace of the autoscaler asking.
            String query = ((String) rule.get("metricsQuery")).replace("<<.Series>>", metric)
                    .replace("<<.LabelMatchers>>", "namespace=\"social-graph\"");
            assertThat(query).as(metric).doesNotContain("<<");
            recording.append("      - record: adapter:").append(metric).append('\n')
                    .append("        expr: '").append(query.replace("'", "''")).append("'\n")
                    .append("      - record: adapter:").append(metric).append(":series\n")
                    .append("        expr: '").append(series.replace("'", "''")).append("'\n");
        }
        Path file = dir.resolve("adapter-queries.yml");
        Files.writeString(file, recording);

        Repo.Run run = Repo.run(dir, List.of(Repo.tool("promtool", "PROMTOOL").toString(), "check", "rules",
                file.toString()));

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(adapterExternalMetrics()).containsExactlyInAnyOrder("social_graph_outbox_backlog",
                "social_graph_consumer_lag");
        assertThat(rules).allSatisfy(r -> assertThat(r.toString()).contains("resource=namespace"));
    }

    @Test
    void dashboardExpressions_parse(@TempDir Path dir) throws IOException {
        List<String> expressions = GrafanaDashboardTest.expressions();
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        for (int i = 0; i < expressions.size(); i++) {
            rules.append("      - record: dashboard:expression_").append(i).append('\n')
                    .append("        expr: |\n");
            expressions.get(i).lines().forEach(l -> rules.append("          ").append(l).append('\n'));
        }
        Path file = dir.resolve("dashboard-expressions.yml");
        Files.writeString(file, rules);

        Repo.Run run = Repo.run(dir, List.of(Repo.tool("promtool", "PROMTOOL").toString(), "check", "rules",
                file.toString()));

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("SUCCESS: " + expressions.size() + " rules found");
    }

    /** Metric names the alert rules and the Prometheus Adapter's queries read (for {@code ExportedMetricsIT}). */
    static Set<String> ruleMetricNames() {
        Set<String> names = new HashSet<>();
        for (Map<String, Object> rule : rules()) {
            names.addAll(PromQl.metricNames((String) rule.get("expr")));
        }
        for (Map<String, Object> rule : adapterRules()) {
            names.addAll(PromQl.metricNames((String) rule.get("seriesQuery")));
        }
        return names;
    }

    /** The external metrics the Prometheus Adapter's rules serve (their {@code name.as}). */
    static Set<String> adapterExternalMetrics() {
        Set<String> names = new HashSet<>();
        for (Map<String, Object> rule : adapterRules()) {
            @SuppressWarnings("unchecked")
            Map<String, Object> name = (Map<String, Object>) rule.get("name");
            names.add((String) name.get("as"));
        }
        return names;
    }

    private static List<Map<String, Object>> rules() {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rules = (List<Map<String, Object>>) ((List<Map<String, Object>>) Repo
                .yaml(PROMETHEUS.resolve("rules/social-graph-alerts.yml")).get("groups")).get(0).get("rules");
        return rules;
    }

    private static List<Map<String, Object>> adapterRules() {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rules = (List<Map<String, Object>>) Repo.yaml(ADAPTER).get("externalRules");
        return rules;
    }

    /** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens. */
    static String githubAnchor(String heading) {
        return heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    private static Repo.Run promtool(String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(Repo.tool("promtool", "PROMTOOL").toString());
        command.addAll(List.of(arguments));
        return Repo.run(PROMETHEUS, command);
    }
}
