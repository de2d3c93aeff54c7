package dev.socialgraph.loadgen;

import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The account lifecycle on a running fleet (docs/account-lifecycle.md): for each user asked (a celebrity and a user
 * with many follows, say), a deactivation, a reactivation and an erasure through the write service's internal API,
 * each timed from its answer until the check service no longer shows (or shows again) one of the user's edges, and
 * until its job is done (the counts converged, or the rows went), with the job's edges per second. Follows of random
 * pairs run at a fixed rate ({@link OpenLoopRunner}, the {@code writes} workload) before the jobs and while each
 * runs, for their p50 and p99 with and without a job. With {@code --inactive N}, first deactivates N users with no
 * edge (ids from {@code --inactive-first}), the load of a benchmark of the view's cost.
 *
 * <p>Run: {@code java -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.AccountLifecycleBench
 * --fleet .graph --dataset … --user 900000001:900000002 --user …}. Prints a Markdown table; exit status 0.
 */
@Command(name = "account-lifecycle-bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Deactivate, reactivate and erase users on a running fleet: visibility, job time, follow latency.")
public final class AccountLifecycleBench implements Callable<Integer> {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Option(names = "--fleet", defaultValue = ".graph", description = "the launcher's data directory (default: ${DEFAULT-VALUE})")
    Path fleet;

    @Option(names = "--dataset", description = "edge list the fleet was loaded with, for the follow load (optional: no follow load without it)")
    Path dataset;

    @Option(names = "--user", description = "USER:FOLLOWER: a user to deactivate, reactivate and erase, and one of its followers "
            + "(or a user it follows) whose check shows the change; repeatable")
    List<String> users = new ArrayList<>();

    @Option(names = "--no-erase", description = "deactivate and reactivate only")
    boolean noErase;

    @Option(names = "--follow-rate", defaultValue = "100", description = "follows and unfollows per second of the follow load (default: ${DEFAULT-VALUE})")
    double followRate;

    @Option(names = "--follow-window", defaultValue = "15s", converter = Loadgen.DurationConverter.class,
            description = "recording window of the follow load (default: ${DEFAULT-VALUE})")
    Duration followWindow;

    @Option(names = "--inactive", defaultValue = "0", description = "users with no edge to deactivate first (default: ${DEFAULT-VALUE})")
    int inactive;

    @Option(names = "--inactive-first", defaultValue = "950000000", description = "first id of those users (default: ${DEFAULT-VALUE})")
    long inactiveFirst;

    @Option(names = "--protected", defaultValue = "0",
            description = "users with no edge to make protected first, or public again with --public (default: ${DEFAULT-VALUE})")
    int protectedUsers;

    @Option(names = "--protected-first", defaultValue = "960000000", description = "first id of those users (default: ${DEFAULT-VALUE})")
    long protectedFirst;

    @Option(names = "--public", description = "make the --protected users public again instead")
    boolean makePublic;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private String writeUrl;
    private String checkUrl;
    private String token;

