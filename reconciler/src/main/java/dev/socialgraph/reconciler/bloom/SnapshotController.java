package dev.socialgraph.reconciler.bloom;

import dev.socialgraph.web.BadParameterException;
import dev.socialgraph.wire.InternalApi;
import java.io.IOException;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /admin/snapshots} {@code {"firstShard":0,"lastShard":255}} (body optional: every logical shard):
 * builds a bloom snapshot now and answers when it is written, 201 {@code {file, firstShard, lastShard, edges,
 * createdAt, nextOffsets}}; 409 while another build runs ({@link SnapshotBuilder.BuildRunningException}, answered by
 * the admin exception handler); 400 naming {@code firstShard} or {@code lastShard} for a
 * range outside the logical shards (problem+json, from graph-web's {@code ProblemAdvice}).
 */
@RestController
@ConditionalOnProperty(prefix = "graph.reconciler.admin", name = "enabled", havingValue = "true", matchIfMissing = true)
class SnapshotController {

    /** Optional body. */
    record Request(Integer firstShard, Integer lastShard) {
    }

    private final SnapshotBuilder builder;

    SnapshotController(SnapshotBuilder builder) {
        this.builder = builder;
    }

    @PostMapping(InternalApi.SNAPSHOTS_PATH)
    ResponseEntity<Map<String, Object>> build(@RequestBody(required = false) Request request)
            throws SQLException, IOException {
        int last = builderLastShard();
        int first = request == null || request.firstShard() == null ? 0 : request.firstShard();
        int to = request == null || request.lastShard() == null ? last : request.lastShard();
        if (first < 0 || first > last) {
            throw new BadParameterException("firstShard", "firstShard: must be in 0.." + last + ", was " + first);
        }
        if (to < first || to > last) {
            throw new BadParameterException("lastShard", "lastShard: must be in firstShard.." + last + ", was " + to);
        }
        SnapshotBuilder.Built built = builder.build(first, to);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("file", built.file().toString());
        out.put("firstShard", built.firstShard());
        out.put("lastShard", built.lastShard());
        out.put("edges", built.edges());
        out.put("createdAt", built.createdAt());
        out.put("nextOffsets", built.nextOffsets());
        return ResponseEntity.status(201).body(out);
    }

    private int builderLastShard() {
        return builder.logicalShardCount() - 1;
    }
}
