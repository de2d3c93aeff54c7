package dev.socialgraph.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.e2e.OtlpReceiver.ReceivedSpan;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One follow is one trace (DESIGN.md 8), across real processes: the gateway, follow-write-service (its request
 * and its outbox relay), cdc-consumer and follow-check-service (its follow-events listener), each exporting its
 * spans over OTLP/HTTP to a receiver in this JVM ({@link OtlpReceiver}), every request sampled. The client sends a
 * W3C {@code traceparent} of its own, so the trace is known in advance and the gateway's span must be its child.
 * Prints every span of the trace (service, name, kind, duration) in start order.
 */
class TraceIT {

    static final Duration STARTUP = Duration.ofSeconds(180);
    static final Duration SPANS = Duration.ofSeconds(60);
    static final String JWT_SECRET = "trace-it-jwt-secret-0123456789-abcdefghijkl";
    static final String REQUEST_ID = "trace-it-follow-warm";

    static OtlpReceiver receiver;
    static Pipeline pipeline;
    static ServiceProcess check;
    static ServiceProcess gateway;

    @BeforeAll
    static void start() throws Exception {
        receiver = OtlpReceiver.start();
        Map<String, String> tracing = Map.of(
                "management.tracing.sampling.probability", "1.0",
                "management.opentelemetry.tracing.export.otlp.endpoint", receiver.endpoint(),
                // Spans leave each service within a tenth of a second instead of Boot's 5 s.
                "management.opentelemetry.tracing.export.schedule-delay", "100ms",
                // A per-request log line of the write service, to see the trace and request ids in it.
                "logging.level.org.springframework.web.servlet.DispatcherServlet", "debug");
        pipeline = Pipeline.start(Pipeline.Settings.defaults("e2e_trace").withRelayPollInterval(Duration.ofMillis(50))
                .withServiceProperties(tracing));
        Map<String, String> checkProps = new HashMap<>(pipeline.checkServiceProperties());
        checkProps.put("graph.check.bloom.snapshot-dir", "target/trace-it-no-snapshots");
        checkProps.put("graph.check.feed.max-lag", "60s");
        // The check service logs as containers do (JSON, ECS), and its listener's line per traced record.
        checkProps.put("logging.structured.format.console", "ecs");
        checkProps.put("logging.level.dev.socialgraph.check.feed.FollowEventsListener", "debug");
        check = ServiceProcess.start("follow-check-service", checkProps, STARTUP);

        RedisServer redis = TestServers.redis();
        Map<String, String> gatewayProps = new HashMap<>(tracing);
        gatewayProps.put("graph.gateway.jwt-secret", JWT_SECRET);
        gatewayProps.put("graph.gateway.write-uri", "http://127.0.0.1:" + pipeline.writePort());
        gatewayProps.put("graph.gateway.check-uri", check.baseUrl());
        gatewayProps.put("graph.gateway.response-timeout", "30s"); // a cold service JVM on a loaded machine
        gatewayProps.put("spring.data.redis.host", redis.host());
        gatewayProps.put("spring.data.redis.port", Integer.toString(redis.port()));
        gateway = ServiceProcess.start("gateway", gatewayProps, STARTUP);
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {gateway, check, pipeline, receiver}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    // keep closing the others
                }
            }
        }
    }

    /**
     * Two follows, each its own trace; the first meets cold JVMs (its spans show class loading and first
     * connections), the second is the one to quote. Both are checked.
     */
    @Test
    void aFollow_isOneTrace_fromTheGatewayThroughTheRelayToBothConsumers() throws Exception {
        long follower = 256L * 31 + 5;
        assertOneTrace(follower, 256L * 47 + 200, "trace-it-follow-cold");
        assertOneTrace(follower, 256L * 48 + 200, REQUEST_ID);
    }

    private void assertOneTrace(long follower, long followee, String requestId) throws Exception {
        String traceId = "5ce1a11fa110b7e1" + Long.toHexString(System.nanoTime() | (1L << 60));
        String clientSpanId = "c11e47000000a001";

        HttpResponse<String> reply = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(gateway.baseUrl() + "/v1/me/following/" + followee))
                .PUT(HttpRequest.BodyPublishers.noBody())
                .header("Authorization", "Bearer " + jwt(follower))
                .header("traceparent", "00-" + traceId + "-" + clientSpanId + "-01")
                .header("X-Request-Id", requestId)
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);

        await("the trace's spans of every process").atMost(SPANS).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    List<ReceivedSpan> spans = receiver.trace(traceId);
                    return find(spans, "gateway", "SERVER").isPresent()
                            && find(spans, "follow-write-service", "SERVER").isPresent()
                            && find(spans, "follow-write-service", "PRODUCER").isPresent()
                            && find(spans, "cdc-consumer", "CONSUMER").isPresent()
                            && find(spans, "follow-check-service", "CONSUMER").isPresent();
                });
        List<ReceivedSpan> spans = receiver.trace(traceId).stream()
                .sorted(Comparator.comparingLong(ReceivedSpan::startNanos)).toList();
        System.out.println("Trace " + traceId + " of PUT /v1/me/following/" + followee + " (X-Request-Id "
                + requestId + "), " + spans.size() + " spans in start order:");
        System.out.printf("  %-22s %-48s %-9s %10s  %-16s %s%n", "service", "name", "kind", "duration", "span",
                "parent");
        for (ReceivedSpan s : spans) {
            System.out.printf("  %-22s %-48s %-9s %7.2f ms  %-16s %s%n", s.service(), s.name(), s.kind(), s.millis(),
                    s.spanId(), s.parentId());
        }

        ReceivedSpan gatewaySpan = find(spans, "gateway", "SERVER").orElseThrow();
        ReceivedSpan write = find(spans, "follow-write-service", "SERVER").orElseThrow();
        ReceivedSpan publish = find(spans, "follow-write-service", "PRODUCER").orElseThrow();
        ReceivedSpan cdc = find(spans, "cdc-consumer", "CONSUMER").orElseThrow();
        ReceivedSpan checkListener = find(spans, "follow-check-service", "CONSUMER").orElseThrow();
        assertThat(gatewaySpan.parentId()).as("the gateway continues the client's trace").isEqualTo(clientSpanId);
        assertThat(write.parentId()).as("the write service's request span").isEqualTo(gatewaySpan.spanId());
        assertThat(write.name()).isEqualTo("http put /internal/v1/users/{followerId}/following/{followeeId}");
        assertThat(publish.parentId()).as("the relay continues the context stored with the outbox row")
                .isEqualTo(write.spanId());
        assertThat(publish.name()).isEqualTo("follow-events publish");
        assertThat(cdc.parentId()).as("cdc-consumer continues the record's traceparent").isEqualTo(publish.spanId());
        assertThat(cdc.name()).isEqualTo("follow-events process");
        assertThat(checkListener.parentId()).as("the check service's listener too").isEqualTo(publish.spanId());
        assertThat(checkListener.name()).isEqualTo("follow-events process");
        assertThat(spans).extracting(ReceivedSpan::service).containsOnly("gateway", "follow-write-service",
                "cdc-consumer", "follow-check-service");

        // The check listener's JSON log line of the record carries its span's ids and the request id, from Kafka.
        Path checkLog = Path.of("target", "follow-check-service-" + check.port() + ".log");
        await("the check listener's log line").atMost(SPANS).untilAsserted(() ->
                assertThat(Files.readAllLines(checkLog)).filteredOn(line -> line.contains("Applying follow-events"))
                        .anySatisfy(line -> assertThat(line).contains("\"traceId\":\"" + traceId + "\"",
                                "\"spanId\":\"" + checkListener.spanId() + "\"",
                                "\"X-Request-Id\":\"" + requestId + "\"")));

        // The write service's log lines of the request carry [trace id,span id,request id] (graph-web's pattern).
        Path writeLog = Path.of("target", "follow-write-service-" + pipeline.writePort() + ".log");
        assertThat(Files.readAllLines(writeLog)).filteredOn(line -> line.contains("DispatcherServlet"))
                .anySatisfy(line -> assertThat(line).contains("[" + traceId + "," + write.spanId() + ","
                        + requestId + "]"));
    }

    private static Optional<ReceivedSpan> find(List<ReceivedSpan> spans, String service, String kind) {
        return spans.stream().filter(s -> s.service().equals(service) && s.kind().equals(kind)).findFirst();
    }

    /** An HS256 token for {@code user}, valid 5 minutes (the gateway's development validation). */
    private static String jwt(long user) throws Exception {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String header = b64.encodeToString("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));
        String claims = b64.encodeToString(("{\"sub\":\"" + user + "\",\"exp\":"
                + Instant.now().plusSeconds(300).getEpochSecond() + "}").getBytes(StandardCharsets.UTF_8));
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(JWT_SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String signature = b64.encodeToString(mac.doFinal((header + "." + claims).getBytes(StandardCharsets.US_ASCII)));
        return header + "." + claims + "." + signature;
    }
}
