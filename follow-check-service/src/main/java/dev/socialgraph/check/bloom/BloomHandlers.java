package dev.socialgraph.check.bloom;

import dev.socialgraph.check.affinity.ShardOwnership;
import dev.socialgraph.check.config.CheckProperties;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The bloom filter's operator endpoints, routed by the api package's {@code ReadRoutes}.
 *
 * <p>{@code GET /internal/v1/bloom}: the filter's state for operators and tests, 200
 * {@code {state, edges, ownedShards, instanceId, snapshotCreatedAt}}: {@code state} {@code "ready"} (checks consult
 * it), {@code "building"} (not yet, or its event feed stopped) or {@code "disabled"}; {@code edges} put into the
 * live filter ({@link EdgeBloom#edges}); {@code ownedShards} the ascending logical shards whose followers' edges it
 * holds; {@code snapshotCreatedAt} epoch ms of the snapshot it started from, {@code null} after a shard scan.
 *
 * <p>{@code POST /internal/v1/bloom/swap}: swap the live bloom filter for the newest snapshot, caught up from its
 * offsets, without downtime (an operator, after the reconciler wrote a rebuilt snapshot; the instance also polls).
 * 200 {@code {swapped, snapshotCreatedAt, replayed}} when the newest valid snapshot is live afterwards
 * ({@code swapped:false}: it already was), 409 {@code {swapped:false, reason}} otherwise. It reads files and the
 * event log, so it runs on the blocking scheduler given to {@link #swap}. Internal: the gateway does not route it.
 */
@Component
public class BloomHandlers {

    private final BloomSnapshots snapshots;
    private final EdgeBloom bloom;
    private final ShardOwnership ownership;
    private final boolean enabled;

    BloomHandlers(BloomSnapshots snapshots, EdgeBloom bloom, ShardOwnership ownership, CheckProperties properties) {
        this.snapshots = snapshots;
        this.bloom = bloom;
        this.ownership = ownership;
        this.enabled = properties.bloom().enabled();
    }

    /** {@code GET /internal/v1/bloom}. */
    public Mono<ServerResponse> state(ServerRequest request) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("state", !enabled ? "disabled" : bloom.isReady() ? "ready" : "building");
        body.put("edges", bloom.edges());
        body.put("ownedShards", ownership.ownedShards());
        body.put("instanceId", ownership.instanceId());
        body.put("snapshotCreatedAt", bloom.snapshotCreatedAt() == Long.MIN_VALUE ? null : bloom.snapshotCreatedAt());
        return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(body);
    }

    /**
     * {@code POST /internal/v1/bloom/swap}.
     *
     * @param blocking where the swap (file reads, event replay) runs
     */
    public Mono<ServerResponse> swap(ServerRequest request, Scheduler blocking) {
        return Mono.fromCallable(snapshots::swap).subscribeOn(blocking).flatMap(result -> switch (result) {
            case BloomSnapshots.SwapResult.Swapped s -> json(200, Map.of("swapped", true,
                    "snapshotCreatedAt", s.snapshotCreatedAt(), "replayed", s.replayed()));
            case BloomSnapshots.SwapResult.AlreadyLive a -> json(200, Map.of("swapped", false,
                    "snapshotCreatedAt", a.snapshotCreatedAt(), "replayed", 0L));
            case BloomSnapshots.SwapResult.NotSwapped n -> json(409, Map.of("swapped", false,
                    "reason", n.reason()));
        });
    }

    private static Mono<ServerResponse> json(int status, Object body) {
        return ServerResponse.status(status).contentType(MediaType.APPLICATION_JSON).bodyValue(body);
    }
}
