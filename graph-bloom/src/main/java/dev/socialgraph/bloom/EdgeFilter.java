package dev.socialgraph.bloom;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.PrimitiveSink;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Bloom filter over follow edges {@code (follower, followee)} (DESIGN.md 5 step 1, 9): "not in the filter" means
 * "does not follow". The one definition of the edge funnel (both ids, 16 bytes, big-endian as Guava's
 * {@link PrimitiveSink#putLong}) shared by the check service, the reconciler's snapshots and the bulk importer, so
 * a filter written by one is read by the others bit for bit.
 *
 * <p>Guava's filter is safe for concurrent {@link #put} and {@link #mightContain} (lock-free bit array, Guava 23+).
 * At fpp 0.001 it costs ~14.4 bits per expected edge.
 */
public final class EdgeFilter {

    /** Default target false-positive probability. */
    public static final double DEFAULT_FPP = 0.001;

    /** One edge as the funnel sees it. */
    private record Edge(long follower, long followee) {
    }

    private enum EdgeFunnel implements Funnel<Edge> {
        INSTANCE;

        @Override
        public void funnel(Edge edge, PrimitiveSink into) {
            into.putLong(edge.follower()).putLong(edge.followee());
        }
    }

    private final BloomFilter<Edge> filter;
    private final long expectedEdges;
    private final double fpp;

    private EdgeFilter(BloomFilter<Edge> filter, long expectedEdges, double fpp) {
        this.filter = filter;
        this.expectedEdges = expectedEdges;
        this.fpp = fpp;
    }

    /**
     * A new, empty filter.
     *
     * @param expectedEdges edges it is sized for, {@code >= 1}
     * @param fpp           target false-positive probability at that many edges, in {@code (0, 1)}
     * @return the filter
     * @throws IllegalArgumentException for a bad size or fpp
     */
    public static EdgeFilter create(long expectedEdges, double fpp) {
        if (expectedEdges < 1) {
            throw new IllegalArgumentException("expectedEdges must be >= 1, was " + expectedEdges);
        }
        if (!(fpp > 0 && fpp < 1)) {
            throw new IllegalArgumentException("fpp must be in (0, 1), was " + fpp);
        }
        return new EdgeFilter(BloomFilter.create(EdgeFunnel.INSTANCE, expectedEdges, fpp), expectedEdges, fpp);
    }

    /**
     * The size to give a filter that must hold {@code edges} now and keep its fpp until the next rebuild.
     *
     * @param edges   edges known now, {@code >= 0}
     * @param growth  headroom factor, {@code >= 1} (e.g. 1.5)
     * @param minimum smallest size, {@code >= 1}, so that a young deployment does not saturate a tiny filter
     * @return {@code max(minimum, ceil(edges × growth))}
     */
    public static long expectedEdges(long edges, double growth, long minimum) {
        if (edges < 0 || growth < 1 || minimum < 1) {
            throw new IllegalArgumentException("edges=" + edges + " growth=" + growth + " minimum=" + minimum);
        }
        return Math.max(minimum, (long) Math.ceil(edges * growth));
    }

    /**
     * Adds an edge.
     *
     * @param follower follower id
     * @param followee followee id
     */
    public void put(long follower, long followee) {
        filter.put(new Edge(follower, followee));
    }

    /**
     * Whether the edge may be present; {@code false} is definite.
     *
     * @param follower follower id
     * @param followee followee id
     * @return {@code false} only when the edge was never {@link #put}
     */
    public boolean mightContain(long follower, long followee) {
        return filter.mightContain(new Edge(follower, followee));
    }

    /** Edges this filter was sized for. */
    public long expectedEdges() {
        return expectedEdges;
    }

    /** Target false-positive probability at {@link #expectedEdges()}. */
    public double fpp() {
        return fpp;
    }

    /** Estimated false-positive probability now, from the fraction of set bits. */
    public double expectedFpp() {
        return filter.expectedFpp();
    }

    /** Estimated number of distinct edges put so far. */
    public long approximateEdgeCount() {
        return filter.approximateElementCount();
    }

    /**
     * Writes the filter bits in Guava's {@link BloomFilter#writeTo} format (not closing the stream).
     *
     * @param out destination
     * @throws IOException from the stream
     */
    public void writeTo(OutputStream out) throws IOException {
        filter.writeTo(out);
    }

    /**
     * Reads filter bits written by {@link #writeTo}.
     *
     * @param in            source, positioned at the filter bits
     * @param expectedEdges the size the filter was created with (not in Guava's format; kept by the snapshot)
     * @param fpp           the fpp it was created with
     * @return the filter
     * @throws IOException from the stream, or when the bits are not a Guava bloom filter
     */
    public static EdgeFilter readFrom(InputStream in, long expectedEdges, double fpp) throws IOException {
        return new EdgeFilter(BloomFilter.readFrom(in, EdgeFunnel.INSTANCE), expectedEdges, fpp);
    }
}
