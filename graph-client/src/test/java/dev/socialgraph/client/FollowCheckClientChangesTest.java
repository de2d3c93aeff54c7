package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.socialgraph.client.FollowChanges.ChangeFilter;
import dev.socialgraph.client.FollowChanges.ChangeWatch;
import dev.socialgraph.wire.Changes;
import dev.socialgraph.wire.Headers;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A watch through the whole client, over HTTP, against a JDK HTTP server standing for one check instance: the head,
 * pages, a 503 the watch reconnects after, a repeat dropped, and a long-poll the server holds that {@code close()}
 * ends at once (the watch's virtual thread is interrupted inside the socket read).
 */
class FollowCheckClientChangesTest {

    private final List<String> queries = new CopyOnWriteArrayList<>();
    private final List<String> serviceTokens = new CopyOnWriteArrayList<>();
    private final AtomicInteger unavailable = new AtomicInteger(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private HttpServer server;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    @AfterEach
    void stop() {
        release.countDown();
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        serviceTokens.add(exchange.getRequestHeaders().getFirst(Headers.SERVICE_TOKEN));
        String path = exchange.getRequestURI().getPath();
        String query = exchange.getRequestURI().getRawQuery();
        queries.add(path + (query == null ? "" : "?" + query));
        if (path.equals("/internal/v1/changes/head")) {
            answer(exchange, 200, "{\"cursor\":\"h0\"}");
        } else if (query.startsWith("cursor=h0&")) {
            answer(exchange, 200, page("p1", event("1"), event("2")));
        } else if (query.startsWith("cursor=p1&") && unavailable.getAndDecrement() > 0) {
            exchange.getResponseHeaders().add("Retry-After", "0");
            answer(exchange, 503, "{\"type\":\"https://socialgraph.dev/problems/service-unavailable\","
                    + "\"status\":503,\"title\":\"Service Unavailable\"}");
        } else if (query.startsWith("cursor=p1&")) {
            answer(exchange, 200, page("c3", event("2"), event("3")));
        } else {
            try {
                release.await(60, TimeUnit.SECONDS); // a long-poll with nothing to say
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            answer(exchange, 200, page("c3"));
        }
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type",
                status == 200 ? "application/json" : "application/problem+json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        } catch (IOException clientGone) {
            // the watch was closed while its poll was held
        }
    }

    private static String event(String id) {
        return "{\"eventId\":\"" + id + "\",\"cursor\":\"c" + id + "\",\"kind\":\"follow\",\"actorId\":" + id
                + ",\"targetId\":42,\"occurredAt\":1700000000000,\"version\":1}";
    }

    private static String page(String cursor, String... events) {
        return "{\"events\":[" + String.join(",", events) + "],\"cursor\":\"" + cursor + "\"}";
    }

    @Test
    void aWatch_readsTheHead_deliversEachEventOnce_reconnectsAfter503_andCloseEndsAHeldPoll() {
        ChangeWatcherTest.Recorder listener = new ChangeWatcherTest.Recorder();
        try (FollowCheckClient client = FollowCheckClient.builder()
                .instance("check-0", URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
                .serviceToken("svc")
                .maxAttempts(1)
                .build()) {
            ChangeWatch watch = client.watchChanges(null, ChangeFilter.ALL.withKinds("follow"), listener);

            await().atMost(Duration.ofSeconds(10)).until(() -> queries.size() == 5); // the fifth poll is held
            assertThat(listener.calls).containsExactly("checkpoint h0", "event 1@c1", "event 2@c2", "checkpoint p1",
                    "retry 503", "event 3@c3");
            assertThat(queries).containsExactly("/internal/v1/changes/head",
                    "/internal/v1/changes?cursor=h0&kinds=follow&limit=1000&wait=30",
                    "/internal/v1/changes?cursor=p1&kinds=follow&limit=1000&wait=30",
                    "/internal/v1/changes?cursor=p1&kinds=follow&limit=1000&wait=30",
                    "/internal/v1/changes?cursor=c3&kinds=follow&limit=1000&wait=30");
            assertThat(serviceTokens).containsOnly("svc");

            long start = System.nanoTime();
            watch.close();

            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            assertThat(watch.isRunning()).isFalse();
            assertThat(watch.cursor()).isEqualTo("c3");
            assertThat(listener.errors).isEmpty();
            assertThat(client.changesHead()).isEqualTo("h0"); // the client still works after a watch was closed
            Changes.Page page = client.changes("h0", null, 10, 0);
            assertThat(page.events()).extracting(Changes.Event::eventId).containsExactly("1", "2");
        }
    }
}
