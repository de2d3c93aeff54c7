package dev.socialgraph.loadgen;

import dev.socialgraph.client.FollowCheckClient;
import dev.socialgraph.loadgen.Operation.Kind;
import java.net.URI;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fleet's check instances through {@code graph-client}'s {@link FollowCheckClient} (the third path next
 * to {@code fleet} and {@code gateway}): shard-affine instance choice, keep-alive connections, fail-over. Only the
 * reads in {@link #SUPPORTED} are measured through it.
 *
 * <p>The client's calls block, so each operation runs on a virtual thread of its own; the runner bounds how many are
 * in flight, and so how many connections the client opens. Its request timeout is {@link HttpTarget}'s 10 s, so a
 * saturated step counts slow answers as slow, not as errors, the same as for the other HTTP targets.
 */
final class ClientTarget implements Target {

    /** What the client can ask. */
    static final EnumSet<Kind> SUPPORTED = EnumSet.of(Kind.CHECK, Kind.BATCH_CHECK, Kind.COUNTS, Kind.HIDDEN);

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final FollowCheckClient client;
    private final List<ServerProcess> processes;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final AtomicLong reported = new AtomicLong();

    private ClientTarget(FollowCheckClient client, List<ServerProcess> processes) {
        this.client = client;
        this.processes = List.copyOf(processes);
    }

    /**
     * A client of {@code instances}.
     *
     * @param instances    instance id ({@code graph.check.affinity.instance-id}) to base URI, at least one
     * @param serviceToken sent as the client's service credential; {@code null} for none
     * @param fleet        the processes whose CPU is charged to this target
     */
    static ClientTarget open(Map<String, URI> instances, String serviceToken, List<ServerProcess> fleet) {
        FollowCheckClient.Builder b = FollowCheckClient.builder()
                .requestTimeout(REQUEST_TIMEOUT)
                .connectTimeout(Duration.ofSeconds(2))
                .serviceToken(serviceToken);
        instances.forEach(b::instance);
        return new ClientTarget(b.build(), fleet);
    }

    /**
     * Parses {@code id=url} pairs, e.g. {@code check-0=http://127.0.0.1:8081}.
     *
     * @throws IllegalArgumentException naming the first pair that is not {@code id=url}
     */
    static Map<String, URI> parseInstances(List<String> pairs) {
        Map<String, URI> out = new LinkedHashMap<>();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq <= 0 || eq == pair.length() - 1) {
                throw new IllegalArgumentException("a client instance is id=url, e.g. check-0=http://127.0.0.1:8081; was '"
                        + pair + "'");
            }
            if (out.put(pair.substring(0, eq).trim(), URI.create(pair.substring(eq + 1).trim())) != null) {
                throw new IllegalArgumentException("client instance '" + pair.substring(0, eq).trim() + "' given twice");
            }
        }
        return out;
    }

    /**
     * The check instances of a fleet the launcher started: {@code check-0} at {@code checkUrl}, and {@code check-1} at
     * the port of {@code follow-check-service-2} when the fleet runs a second instance (the launcher's instance ids).
     */
    static Map<String, URI> fleetInstances(Fleet fleet, URI checkUrl) {
        Map<String, URI> out = new LinkedHashMap<>();
        out.put("check-0", checkUrl);
        int second = fleet.port("follow-check-service-2", -1);
        if (second > 0) {
            out.put("check-1", URI.create("http://127.0.0.1:" + second));
        }
        return out;
    }

    @Override
    public String name() {
        return "client";
    }

    @Override
    public boolean supports(Kind kind) {
        return SUPPORTED.contains(kind);
    }

    @Override
    public List<ServerProcess> processes() {
        return processes;
    }

    @Override
    public CompletableFuture<Outcome> execute(Operation op) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                switch (op.kind()) {
                    case CHECK -> client.isFollowing(op.user(), op.other());
                    case BATCH_CHECK -> client.areFollowing(op.user(), op.ids());
                    case COUNTS -> client.counts(op.user());
                    case HIDDEN -> client.hidden(op.user(), op.ids(), null);
                    default -> throw new IllegalArgumentException("the client does not do " + op.kind());
                }
                return Outcome.OK;
            } catch (RuntimeException e) { // GraphClientException, or a bad id of the workload: never exceptionally
                if (reported.getAndIncrement() < 5) {
                    System.err.println("client: " + op.kind() + " " + op.user() + ": " + e.getMessage());
                }
                return Outcome.ERROR;
            }
        }, executor);
    }

    @Override
    public void close() {
        client.close();
        executor.shutdownNow();
    }
}
