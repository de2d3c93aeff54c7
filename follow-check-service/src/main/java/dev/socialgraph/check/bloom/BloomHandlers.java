package dev.socialgraph.check.bloom;

import dev.socialgraph.check.CheckProperties;
import dev.socialgraph.check.affinity.ShardOwnership;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /internal/v1/bloom}: the filter's state for operators and tests, 200
 * {@code {state, edges, ownedShards, instanceId, snapshotCreatedAt}}: {@code state} {@code "ready"} (checks consult
 * it), {@code "building"} (not yet, or its event feed stopped) or {@code "disabled"}; {@code edges} put into the
 * live filter ({@link EdgeBloom#edges}); {@code ownedShards} the ascending logical shards whose followers' edges it
 * holds; {@code snapshotCreatedAt} epoch ms of the snapshot it started from, {@code null} after a shard scan.
 *
 * <p>{@code POST /internal/v1/bloom/swap}: swap the live bloom filter for the newest snapshot, caught up from its
 * offsets, without downtime (an operator, after the reconciler wrote a rebuilt snapshot; the instance also polls).
 * 200 {@code {swapped, snapshotCreatedAt, replayed}} when the newest valid snapshot is live afterwards
 * ({@code swapped:false}: it already was), 409 {@code {swapped:false, reason}} otherwise. Internal: the gateway does
 * not route it.
 */
@RestController
class BloomController {

    private final BloomSnapshots snapshots;
    private final EdgeBloom bloom;
    private final ShardOwnership ownership;
    private final boolean enabled;

    BloomController(BloomSnapshots snapshots, EdgeBloom bloom, ShardOwnership ownership, CheckProperties properties) {
        this.snapshots = snapshots;
        this.bloom = bloom;
        this.ownership = ownership;
        this.enabled = properties.bloom().enabled();
    }

    @GetMapping(path = "/internal/v1/bloom", produces = MediaType.APPLICATION_JSON_VALUE)
    Map<String, Object> state() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("state", !enabled ? "disabled" : bloom.isReady() ? "ready" : "building");
        body.put("edges", bloom.edges());
        body.put("ownedShards", ownership.ownedShards());
        body.put("instanceId", ownership.instanceId());
        body.put("snapshotCreatedAt", bloom.snapshotCreatedAt() == Long.MIN_VALUE ? null : bloom.snapshotCreatedAt());
        return body;
    }

    @PostMapping(path = "/internal/v1/bloom/swap", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<Map<String, Object>> swap() {
        return switch (snapshots.swap()) {
            case BloomSnapshots.SwapResult.Swapped s -> ResponseEntity.ok(Map.of("swapped", true,
                    "snapshotCreatedAt", s.snapshotCreatedAt(), "replayed", s.replayed()));
            case BloomSnapshots.SwapResult.AlreadyLive a -> ResponseEntity.ok(Map.of("swapped", false,
                    "snapshotCreatedAt", a.snapshotCreatedAt(), "replayed", 0L));
            case BloomSnapshots.SwapResult.NotSwapped n -> ResponseEntity.status(409).body(Map.of("swapped", false,
                    "reason", n.reason()));
        };
    }
}
