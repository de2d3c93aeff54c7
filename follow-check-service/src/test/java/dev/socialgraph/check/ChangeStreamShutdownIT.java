package dev.socialgraph.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardMigrations;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import dev.socialgraph.wire.Headers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A stopping check instance ends its open server-sent change streams itself, before its graceful shutdown waits for
 * requests in flight: the stream completes as an HTTP response does (its last chunk), so the client sees an end and
 * reconnects from its last event id, and the stop does not wait out the shutdown timeout. Without that, the server
 * would cut the connection when the timeout ran out, and the client would read a broken response.
 */
class ChangeStreamShutdownIT {

    static final TestShards SHARDS = TestShards.create("check_changes_stop");
    static final KafkaServer KAFKA = TestServers.kafka();
    static final String TOPIC = KAFKA.createTopic("follow-events", 2);

    static {
        try (ShardDataSources dataSources = new ShardDataSources(SHARDS.shardMap(),
                new ShardDataSources.PoolSettings(SHARDS.username(), SHARDS.password(), 2, Duration.ofSeconds(2),
                        "changes-stop-it"))) {
            ShardMigrations.migrateAll(dataSources);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void close() {
        SHARDS.close();
    }

    /** The service in this JVM, started and stopped by the test itself (the stop is what it tests). */
    static ConfigurableApplicationContext start() {
        Map<String, Object> properties = new HashMap<>(SHARDS.springProperties());
        properties.put("server.port", "0");
        properties.put("management.server.port", "0");
        properties.put("graph.check.redis-uri", TestServers.redis().uri(TestServers.redis().freshDatabase()));
        properties.put("graph.check.bloom.kafka-bootstrap", KAFKA.bootstrapServers());
        properties.put("graph.check.bloom.topic", TOPIC);
        properties.put("graph.check.bloom.minimum-expected-edges", "1000");
        properties.put("graph.check.bloom.snapshot-dir", "target/no-bloom-snapshots");
        properties.put("graph.check.feed.max-lag", "60s");
        // As command-line arguments: over the service's own application.yml, as @SpringBootTest's properties are.
        String[] args = properties.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue())
                .toArray(String[]::new);
        return new SpringApplicationBuilder(FollowCheckServiceApplication.class).run(args);
    }

    @Test
    void anOpenEventStream_endsCleanly_whenTheInstanceStops() throws Exception {
        ConfigurableApplicationContext context = start();
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI changes = URI.create("http://127.0.0.1:" + port + "/internal/v1/changes");
        Awaitility.await("the change stream is served").atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> http.send(HttpRequest.newBuilder(URI.create(changes + "/head"))
                        .header(Headers.SERVICE_TOKEN, ServiceProcess.SERVICE_TOKEN).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
        HttpResponse<InputStream> stream = http.send(HttpRequest.newBuilder(changes)
                        .header(Headers.SERVICE_TOKEN, ServiceProcess.SERVICE_TOKEN)
                        .header("Accept", "text/event-stream").build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.statusCode()).isEqualTo(200);
        BufferedReader lines = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8));
        assertThat(lines.readLine()).startsWith("id:"); // the opening checkpoint
        assertThat(lines.readLine()).isEqualTo("event:checkpoint");

        CompletableFuture<Void> stopping = CompletableFuture.runAsync(context::close);
        List<String> rest = new ArrayList<>();
        // Read on another thread, so that a stream that never ends fails the test instead of hanging it.
        CompletableFuture<IOException> ended = CompletableFuture.supplyAsync(() -> {
            try {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    rest.add(line);
                }
                return null;
            } catch (IOException e) {
                return e;
            }
        });
        IOException broken = ended.get(120, TimeUnit.SECONDS);
        stopping.get(120, TimeUnit.SECONDS);

        assertThat(broken).as("the response ended as a response, not cut off").isNull();
        assertThat(rest).as("the rest of the opening checkpoint, then the end").hasSize(2);
        assertThat(rest.get(0)).startsWith("data:{\"cursor\":");
        assertThat(context.isActive()).isFalse();
    }
}
