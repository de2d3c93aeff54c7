package dev.socialgraph.check.bloom;

import dev.socialgraph.bloom.EdgeFilter;
import dev.socialgraph.check.affinity.ShardOwnership;
import dev.socialgraph.check.follow.FollowChecker;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.LongAdder;
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
 * filter with one volatile write. Checks only ever read the live filter. Live filter and shadow are one immutable
 * pair, read once per follow: a follow recorded while the shadow is promoted goes into both filters of the pair it
 * read, so it is in the new live filter. (Two separate fields, read one after the other, lost such a follow: it went
 * into the old live filter, and the shadow read after the promotion was gone.)
 *
 * <p>Until {@link #markReady} has run, {@link #mightFollow} answers {@code true} (the filter is not consulted).
 *
 * <p>Shard-affine reads: only edges whose follower's logical shard this instance owns
 * ({@link ShardOwnership}) go into the filters, whatever feeds them (scan, replay, events), and a check about any
 * other follower is not answered by the filter ({@link #mightFollow} is {@code true}): never a wrong "no".
 */
@Component
public class EdgeBloom implements FollowChecker.Bloom {

    /**
     * The live filter (null before {@link #begin}) and the shadow being caught up (null when there is none), each
     * with the edges put into it. Replaced whole by the methods that change it, which run on one thread at a time
     * (start-up, then swaps under {@code BloomSnapshots}' lock); read once by each reader.
     */
    private record Filters(EdgeFilter live, LongAdder liveEdges, EdgeFilter shadow, LongAdder shadowEdges) {
    }

    private volatile Filters filters = new Filters(null, new LongAdder(), null, null);
    private volatile boolean ready;
    /** Creation time of the snapshot the live filter started from, epoch ms; {@code Long.MIN_VALUE} after a scan. */
    private volatile long snapshotCreatedAt = Long.MIN_VALUE;
    private final ShardOwnership ownership;

    EdgeBloom(MeterRegistry registry, ShardOwnership ownership) {
        this.ownership = ownership;
        Gauge.builder("graph.check.bloom.edges", this, b -> b.filters.liveEdges().sum())
                .description("Edges put into the live bloom filter (its snapshot's count plus every put since; "
                        + "an edge put twice counts twice)")
                .register(registry);
        Gauge.builder("graph.check.bloom.expected.fpp", this,
                        b -> b.filters.live() == null ? Double.NaN : b.filters.live().expectedFpp())
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
     * @param edges             edges already in {@code start} (the snapshot's edge count; 0 for an empty one)
     */
    synchronized void begin(EdgeFilter start, long snapshotCreatedAt, long edges) {
        this.ready = false;
        this.filters = new Filters(start, count(edges), null, null);
        this.snapshotCreatedAt = snapshotCreatedAt;
    }

    /** Checks stop consulting the filter: it no longer receives every follow (its event feed stopped). */
    public void markStale() {
        this.ready = false;
    }

    /** The filled filter now answers checks. */
    void markReady() {
        this.ready = true;
    }

    /**
     * From now on every follow also goes into {@code next}, which is being caught up from its snapshot.
     *
     * @param next  the rebuilt filter
     * @param edges edges already in it (its snapshot's edge count)
     */
    synchronized void beginShadow(EdgeFilter next, long edges) {
        Filters f = filters;
        this.filters = new Filters(f.live(), f.liveEdges(), next, count(edges));
    }

    /**
     * Replaces the live filter with the shadow; the shadow must have caught up.
     *
     * @param snapshotCreatedAt creation time of the shadow's snapshot, epoch ms
     */
    synchronized void promoteShadow(long snapshotCreatedAt) {
        Filters f = filters;
        if (f.shadow() == null) {
            throw new IllegalStateException("no shadow filter");
        }
        this.filters = new Filters(f.shadow(), f.shadowEdges(), null, null);
        this.snapshotCreatedAt = snapshotCreatedAt;
    }

    /** Abandons the shadow (its catch-up failed); the live filter stays. */
    synchronized void dropShadow() {
        Filters f = filters;
        this.filters = new Filters(f.live(), f.liveEdges(), null, null);
    }

    private static LongAdder count(long edges) {
        LongAdder count = new LongAdder();
        count.add(edges);
        return count;
    }

    /**
     * Records a follow, from a scan, a start-up replay or an event, in the live filter and the shadow; ignored
     * before {@link #begin} and when the follower's logical shard is not owned here.
     *
     * @param follower positive
     * @param followee positive
     */
    public void recordFollow(long follower, long followee) {
        if (!ownership.owns(follower)) {
            return;
        }
        Filters f = filters; // once: see the class comment
        if (f.live() != null) {
            f.live().put(follower, followee);
            f.liveEdges().increment();
        }
        if (f.shadow() != null) {
            f.shadow().put(follower, followee);
            f.shadowEdges().increment();
        }
    }

    /**
     * Records a follow replayed into the shadow only (catching a swap's snapshot up); ignored without a shadow and
     * when the follower's logical shard is not owned here.
     *
     * @param follower positive
     * @param followee positive
     */
    void recordShadowFollow(long follower, long followee) {
        Filters f = filters;
        if (f.shadow() != null && ownership.owns(follower)) {
            f.shadow().put(follower, followee);
            f.shadowEdges().increment();
        }
    }

    /**
     * Edges put into the live filter: its snapshot's edge count plus every put since (an edge put twice, by a scan
     * and an event, counts twice).
     *
     * @return edges, {@code >= 0}; 0 before {@link #begin}
     */
    public long edges() {
        return filters.liveEdges().sum();
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
     * Whether the filter answers for {@code follower}: it is built, fed, and holds the edges of the follower's
     * logical shard.
     *
     * @param follower positive
     * @return {@code true} when a {@code false} from {@link #mightFollow} is definite
     */
    @Override
    public boolean covers(long follower) {
        return ready && ownership.owns(follower);
    }

    /**
     * Whether {@code follower} may follow {@code followee}; {@code false} is definite.
     *
     * @param follower positive
     * @param followee positive
     * @return {@code false} only when the edge is certainly absent; {@code true} while not ready and for a
     *         follower whose logical shard is not owned here
     */
    @Override
    public boolean mightFollow(long follower, long followee) {
        return !ready || !ownership.owns(follower) || filters.live().mightContain(follower, followee);
    }
}
