package dev.socialgraph.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stand-in for one follow-check-service instance: the internal API's check, batch check, relationship and counts
 * over an in-memory edge set, on 127.0.0.1 at an ephemeral port (JDK {@link HttpServer}). It records every request,
 * and can be told to answer a fixed status, to hold requests without answering, or be killed.
 */
final class FakeCheckInstance implements AutoCloseable {

    private static final Pattern CHECK = Pattern.compile("/internal/v1/users/(\\d+)/following/(\\d+)");
    private static final Pattern CONTAINS = Pattern.compile("/internal/v1/users/(\\d+)/following/contains");
    private static final Pattern RELATIONSHIP = Pattern.compile("/internal/v1/users/(\\d+)/relationship/(\\d+)");
    private static final Pattern COUNTS = Pattern.compile("/internal/v1/users/(\\d+)/counts");
    private static final Pattern HIDDEN = Pattern.compile("/internal/v1/users/(\\d+)/hidden");

    /** One request as received, with the client's port (one per connection). */
    record Received(String method, String path, String body, String serviceToken, String followToken, int clientPort) { }

    final String id;
    private final Set<String> edges;
    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private volatile int status = 200;
    private volatile boolean hang;

    /**
     * @param id    the instance id
     * @param edges {@code "follower->followee"} strings
     */
    FakeCheckInstance(String id, Set<String> edges) throws IOException {
        this.id = id;
        this.edges = ConcurrentHashMap.newKeySet();
        this.edges.addAll(edges);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    URI baseUri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    List<Received> received() {
        return List.copyOf(received);
    }

    /** Answers every later request with {@code status} and a problem body. */
    void answerWith(int status) {
        this.status = status;
    }

    /** Holds every later request without answering until {@link #close}. */
    void hang() {
        this.hang = true;
    }

    /** Stops listening and drops open connections: a killed instance. */
    void kill() {
        server.stop(0);
    }

    @Override
    public void close() {
        release.countDown();
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String path = exchange.getRequestURI().getPath();
        received.add(new Received(exchange.getRequestMethod(), path, body,
                exchange.getRequestHeaders().getFirst("X-Service-Token"),
                exchange.getRequestHeaders().getFirst("X-Follow-Token"), exchange.getRemoteAddress().getPort()));
        if (hang) {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
            return;
        }
        if (status != 200) {
            respond(exchange, status, "{\"title\":\"fake " + status + "\"}");
            return;
        }
        Matcher m;
        if ((m = CONTAINS.matcher(path)).matches() && exchange.getRequestMethod().equals("POST")) {
            long follower = Long.parseLong(m.group(1));
            TreeSet<Long> yes = new TreeSet<>();
            TreeSet<Long> no = new TreeSet<>();
            Matcher ids = Pattern.compile("\\d+").matcher(body);
            while (ids.find()) {
                long followee = Long.parseLong(ids.group());
                (follows(follower, followee) ? yes : no).add(followee);
            }
            respond(exchange, 200, "{\"following\":" + json(yes) + ",\"notFollowing\":" + json(no) + "}");
        } else if ((m = HIDDEN.matcher(path)).matches() && exchange.getRequestMethod().equals("POST")) {
            // "viewer->author" edges stand for blocks here; a viewer mutes nobody and nobody blocks a viewer.
            long viewer = Long.parseLong(m.group(1));
            TreeSet<Long> blocking = new TreeSet<>();
            Matcher ids = Pattern.compile("\\d+").matcher(body);
            while (ids.find()) {
                long author = Long.parseLong(ids.group());
                if (follows(viewer, author)) {
                    blocking.add(author);
                }
            }
            respond(exchange, 200, "{\"blocking\":" + json(blocking) + ",\"blockedBy\":[],\"muting\":[]}");
        } else if ((m = CHECK.matcher(path)).matches()) {
            respond(exchange, 200, "{\"following\":" + follows(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)))
                    + "}");
        } else if ((m = RELATIONSHIP.matcher(path)).matches()) {
            long a = Long.parseLong(m.group(1));
            long b = Long.parseLong(m.group(2));
            respond(exchange, 200, "{\"following\":" + follows(a, b) + ",\"followedBy\":" + follows(b, a) + "}");
        } else if ((m = COUNTS.matcher(path)).matches()) {
            long user = Long.parseLong(m.group(1));
            long following = edges.stream().filter(e -> e.startsWith(user + "->")).count();
            long followers = edges.stream().filter(e -> e.endsWith("->" + user)).count();
            respond(exchange, 200, "{\"followers\":" + followers + ",\"following\":" + following + "}");
        } else {
            respond(exchange, 404, "{\"title\":\"no route\"}");
        }
    }

    private boolean follows(long follower, long followee) {
        return edges.contains(follower + "->" + followee);
    }

    private static String json(TreeSet<Long> ids) {
        List<String> s = new ArrayList<>();
        ids.forEach(id -> s.add(Long.toString(id)));
        return "[" + String.join(",", s) + "]";
    }

    private static void respond(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
