package dev.socialgraph.check.bloom;

import dev.socialgraph.bloom.EdgeFilter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;

/**
 * The L0 bloom filter over follow edges {@code (follower, followee)} (DESIGN.md 5 step 1, 9): "not in the filter"
 * means "does not follow" with no network call. Starts from the newest bloom snapshot (replaying
 * {@code follow-events} from the offsets it records) or, without one, from a scan of the following shards; fed with
 * the follows of {@code follow-events} from a position taken before the scan or replay ended, so no committed edge
 * is missed. Unfollows cannot be removed; they only raise the false-positive rate until a rebuilt snapshot is
 * swapped in.
 *
 * <p>Swap without downtime: a rebuilt filter becomes the <em>shadow</em>; from then on every follow goes into both
 * filters while the shadow catches up from its snapshot's offsets, then {@link #promoteShadow} replaces the live
 * filter with one volatile write. Checks only ever read the live filter.
 *
 * <p>Until {@link #markReady} has run, {@link #mightFollow} answers {@code true} (the filter is not consulted).
 */
@Component
public class EdgeBloom {

    private volatile EdgeFilter filter;
    private volatile EdgeFilter shadow;
    private volatile boolean ready;
    /** Creation time of the snapshot the live filter started from, epoch ms; {@code Long.MIN_VALUE} after a scan. */
    private volatile long snapshotCreatedAt = Long.MIN_VALUE;

    EdgeBloom(MeterRegistry registry) {
        Gauge.builder("graph.check.bloom.expected.fpp", this,
                        b -> b.filter == null ? Double.NaN : b.filter.expectedFpp())
                .description("Estimated false-positive probability of the edge bloom filter now")
                .register(registry);
        Gauge.builder("graph.check.bloom.snapshot.age", this,
                        b -> b.snapshotCreatedAt == Long.MIN_VALUE ? Double.NaN
                                : (System.currentTimeMillis() - b.snapshotCreatedAt) / 1000.0)
                .description("Age of the bloom snapshot the live filter started from (NaN: built by a shard scan)")
                .baseUnit("seconds")
                .register(registry);
    }

    /**
     * Starts from {@code start}, which {@link #recordFollow} then fills; checks do not consult it before
     * {@link #markReady}.
     *
     * @param start             an empty filter or one loaded from a snapshot
     * @param snapshotCreatedAt the snapshot's creation time (epoch ms), {@code Long.MIN_VALUE} for an empty one
     */
    void begin(EdgeFilter start, long snapshotCreatedAt) {
        this.ready = false;
        this.shadow = null;
        this.filter = start;
        this.snapshotCreatedAt = snapshotCreatedAt;
    }

    /** Checks stop consulting the filter: it no longer receives every follow (its event feed stopped). */
    void markStale() {
        this.ready = false;
    }

    /** The filled filter now answers checks. */
    void markReady() {
        this.ready = true;
    }

    /**
     * From now on every follow also goes into {@code next}, which is being caught up from its snapshot.
     *
     * @param next the rebuilt filter
     */
    void beginShadow(EdgeFilter next) {
        this.shadow = next;
    }

    /**
     * Replaces the live filter with the shadow; the shadow must have caught up.
     *
     * @param snapshotCreatedAt creation time of the shadow's snapshot, epoch ms
     */
    void promoteShadow(long snapshotCreatedAt) {
        EdgeFilter next = shadow;
        if (next == null) {
            throw new IllegalStateException("no shadow filter");
        }
        this.filter = next;
        this.snapshotCreatedAt = snapshotCreatedAt;
        this.shadow = null;
    }

    /** Abandons the shadow (its catch-up failed); the live filter stays. */
    void dropShadow() {
        this.shadow = null;
    }

    /**
     * Records a follow, from a scan, a replay or an event; ignored before {@link #begin}.
     *
     * @param follower positive
     * @param followee positive
     */
    void recordFollow(long follower, long followee) {
        EdgeFilter f = filter;
        if (f != null) {
            f.put(follower, followee);
        }
        EdgeFilter s = shadow;
        if (s != null) {
            s.put(follower, followee);
        }
    }

    /**
     * Whether the checks consult the filter.
     *
     * @return {@code true} once built
     */
    public boolean isReady() {
        return ready;
    }

    /**
     * Creation time of the snapshot the live filter started from.
     *
     * @return epoch ms, or {@code Long.MIN_VALUE} when it was built by a shard scan (or not yet built)
     */
    public long snapshotCreatedAt() {
        return snapshotCreatedAt;
    }

    /**
     * Whether {@code follower} may follow {@code followee}; {@code false} is definite.
     *
     * @param follower positive
     * @param followee positive
     * @return {@code false} only when the edge is certainly absent; {@code true} while not ready
     */
    public boolean mightFollow(long follower, long followee) {
        return !ready || filter.mightContain(follower, followee);
    }
}
