package dev.socialgraph.reconciler.admin;

import static dev.socialgraph.reconciler.ShardFixture.inShard;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.reconciler.ReconcilerApplication;
import dev.socialgraph.reconciler.ShardFixture;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.testsupport.ActuatorProbe;
import dev.socialgraph.testsupport.GuardProbe;
import dev.socialgraph.testsupport.TestShards;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The admin endpoints over HTTP: start a scan, follow its progress, and reject bad requests as problem+json. */
@SpringBootTest(classes = ReconcilerApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ScanAdminIT {

    private static final TestShards SHARDS = TestShards.create("reconciler_admin");

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.shards.migrate-on-startup", () -> "true");
        registry.add("graph.reconciler.sampling.enabled", () -> "false");
    }

    @AfterAll
    static void dropShards() {
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Autowired
    ShardDataSources sources;

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("X-Service-Token", ServiceProcess.SERVICE_TOKEN)
                .timeout(Duration.ofSeconds(10));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void adminEndpoints_withoutTheServiceCredentialOrWithAnOversizedBody_startNothing() throws Exception {
        long before = scansRecorded();

        GuardProbe.assertRefusedWithoutCredential(port, "POST", "/admin/scans");
        GuardProbe.assertRefusedWithoutCredential(port, "GET", "/admin/scans/1");
        GuardProbe.assertRefusedWithoutCredential(port, "DELETE", "/admin/scans/1");
        GuardProbe.assertRefusedWithoutCredential(port, "POST", "/admin/snapshots");
        GuardProbe.assertOversizedBodyRefused(port, "POST", "/admin/scans", ServiceProcess.SERVICE_TOKEN);

        assertThat(scansRecorded()).isEqualTo(before);
    }

    /** Rows of {@code reconciler_scan} (in the follower database of logical shard 0): one per scan ever started. */
    private long scansRecorded() throws Exception {
        try (Connection c = sources.forUser(ShardGroup.FOLLOWER, 0).getConnection();
             ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM reconciler_scan")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void postScan_startsAScan_whoseStatusReportsProgressAndRepairs() throws Exception {
        ShardFixture fixture = new ShardFixture(sources);
        long follower = inShard(3, 0);
        long followee = 30_001;
        long old = System.currentTimeMillis() - 600_000;
        fixture.following(follower, new long[] {followee}, new long[] {old});
        fixture.followerRow(followee, new long[] {follower}, new long[] {old}, 7);

        HttpResponse<String> started = send("POST", "/admin/scans", "{\"firstShard\":0,\"lastShard\":255}");

        assertThat(started.statusCode()).isEqualTo(202);
        Matcher m = Pattern.compile("\"id\":(\\d+)").matcher(started.body());
        assertThat(m.find()).isTrue();
        String id = m.group(1);
        assertThat(started.headers().firstValue("Location")).hasValue("/admin/scans/" + id);

        await().atMost(Duration.ofSeconds(30)).until(() -> send("GET", "/admin/scans/" + id, null).body()
                .contains("\"state\":\"completed\""));
        String status = send("GET", "/admin/scans/" + id, null).body();
        assertThat(status).contains("\"progress\":1.0", "\"phase\":\"done\"", "\"wrong_count\":1",
                "\"missing_follower\":0", "\"follow_under_block\":0", "\"repairs\":1", "\"rowsScanned\":2");
        assertThat(fixture.followerRow(followee).followerCount()).isEqualTo(1);

        HttpResponse<String> cancelDone = send("DELETE", "/admin/scans/" + id, null);
        assertThat(cancelDone.statusCode()).isEqualTo(409);
        assertThat(cancelDone.body()).contains("\"parameter\":\"id\"", "is completed, not running");

        String metrics = ActuatorProbe.get(managementPort, "/actuator/prometheus").body();
        assertThat(metrics).containsPattern(
                "reconciler_divergences_total\\{[^}]*kind=\"wrong_count\",outcome=\"repaired\"[^}]*} 1\\.0");
        assertThat(metrics).containsPattern(
                "reconciler_divergences_total\\{[^}]*kind=\"follow_under_block\",outcome=\"found\"[^}]*} 0\\.0");
        assertThat(metrics).containsPattern("reconciler_scan_rows_total\\{[^}]*group=\"following\"[^}]*} 1\\.0");
        assertThat(metrics).containsPattern("reconciler_scan_progress\\{[^}]*} 1\\.0");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"firstShard\":0}                      | lastShard",
            "{\"firstShard\":-1,\"lastShard\":3}     | firstShard",
            "{\"firstShard\":5,\"lastShard\":256}    | lastShard",
            "{\"firstShard\":300,\"lastShard\":300}  | firstShard",
            "{\"firstShard\":9,\"lastShard\":3}      | lastShard",
            "{\"firstShard\":\"x\",\"lastShard\":3}  | firstShard",
            "not json                                | body"})
    void postScan_withBadBody_isProblem400NamingTheField(String body, String field) throws Exception {
        HttpResponse<String> r = send("POST", "/admin/scans", body);

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                ct -> assertThat(ct).startsWith("application/problem+json"));
        assertThat(r.body()).contains("\"parameter\":\"" + field + "\"", "\"status\":400");
    }

    @Test
    void getScan_whenUnknownOrNotANumber_isProblem() throws Exception {
        HttpResponse<String> missing = send("GET", "/admin/scans/987654", null);
        HttpResponse<String> cancelMissing = send("DELETE", "/admin/scans/987654", null);
        HttpResponse<String> notNumber = send("GET", "/admin/scans/abc", null);

        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).contains("\"parameter\":\"id\"");
        assertThat(cancelMissing.statusCode()).isEqualTo(404);
        assertThat(notNumber.statusCode()).isEqualTo(400);
        assertThat(notNumber.body()).contains("\"parameter\":\"id\"");
        assertThat(notNumber.headers().firstValue("Content-Type")).hasValueSatisfying(
                ct -> assertThat(ct).startsWith("application/problem+json"));
    }
}
