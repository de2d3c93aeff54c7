package dev.socialgraph.reconciler.repair;

import dev.socialgraph.common.shard.ShardGroup;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Meters of the reconciler (DESIGN.md 8), tags of low cardinality only:
 * <ul>
 *   <li>{@code reconciler_divergences_total{kind, outcome=found|repaired}}: kinds of {@link Divergence}; the followers
 *       and the blocked-by side count under the same kinds;</li>
 *   <li>{@code reconciler_in_flight_skipped_total}: follower (blocker) ids left alone because their event may be in
 *       flight;</li>
 *   <li>{@code reconciler_inactive_skipped_total}: pairs left alone because one of the two users is deactivated or
 *       erased (the account jobs own their edges, docs/account-lifecycle.md);</li>
 *   <li>{@code reconciler_scan_rows_total{group}}: shard rows read by full scans;</li>
 *   <li>{@code reconciler_scan_progress}: fraction 0..1 of the scan running last;</li>
 *   <li>{@code reconciler_sampled_total}: outbox rows checked by the sampler.</li>
 * </ul>
 * In the repair package because its counts are keyed by {@link Divergence} and {@link RepairResult}; the sampler and
 * the scans, which depend on the repairs already, report through it.
 */
public final class ReconcilerMetrics {

    private final Map<Divergence, Counter> found = new EnumMap<>(Divergence.class);
    private final Map<Divergence, Counter> repaired = new EnumMap<>(Divergence.class);
    private final Map<ShardGroup, Counter> rows = new EnumMap<>(ShardGroup.class);
    private final Counter skipped;
    private final Counter inactiveSkipped;
    private final Counter sampled;
    /** Progress in millionths, so that a gauge can read it without locking. */
    private final AtomicLong progressMicros = new AtomicLong();

    /** Registers the meters in {@code registry}. */
    public ReconcilerMetrics(MeterRegistry registry) {
        for (Divergence kind : Divergence.values()) {
            found.put(kind, Counter.builder("reconciler.divergences").tag("kind", kind.tag()).tag("outcome", "found")
                    .description("Divergences found, by kind").register(registry));
            repaired.put(kind, Counter.builder("reconciler.divergences").tag("kind", kind.tag())
                    .tag("outcome", "repaired").description("Divergences repaired, by kind").register(registry));
        }
        for (ShardGroup group : ShardGroup.values()) {
            rows.put(group, Counter.builder("reconciler.scan.rows").tag("group", group.name().toLowerCase())
                    .description("Shard rows read by full scans").register(registry));
        }
        skipped = Counter.builder("reconciler.in.flight.skipped")
                .description("Follower ids left alone because their event may still be in flight").register(registry);
        inactiveSkipped = Counter.builder("reconciler.inactive.skipped")
                .description("Pairs left alone because one of the two users is deactivated or erased")
                .register(registry);
        sampled = Counter.builder("reconciler.sampled")
                .description("Outbox rows checked by recent-edge sampling").register(registry);
        Gauge.builder("reconciler.scan.progress", progressMicros, p -> p.get() / 1_000_000.0)
                .description("Fraction of the last running full scan done, 0..1").register(registry);
    }

    /** Counts what one repair found and, if committed, repaired. */
    public void recordRepair(RepairResult result) {
        result.found().forEach((kind, n) -> {
            found.get(kind).increment(n);
            if (result.repaired()) {
                repaired.get(kind).increment(n);
            }
        });
        skipped.increment(result.skippedInFlight());
        inactiveSkipped.increment(result.skippedInactive());
    }

    /** Counts rows read by a scan. */
    public void recordRowsScanned(ShardGroup group, int n) {
        rows.get(group).increment(n);
    }

    /** Counts outbox rows checked by the sampler. */
    public void recordSampled(int n) {
        sampled.increment(n);
    }

    /** Sets the scan progress gauge, {@code 0..1}. */
    public void setScanProgress(double fraction) {
        progressMicros.set(Math.round(Math.max(0, Math.min(1, fraction)) * 1_000_000));
    }
}
