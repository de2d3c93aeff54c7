package dev.socialgraph.reconciler.admin;

import dev.socialgraph.reconciler.repair.Divergence;
import dev.socialgraph.reconciler.scan.ScanService;
import dev.socialgraph.reconciler.scan.ScanStatus;
import dev.socialgraph.wire.InternalApi;
import jakarta.validation.Valid;
import java.net.URI;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Admin endpoints of full scans, under {@code /admin} on the service port (8084). The reconciler has no public
 * API, so the port is internal anyway; the gateway does not route {@code /admin}, and in Kubernetes it is reached
 * by port-forward or a network policy limited to operators.
 *
 * <ul>
 *   <li>{@code POST /admin/scans} {@code {"firstShard":0,"lastShard":255}} → 202 {@code {"id":…}} with
 *       {@code Location: /admin/scans/{id}};</li>
 *   <li>{@code GET /admin/scans/{id}} → 200 status and progress, 404 when unknown;</li>
 *   <li>{@code DELETE /admin/scans/{id}} → 200 cancelled, 409 when not running.</li>
 * </ul>
 */
@RestController
@ConditionalOnProperty(prefix = "graph.reconciler.admin", name = "enabled", havingValue = "true", matchIfMissing = true)
class ScanController {

    private final ScanService scans;

    ScanController(ScanService scans) {
        this.scans = scans;
    }

    @PostMapping(InternalApi.SCANS_PATH)
    ResponseEntity<Map<String, Object>> start(@Valid @RequestBody StartScanRequest request) throws SQLException {
        long id = scans.start(request.firstShard(), request.lastShard());
        return ResponseEntity.accepted().location(URI.create(InternalApi.SCAN.path(id))).body(Map.of("id", id));
    }

    @GetMapping(InternalApi.SCAN_PATH)
    Map<String, Object> status(@PathVariable long id) throws SQLException {
        return json(scans.status(id).orElseThrow(() -> new ScanNotFoundException(id)));
    }

    @DeleteMapping(InternalApi.SCAN_PATH)
    Map<String, Object> cancel(@PathVariable long id) throws SQLException {
        ScanStatus before = scans.status(id).orElseThrow(() -> new ScanNotFoundException(id));
        if (!scans.cancel(id)) {
            throw new ScanNotRunningException(id, before.state().name().toLowerCase());
        }
        return json(scans.status(id).orElseThrow());
    }

    private static Map<String, Object> json(ScanStatus s) {
        Map<String, Object> divergences = new LinkedHashMap<>();
        for (Divergence kind : Divergence.values()) {
            divergences.put(kind.tag(), s.divergences().getOrDefault(kind, 0L));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", s.id());
        out.put("firstShard", s.firstShard());
        out.put("lastShard", s.lastShard());
        out.put("state", s.state().name().toLowerCase());
        out.put("phase", s.phase().name().toLowerCase());
        out.put("rangeIndex", s.rangeIndex());
        out.put("cursor", s.cursor());
        out.put("progress", s.progress());
        out.put("rowsScanned", s.rowsScanned());
        out.put("divergences", divergences);
        out.put("repairs", s.repairs());
        out.put("skippedInFlight", s.skippedInFlight());
        out.put("error", s.error());
        out.put("createdAt", s.createdAt().toString());
        out.put("updatedAt", s.updatedAt().toString());
        return out;
    }

    /** No scan with the id. */
    static final class ScanNotFoundException extends RuntimeException {
        ScanNotFoundException(long id) {
            super("no scan with id " + id);
        }
    }

    /** The scan is not running, so it cannot be cancelled. */
    static final class ScanNotRunningException extends RuntimeException {
        ScanNotRunningException(long id, String state) {
            super("scan " + id + " is " + state + ", not running");
        }
    }
}
