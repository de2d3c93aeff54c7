package dev.socialgraph.check.bloom;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.PrimitiveSink;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;

/**
 * The L0 bloom filter over follow edges {@code (follower, followee)} (DESIGN.md 5 step 1, 9): "not in the filter"
 * means "does not follow" with no network call. Built from the following shards at start-up and fed with the
 * follows of {@code follow-events} from a position taken before the scan began, so no committed edge is missed.
 * Unfollows cannot be removed; they only raise the false-positive rate until the next rebuild.
 *
 * <p>Until {@link #install} has run, {@link #mightFollow} answers {@code true} (the filter is not consulted).
 * Guava's filter is safe for concurrent {@code put} and {@code mightContain} (lock-free bit array, Guava 23+).
 */
@Component
public class EdgeBloom {

    /** One edge; the funnel writes both ids, 16 bytes, into the filter's hash. */
    record Edge(long follower, long followee) {
    }

    enum EdgeFunnel implements Funnel<Edge> {
        INSTANCE;

        @Override
        public void funnel(Edge edge, PrimitiveSink into) {
            into.putLong(edge.follower()).putLong(edge.followee());
        }
    }

    private volatile BloomFilter<Edge> filter;
    private volatile boolean ready;

    EdgeBloom(MeterRegistry registry) {
        Gauge.builder("graph.check.bloom.expected.fpp", this,
                        b -> b.filter == null ? Double.NaN : b.filter.expectedFpp())
                .description("Estimated false-positive probability of the edge bloom filter now")
                .register(registry);
    }

    /**
     * Starts a new, empty filter that {@link #recordFollow} fills; checks do not consult it before
     * {@link #markReady}.
     *
     * @param expectedEdges edges the filter is sized for, {@code >= 1} (edge count × growth)
     * @param fpp           target false-positive probability, e.g. 0.001
     */
    void begin(long expectedEdges, double fpp) {
        this.ready = false;
        this.filter = BloomFilter.create(EdgeFunnel.INSTANCE, expectedEdges, fpp);
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
     * Records a follow, from the start-up scan or an event; ignored before {@link #begin}.
     *
     * @param follower positive
     * @param followee positive
     */
    void recordFollow(long follower, long followee) {
        BloomFilter<Edge> f = filter;
        if (f != null) {
            f.put(new Edge(follower, followee));
        }
    }

    /**
     * Whether the checks consult the filter.
     *
     * @return {@code true} once built from the shards
     */
    public boolean isReady() {
        return ready;
    }

    /**
     * Whether {@code follower} may follow {@code followee}; {@code false} is definite.
     *
     * @param follower positive
     * @param followee positive
     * @return {@code false} only when the edge is certainly absent; {@code true} while not ready
     */
    public boolean mightFollow(long follower, long followee) {
        return !ready || filter.mightContain(new Edge(follower, followee));
    }
}
