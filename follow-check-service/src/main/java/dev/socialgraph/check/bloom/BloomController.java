package dev.socialgraph.check.bloom;

import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /internal/v1/bloom/swap}: swap the live bloom filter for the newest snapshot, caught up from its
 * offsets, without downtime (an operator, after the reconciler wrote a rebuilt snapshot; the instance also polls).
 * 200 {@code {swapped, snapshotCreatedAt, replayed}} when the newest valid snapshot is live afterwards
 * ({@code swapped:false}: it already was), 409 {@code {swapped:false, reason}} otherwise. Internal: the gateway does
 * not route it.
 */
@RestController
class BloomController {

    private final BloomSnapshots snapshots;

    BloomController(BloomSnapshots snapshots) {
        this.snapshots = snapshots;
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
