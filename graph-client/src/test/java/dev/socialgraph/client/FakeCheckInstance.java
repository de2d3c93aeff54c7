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
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stand-in for one follow-check-service instance: the internal API's check, batch check, relationship, counts and
 * following/followers pages over an in-memory edge set, on 127.0.0.1 at an ephemeral port (JDK {@link HttpServer}).
 * It also answers the write service's follow and unfollow (so one fake can stand for a write instance), replying with
 * a token in graph-common's layout (actor, issue time, no real MAC), and the write service's account operations
 * (docs/account-lifecycle.md: states kept in memory; a deactivation's job stays queued, an erasure's is done at once
 * with a report). It records every request, and can be told to
 * answer a fixed status (with a problem body and {@code Retry-After} of the test's choosing), to hold requests
 * without answering, or be killed.
 */
final class FakeCheckInstance implements AutoCloseable {

    private static final Pattern CHECK = Pattern.compile("/internal/v1/users/(\\d+)/following/(\\d+)");
    private static final Pattern CONTAINS = Pattern.compile("/internal/v1/users/(\\d+)/following/contains");
    private static final Pattern RELATIONSHIP = Pattern.compile("/internal/v1/users/(\\d+)/relationship/(\\d+)");
    private static final Pattern COUNTS = Pattern.compile("/internal/v1/users/(\\d+)/counts");
    private static final Pattern HIDDEN = Pattern.compile("/internal/v1/users/(\\d+)/hidden");
    private static final Pattern RELATION = Pattern.compile("/internal/v1/users/(\\d+)/(blocking|muting)/(\\d+)");
    private static final Pattern LIST = Pattern.compile("/internal/v1/users/(\\d+)/(following|followers)");
    private static final Pattern ACCOUNT = Pattern.compile("/internal/v1/admin/users/(\\d+)(/deactivation)?");
    private static final Pattern JOB = Pattern.compile("/internal/v1/admin/jobs/([^/]+)");
    private static final AtomicLong ISSUED = new AtomicLong(1_700_000_000_000L);

    /** One request as received, with the client's port (one per connection). */
    record Received(String method, String path, String query, String body, String serviceToken, String followToken,
                    String viewer, int clientPort) { }

    final String id;
    private final Set<String> edges;
    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<Received> received = new CopyOnWriteArrayList<>();
    /** user → {state (0 active, 1 deactivated, 2 erased), version, changedAt}. */
    private final Map<Long, long[]> accounts = new ConcurrentHashMap<>();
    /** jobId → its JSON. */
    private final Map<String, String> jobs = new ConcurrentHashMap<>();
    private volatile int status = 200;
    private volatile String problemBody;
    private volatile String problemContentType = "application/json";
    private volatile String retryAfter;
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
        answerWith(status, "application/json", null, null);
    }

    /**
     * Answers every later request with {@code status}, {@code body} (a default problem when {@code null}) and
     * {@code Retry-After} (none when {@code null}).
     */
    void answerWith(int status, String contentType, String body, String retryAfter) {
        this.problemContentType = contentType;
        this.problemBody = body;
        this.retryAfter = retryAfter;
        this.status = status;
    }

    /** A follow token in graph-common's layout for {@code actor}, issued at {@code issuedAtMillis}; MAC all zero. */
    static String token(long actor, long issuedAtMillis) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(48).putLong(actor).putLong(issuedAtMillis);
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
    }

    /** Holds every later request without answering until {@link #close}. */
    void hang() {
        this.hang = true;
    }

    /** Adds a {@code "follower->followee"} edge. */
    void add(String edge) {
        edges.add(edge);
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
        String query = exchange.getRequestURI().getRawQuery();
        String viewerHeader = exchange.getRequestHeaders().getFirst("X-Viewer-Id");
        received.add(new Received(exchange.getRequestMethod(), path, query, body,
                exchange.getRequestHeaders().getFirst("X-Service-Token"),
                exchange.getRequestHeaders().getFirst("X-Follow-Token"), viewerHeader,
                exchange.getRemoteAddress().getPort()));
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
            if (retryAfter != null) {
                exchange.getResponseHeaders().set("Retry-After", retryAfter);
            }
            respond(exchange, status, problemContentType,
                    problemBody != null ? problemBody : "{\"title\":\"fake " + status + "\"}");
            return;
        }
        Matcher m;
        String method = exchange.getRequestMethod();
        if ((m = CHECK.matcher(path)).matches() && (method.equals("PUT") || method.equals("DELETE"))) {
            long follower = Long.parseLong(m.group(1));
            long followee = Long.parseLong(m.group(2));
            boolean follow = method.equals("PUT");
            if (follow) {
                edges.add(follower + "->" + followee);
            } else {
                edges.remove(follower + "->" + followee);
            }
            respond(exchange, 200, "{\"followerId\":" + follower + ",\"followeeId\":" + followee + ",\"following\":"
                    + follow + ",\"followedAt\":" + (follow ? "1700000000123" : "null") + ",\"version\":"
                    + edges.size() + ",\"followToken\":\"" + token(follower, ISSUED.incrementAndGet()) + "\"}");
            return;
        }
        if ((m = RELATION.matcher(path)).matches() && (method.equals("PUT") || method.equals("DELETE"))) {
            // Blocks and mutes are not kept; the reply has the write service's shape.
            long user = Long.parseLong(m.group(1));
            boolean active = method.equals("PUT");
            respond(exchange, 200, "{\"userId\":" + user + ",\"targetId\":" + m.group(3) + ",\"relation\":\""
                    + (m.group(2).equals("blocking") ? "block" : "mute") + "\",\"active\":" + active
                    + ",\"createdAt\":" + (active ? "1700000000456" : "null") + ",\"version\":1,\"followToken\":\""
                    + token(user, ISSUED.incrementAndGet()) + "\"}");
            return;
        }
        if ((m = ACCOUNT.matcher(path)).matches()) {
            account(exchange, method, Long.parseLong(m.group(1)), m.group(2) != null);
            return;
        }
        if ((m = JOB.matcher(path)).matches() && method.equals("GET")) {
            String job = jobs.get(m.group(1));
            if (job == null) {
                respond(exchange, 404, "application/problem+json",
                        "{\"type\":\"https://socialgraph.dev/problems/not-found\",\"status\":404}");
            } else {
                respond(exchange, 200, job);
            }
            return;
        }
        if ((m = LIST.matcher(path)).matches() && method.equals("GET")) {
            // Pages over the edges ordered by the other user's id descending; the cursor is the offset.
            long user = Long.parseLong(m.group(1));
            boolean following = m.group(2).equals("following");
            List<Long> all = edges.stream()
                    .filter(e -> following ? e.startsWith(user + "->") : e.endsWith("->" + user))
                    .map(e -> Long.parseLong(following ? e.substring(e.indexOf('>') + 1) : e.substring(0, e.indexOf('-'))))
                    .sorted(java.util.Comparator.reverseOrder()).toList();
            int limit = Integer.parseInt(param(query, "limit", "50"));
            String cursor = param(query, "cursor", "0");
            if (!cursor.matches("\\d+")) {
                respond(exchange, 400, "application/problem+json",
                        "{\"type\":\"https://socialgraph.dev/problems/invalid-parameter\",\"parameter\":\"cursor\"}");
                return;
            }
            int from = Integer.parseInt(cursor);
            int to = Math.min(all.size(), from + limit);
            List<String> items = new ArrayList<>();
            for (int i = from; i < to; i++) {
                items.add("{\"userId\":" + all.get(i) + ",\"followedAt\":" + (1_700_000_000_000L + all.get(i)) + "}");
            }
            respond(exchange, 200, "{\"items\":[" + String.join(",", items) + "],\"nextCursor\":"
                    + (to < all.size() ? "\"" + to + "\"" : "null") + "}");
            return;
        }
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
            // Blocks, mutes, requests and protection are never set here; with a viewer, the fields it may not see are
            // left out, as the check service does.
            long viewer = viewerHeader == null ? 0 : Long.parseLong(viewerHeader);
            boolean blocks = viewer == 0 || viewer == a || viewer == b;
            boolean mute = viewer == 0 || viewer == a;
            respond(exchange, 200, "{\"following\":" + follows(a, b) + ",\"followedBy\":" + follows(b, a)
                    + (blocks ? ",\"blocking\":false,\"blockedBy\":false" : "") + (mute ? ",\"muting\":false" : "")
                    + ",\"protected\":false" + (blocks ? ",\"requested\":false,\"requestedBy\":false" : "") + "}");
        } else if ((m = COUNTS.matcher(path)).matches()) {
            long user = Long.parseLong(m.group(1));
            long following = edges.stream().filter(e -> e.startsWith(user + "->")).count();
            long followers = edges.stream().filter(e -> e.endsWith("->" + user)).count();
            respond(exchange, 200, "{\"followers\":" + followers + ",\"following\":" + following + "}");
        } else {
            respond(exchange, 404, "{\"title\":\"no route\"}");
        }
    }

    /** The write service's account operations on one user, as docs/account-lifecycle.md has them. */
    private void account(HttpExchange exchange, String method, long user, boolean deactivation) throws IOException {
        long[] now = accounts.getOrDefault(user, new long[] {0, 0, 0});
        int wanted;
        if (deactivation && (method.equals("PUT") || method.equals("DELETE"))) {
            wanted = method.equals("PUT") ? 1 : 0;
            if (now[0] == 2) {
                respond(exchange, 409, "application/problem+json",
                        "{\"type\":\"https://socialgraph.dev/problems/conflict\",\"status\":409}");
                return;
            }
        } else if (!deactivation && method.equals("DELETE")) {
            wanted = 2;
        } else if (!deactivation && method.equals("GET")) {
            wanted = (int) now[0];
        } else {
            respond(exchange, 405, "{\"title\":\"method\"}");
            return;
        }
        if (wanted != now[0]) {
            long version = now[1] + 1;
            long at = ISSUED.incrementAndGet();
            now = new long[] {wanted, version, at};
            accounts.put(user, now);
            String kind = wanted == 1 ? "deactivate" : wanted == 0 ? "reactivate" : "erase";
            boolean done = wanted == 2;
            jobs.put(user + "-" + version, "{\"jobId\":\"" + user + "-" + version + "\",\"userId\":" + user
                    + ",\"kind\":\"" + kind + "\",\"status\":\"" + (done ? "done" : "queued") + "\",\"done\":"
                    + (done ? 3 : 0) + ",\"total\":3,\"createdAt\":" + at + ",\"startedAt\":"
                    + (done ? at + 1 : "null") + ",\"finishedAt\":" + (done ? at + 2 : "null") + ",\"report\":"
                    + (done ? "{\"follow\":{\"following\":2,\"followers\":1},\"rowsDeleted\":4,\"ms\":7}" : "null")
                    + "}");
        }
        String state = now[0] == 0 ? "active" : now[0] == 1 ? "deactivated" : "erased";
        respond(exchange, 200, "{\"userId\":" + user + ",\"state\":\"" + state + "\",\"version\":" + now[1]
                + ",\"changedAt\":" + now[2] + ",\"jobId\":" + (now[1] == 0 ? "null" : "\"" + user + "-" + now[1] + "\"")
                + (method.equals("GET") ? "" : ",\"followToken\":\"" + token(user, ISSUED.incrementAndGet()) + "\"")
                + "}");
    }

    private boolean follows(long follower, long followee) {
        return edges.contains(follower + "->" + followee);
    }

    private static String json(TreeSet<Long> ids) {
        List<String> s = new ArrayList<>();
        ids.forEach(id -> s.add(Long.toString(id)));
        return "[" + String.join(",", s) + "]";
    }

    private static String param(String query, String name, String fallback) {
        if (query != null) {
            for (String pair : query.split("&")) {
                if (pair.startsWith(name + "=")) {
                    return pair.substring(name.length() + 1);
                }
            }
        }
        return fallback;
    }

    private static void respond(HttpExchange exchange, int status, String json) throws IOException {
        respond(exchange, status, "application/json", json);
    }

    private static void respond(HttpExchange exchange, int status, String contentType, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
