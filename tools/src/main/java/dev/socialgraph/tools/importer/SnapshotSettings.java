package dev.socialgraph.tools.importer;

import dev.socialgraph.bloom.EdgeFilter;
import dev.socialgraph.bloom.SnapshotStore;
import java.util.Objects;

/**
 * What an import needs to write a bloom snapshot of every logical shard for the check service
 * ({@code graph.check.bloom.snapshot-dir}), so the service loads the imported graph instead of replaying it.
 *
 * <p>The filter is sized as the reconciler's snapshot builder sizes it:
 * {@link EdgeFilter#expectedEdges(long, double, long) expectedEdges(edges, growth, minimumExpectedEdges)}; the
 * defaults ({@link #DEFAULT_GROWTH}, {@link #DEFAULT_MINIMUM_EXPECTED_EDGES}, {@link EdgeFilter#DEFAULT_FPP}) are
 * those of {@code graph.reconciler.bloom} and {@code graph.check.bloom}, so an imported snapshot has the same
 * headroom as a rebuilt one.
 *
 * @param store                the snapshot directory and how many snapshots it keeps per shard range
 * @param fpp                  target false-positive probability at the filter's size, in {@code [1e-7, 0.5]} (the
 *                             range the services accept)
 * @param growth               headroom over the imported edge count, {@code >= 1}
 * @param minimumExpectedEdges smallest filter size, {@code >= 1}
 * @param offsets              the event topic whose end offsets the snapshot records
 */
public record SnapshotSettings(SnapshotStore store, double fpp, double growth, long minimumExpectedEdges,
                               TopicOffsets offsets) {

    /** Headroom of {@code graph.reconciler.bloom.growth} and {@code graph.check.bloom.growth}. */
    public static final double DEFAULT_GROWTH = 1.5;

    /** {@code graph.reconciler.bloom.minimum-expected-edges} and {@code graph.check.bloom.minimum-expected-edges}. */
    public static final long DEFAULT_MINIMUM_EXPECTED_EDGES = 1_000_000;

    /** Validates; throws {@link IllegalArgumentException} naming the bad value. */
    public SnapshotSettings {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(offsets, "offsets");
        if (!(fpp >= 1e-7 && fpp <= 0.5)) {
            throw new IllegalArgumentException("bloom fpp must be in [1e-7, 0.5], was " + fpp);
        }
        if (!(growth >= 1)) {
            throw new IllegalArgumentException("bloom growth must be >= 1, was " + growth);
        }
        if (minimumExpectedEdges < 1) {
            throw new IllegalArgumentException("minimum expected edges must be >= 1, was " + minimumExpectedEdges);
        }
    }

    /**
     * Settings with the services' default sizing.
     *
     * @param store   the snapshot directory
     * @param fpp     target false-positive probability
     * @param offsets the event topic
     * @return growth 1.5, minimum 1,000,000 edges
     */
    public static SnapshotSettings withDefaultSizing(SnapshotStore store, double fpp, TopicOffsets offsets) {
        return new SnapshotSettings(store, fpp, DEFAULT_GROWTH, DEFAULT_MINIMUM_EXPECTED_EDGES, offsets);
    }
}