    public static void main(String[] args) {
        System.exit(new CommandLine(new AccountLifecycleBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Fleet f = Fleet.read(fleet, fleet.resolve("run"));
        writeUrl = "http://127.0.0.1:" + f.port("follow-write-service", 8082);
        checkUrl = "http://127.0.0.1:" + f.port("follow-check-service", 8081);
        token = Loadgen.serviceToken(null, f);
        System.out.printf("%s: write %s, check %s%n", ZonedDateTime.now(ZoneOffset.UTC), writeUrl, checkUrl);
        if (inactive > 0) {
            loadInactive(f);
        }
        if (protectedUsers > 0) {
            loadProtected();
        }
        if (users.isEmpty()) {
            return 0;
        }
        HttpTarget writes = dataset == null ? null
                : HttpTarget.direct(URI.create(checkUrl), URI.create(writeUrl), token, f.processes());
        EdgeList graph = dataset == null ? null : EdgeList.read(dataset);
        List<String> rows = new ArrayList<>();
        if (writes != null) {
            StepResult quiet = followLoad(writes, graph, 1);
            rows.add(String.format(Locale.ROOT, "| follows, no job | | | | | | %s |", latency(quiet)));
        }
        ExecutorService load = Executors.newSingleThreadExecutor();
        long seed = 2;
        for (String spec : users) {
            long user = Long.parseLong(spec.substring(0, spec.indexOf(':')));
            long other = Long.parseLong(spec.substring(spec.indexOf(':') + 1));
            boolean follower = check(other, user);
            long a = follower ? other : user;
            long b = follower ? user : other;
            if (!check(a, b)) {
                throw new IllegalStateException(a + " does not follow " + b + ": pick an edge of the user");
            }
            rows.add(step("deactivate", user, () -> !check(a, b), "PUT", "users/" + user + "/deactivation", writes,
                    graph, load, seed++));
            rows.add(step("reactivate", user, () -> check(a, b), "DELETE", "users/" + user + "/deactivation", writes,
                    graph, load, seed++));
            if (!noErase) {
                rows.add(step("erase", user, () -> !check(a, b), "DELETE", "users/" + user, writes, graph, load,
                        seed++));
            }
        }
        load.shutdown();
        System.out.println();
        System.out.println("| change | user | visible after | job done after | job running | edges | edges/s | "
                + "follows p50/p99 (ms), achieved/s |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---|");
        rows.forEach(System.out::println);
        return 0;
    }

    /** One state change: its visibility, its job, and the follow load while the job runs. */
    private String step(String change, long user, BooleanSupplier visible, String method, String path,
                        HttpTarget writes, EdgeList graph, ExecutorService load, long seed) throws Exception {
        long t0 = System.nanoTime();
        JsonNode state = admin(method, path);
        String jobId = state.get("jobId").asString();
        while (!visible.getAsBoolean()) {
            Thread.sleep(5);
        }
        double visibleMs = (System.nanoTime() - t0) / 1e6;
        JsonNode job = admin("GET", "jobs/" + jobId);
        while (!"running".equals(job.get("status").asString()) && !"done".equals(job.get("status").asString())) {
            Thread.sleep(20);
            job = admin("GET", "jobs/" + jobId);
        }
        Future<StepResult> during = writes == null ? null : load.submit(() -> followLoad(writes, graph, seed));
        while (!"done".equals(job.get("status").asString())) {
            Thread.sleep(20);
            job = admin("GET", "jobs/" + jobId);
        }
        double doneMs = (System.nanoTime() - t0) / 1e6;
        long edges = job.get("total").asLong();
        long runMs = job.get("finishedAt").asLong() - job.get("startedAt").asLong();
        String follows = during == null ? "" : latency(during.get());
        System.out.printf(Locale.ROOT, "%s %d: visible after %.0f ms, job done after %.0f ms (%d edges in %d ms)%n",
                change, user, visibleMs, doneMs, edges, runMs);
        return String.format(Locale.ROOT, "| %s | %d | %.0f ms | %.1f s | %.1f s | %,d | %,.0f | %s |", change, user,
                visibleMs, doneMs / 1000, runMs / 1000.0, edges, runMs == 0 ? 0 : edges * 1000.0 / runMs, follows);
    }

    private StepResult followLoad(HttpTarget writes, EdgeList graph, long seed) throws InterruptedException {
        return new OpenLoopRunner(32, Duration.ofSeconds(1), followWindow, 0.9)
                .run(writes, Workload.WRITES, Workload.WRITES.source(graph, seed), followRate);
    }

    private static String latency(StepResult r) {
        return String.format(Locale.ROOT, "%.2f / %.2f, %.0f/s%s", r.latencyMillis(50), r.latencyMillis(99),
                r.achievedRate(), r.errors() > 0 ? ", " + r.errors() + " errors" : "");
    }

    /** Deactivates {@code inactive} users with no edge, 16 at a time, and waits until the check service holds them. */
    private void loadInactive(Fleet f) throws Exception {
        long t0 = System.nanoTime();
        Semaphore permits = new Semaphore(16);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < inactive; i++) {
                long user = inactiveFirst + i;
                permits.acquire();
                threads.submit(() -> {
                    try {
                        admin("PUT", "users/" + user + "/deactivation");
                    } finally {
                        permits.release();
                    }
                    return null;
                });
            }
        }
        System.out.printf(Locale.ROOT, "%,d users deactivated in %.1f s%n", inactive, (System.nanoTime() - t0) / 1e9);
    }

    /**
     * Makes {@code protected} users with no edge protected (or, with {@code --public}, public again), 16 at a time,
     * and waits until the check service's view has the last of them so (its relationship's {@code protected}) and,
     * when made public, until the jobs that starts are done.
     */
    private void loadProtected() throws Exception {
        long t0 = System.nanoTime();
        Semaphore permits = new Semaphore(16);
        String method = makePublic ? "DELETE" : "PUT";
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < protectedUsers; i++) {
                long user = protectedFirst + i;
                permits.acquire();
                threads.submit(() -> {
                    try {
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(writeUrl + InternalApi.USERS
                                        + "/" + user + "/protection")).header(Headers.SERVICE_TOKEN, token)
                                .method(method, HttpRequest.BodyPublishers.noBody()).build(),
                                HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() != 200) {
                            throw new IllegalStateException(method + " protection of " + user + ": " + r.statusCode());
                        }
                    } finally {
                        permits.release();
                    }
                    return null;
                });
            }
        }
        long last = protectedFirst + protectedUsers - 1;
        while (isProtected(last) == makePublic) {
            Thread.sleep(50);
        }
        if (makePublic) {
            // Each account made public queued its (empty) accept-requests job: wait for them, so no measurement
            // that follows shares the machine with them. The jobs run in the order they were queued.
            String jobId = JSON.readTree(http.send(HttpRequest.newBuilder(URI.create(writeUrl + InternalApi.ADMIN
                            + "/users/" + last)).header(Headers.SERVICE_TOKEN, token).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).body()).get("jobId").asString();
            while (!"done".equals(admin("GET", "jobs/" + jobId).path("status").asString())) {
                Thread.sleep(200);
            }
        }
        System.out.printf(Locale.ROOT, "%,d users made %s in %.1f s, seen by the check service%n", protectedUsers,
                makePublic ? "public" : "protected", (System.nanoTime() - t0) / 1e9);
    }

    /** Whether the check service holds {@code user} as protected: the relationship's {@code protected} of it. */
    private boolean isProtected(long user) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(checkUrl + InternalApi.USERS + "/1"
                + "/relationship/" + user)).header(Headers.SERVICE_TOKEN, token).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body()).path("protected").asBoolean();
    }

    private boolean check(long a, long b) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(checkUrl + InternalApi.USERS + "/" + a
                            + "/following/" + b)).header(Headers.SERVICE_TOKEN, token).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return JSON.readTree(r.body()).get("following").asBoolean();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private JsonNode admin(String method, String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(writeUrl + InternalApi.ADMIN + "/" + path))
                .header(Headers.SERVICE_TOKEN, token).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(method + " " + path + ": " + r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body());
    }
}
