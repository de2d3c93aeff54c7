package dev.socialgraph.tools.generate;

import dev.socialgraph.tools.edges.EdgeList;
import java.util.SplittableRandom;

/**
 * R-MAT graph generator (Chakrabarti, Zhan and Faloutsos, "R-MAT: A Recursive Model for Graph Mining", SDM 2004)
 * with the Graph500 parameters a = 0.57, b = 0.19, c = 0.19, d = 0.05 (Graph500 specification 3.0, section
 * 3.2). Each edge descends {@code scale} levels of the adjacency matrix, picking a quadrant per level; the skewed
 * probabilities give the heavy-tailed (Zipf-like) in- and out-degrees of real social graphs: a few users with very
 * many followers. Vertex labels are scattered with a bijective mixing function (Graph500 permutes labels too), so
 * high-degree users are not all small ids.
 *
 * <p>Output: distinct directed edges {@code follower -> followee} among user ids {@code 1..users}, no self-loops,
 * no user following more than {@code followingCap} others, in generation order (which becomes arrival order).
 * Deterministic for a seed.
 */
public final class RmatGenerator {

    /** Graph500 quadrant probabilities; d = 1 - a - b - c = 0.05. */
    static final double A = 0.57;
    static final double B = 0.19;
    static final double C = 0.19;

    /** Largest supported user count (out-degrees are counted in an {@code int[]} indexed by id). */
    public static final long MAX_USERS = 1L << 30;

    private RmatGenerator() {
    }

    /**
     * Generates a graph.
     *
     * @param users        number of users, {@code 2..MAX_USERS}; ids are {@code 1..users}
     * @param edges        distinct edges wanted, {@code >= 1} and at most what the cap allows
     * @param followingCap maximum out-degree (the service's 10,000)
     * @param seed         random seed
     * @param followedAt0  follow time of the first edge, epoch ms; each next edge is 1 ms later
     * @return the edges, sorted by nothing in particular (generation order), times ascending
     * @throws IllegalArgumentException when the arguments are out of range
     */
    public static EdgeList generate(long users, int edges, int followingCap, long seed, long followedAt0) {
        if (users > MAX_USERS) {
            throw new IllegalArgumentException("users must be at most " + MAX_USERS + ", was " + users);
        }
        if (users < 2 || edges < 1 || followingCap < 1 || (double) edges > (double) users * Math.min(users - 1, followingCap)) {
            throw new IllegalArgumentException("cannot place " + edges + " distinct edges among " + users
                    + " users with a following cap of " + followingCap);
        }
        int scale = 64 - Long.numberOfLeadingZeros(users - 1); // 2^scale >= users
        long mask = scale == 64 ? -1L : (1L << scale) - 1;
        SplittableRandom random = new SplittableRandom(seed);
        LongPairSet seen = new LongPairSet(Math.max(16, edges * 2));
        int[] outDegree = new int[(int) users + 1];
        EdgeList out = new EdgeList(edges);
        long t = followedAt0;
        long attempts = 0;
        long maxAttempts = Math.max(1_000_000L, edges * 50L);
        while (out.size() < edges) {
            if (++attempts > maxAttempts) {
                throw new IllegalStateException("R-MAT could not find " + edges + " distinct edges among " + users
                        + " users after " + maxAttempts + " draws; use more users or fewer edges");
            }
            long u = 0;
            long v = 0;
            for (int level = 0; level < scale; level++) {
                double r = random.nextDouble();
                long bitU = 0;
                long bitV = 0;
                if (r < A) {
                    // top-left: both bits 0
                } else if (r < A + B) {
                    bitV = 1;
                } else if (r < A + B + C) {
                    bitU = 1;
                } else {
                    bitU = 1;
                    bitV = 1;
                }
                u = (u << 1) | bitU;
                v = (v << 1) | bitV;
            }
            long follower = scatter(u, mask, scale);
            long followee = scatter(v, mask, scale);
            if (follower >= users || followee >= users || follower == followee) {
                continue;
            }
            follower += 1;
            followee += 1;
            if (outDegree[(int) follower] == followingCap || !seen.add(follower, followee)) {
                continue;
            }
            outDegree[(int) follower]++;
            out.add(follower, followee, t++);
        }
        return out;
    }

    /**
     * A bijection on {@code [0, 2^scale)}: xor-shift and odd multiply, both invertible modulo a power of two
     * (the finalizer of Stafford's "Mix13" / SplitMix64, restricted to {@code scale} bits).
     */
    static long scatter(long x, long mask, int scale) {
        int shift = Math.max(1, scale / 2);
        x &= mask;
        x ^= x >>> shift;
        x = (x * 0xbf58476d1ce4e5b9L) & mask;
        x ^= x >>> shift;
        x = (x * 0x94d049bb133111ebL) & mask;
        x ^= x >>> shift;
        return x;
    }
}
