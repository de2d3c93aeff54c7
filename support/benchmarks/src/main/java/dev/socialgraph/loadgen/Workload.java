package dev.socialgraph.loadgen;

import dev.socialgraph.loadgen.Operation.Kind;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.Set;
import org.apache.commons.rng.UniformRandomProvider;
import org.apache.commons.rng.sampling.PermutationSampler;
import org.apache.commons.rng.sampling.distribution.DiscreteSampler;
import org.apache.commons.rng.sampling.distribution.RejectionInversionZipfSampler;
import org.apache.commons.rng.simple.RandomSource;

/**
 * The workloads, all drawn from the imported graph. A workload makes a deterministic stream of
 * {@link Operation}s from a seed, so every target (fleet, gateway, raw Redis, naive PostgreSQL) is asked the same
 * questions about the same pairs in the same order.
 */
enum Workload {
    /** Follow checks of pairs drawn uniformly from the existing edges (all positives). */
    CHECK_EXISTING("check-existing", EnumSet.of(Kind.CHECK)),
    /** Follow checks of uniformly random pairs of users (almost all negatives: ego-Twitter's density is 2.7e-4). */
    CHECK_RANDOM("check-random", EnumSet.of(Kind.CHECK)),
    /** Half existing edges, half random pairs. */
    CHECK_MIXED("check-mixed", EnumSet.of(Kind.CHECK)),
    /** Batch check of 100 ids: up to 50 of the user's followees, the rest random users. */
    BATCH_CHECK("batch-check-100", EnumSet.of(Kind.BATCH_CHECK)),
    /** First page of a uniformly random user's following list. */
    FOLLOWING_PAGE("following-page", EnumSet.of(Kind.FOLLOWING_PAGE)),
    /** First page of a uniformly random user's followers list. */
    FOLLOWERS_PAGE("followers-page", EnumSet.of(Kind.FOLLOWERS_PAGE)),
    /** Follower and following counts of a uniformly random user. */
    COUNTS("counts", EnumSet.of(Kind.COUNTS)),
    /**
     * Writes by uniformly random users: half follows of a random pair, half unfollows of a pair this stream followed
     * earlier (so the stored graph ends close to where it started and unfollows remove real edges).
     */
    WRITES("writes", EnumSet.of(Kind.FOLLOW, Kind.UNFOLLOW)),
    /**
     * LinkBench's default request mix (Armstrong et al., SIGMOD 2013; {@code config/FBWorkload.properties}) mapped
     * onto follows, with Zipf-distributed user popularity: see {@link #MIXED_WEIGHTS}.
     */
    MIXED("linkbench-mix", EnumSet.of(Kind.CHECK, Kind.BATCH_CHECK, Kind.FOLLOWING_PAGE, Kind.FOLLOWERS_PAGE,
            Kind.COUNTS, Kind.FOLLOW, Kind.UNFOLLOW)),
    /**
     * The hidden-authors check a feed makes before rendering, of 100 authors chosen as {@link #BATCH_CHECK} chooses
     * its ids (up to 50 followees, the rest random users): its cost beside the batch follow check's.
     */
    HIDDEN("hidden-100", EnumSet.of(Kind.HIDDEN)),
    /**
     * Block writes by uniformly random users: half blocks of a random pair, half unblocks of a pair this stream
     * blocked earlier. A block also removes the follows between the two, both ways.
     */
    BLOCK_WRITES("block-writes", EnumSet.of(Kind.BLOCK, Kind.UNBLOCK));

    /**
     * LinkBench's default mix in percent, mapped onto this API. LinkBench's link operations map one to one
     * (getlinklist → list pages, split evenly between following and followers; countlink → counts; getlink → check;
     * addlink and updatelink → follow; deletelink → unfollow); its node operations map to the nearest user-level
     * operation (getnode → counts, addnode and updatenode → follow, deletenode → unfollow). Reads 69.06 %, writes
     * 30.94 %, as in LinkBench.
     */
    static final double[] MIXED_WEIGHTS = new double[Kind.values().length];

    /** LinkBench's Zipf shapes: {@code read_shape} 0.8 and {@code write_shape} 0.741 (FBWorkload.properties). */
    static final double READ_ZIPF_EXPONENT = 0.8;
    static final double WRITE_ZIPF_EXPONENT = 0.741;

    static {
        MIXED_WEIGHTS[Kind.FOLLOWING_PAGE.ordinal()] = 50.7119145 / 2;
        MIXED_WEIGHTS[Kind.FOLLOWERS_PAGE.ordinal()] = 50.7119145 / 2;
        MIXED_WEIGHTS[Kind.COUNTS.ordinal()] = 4.8863567 + 12.9326683;
        MIXED_WEIGHTS[Kind.CHECK.ordinal()] = 0.5261142;
        MIXED_WEIGHTS[Kind.BATCH_CHECK.ordinal()] = 0;
        MIXED_WEIGHTS[Kind.FOLLOW.ordinal()] = 8.9886601 + 8.0122125 + 2.5732789 + 7.366437;
        MIXED_WEIGHTS[Kind.UNFOLLOW.ordinal()] = 2.9907664 + 1.0115914;
    }

    /** Ids per batch check. */
    static final int BATCH_SIZE = 100;

    private final String label;
    private final Set<Kind> kinds;

    Workload(String label, Set<Kind> kinds) {
        this.label = label;
        this.kinds = kinds;
    }

    /** The name used on the command line and in reports. */
    String label() {
        return label;
    }

    /** The request kinds this workload issues; a target must support all of them to run it. */
    Set<Kind> kinds() {
        return kinds;
    }

    /** Parses a {@link #label()}. @throws IllegalArgumentException listing the labels */
    static Workload parse(String label) {
        for (Workload w : values()) {
            if (w.label.equals(label)) {
                return w;
            }
        }
        StringBuilder known = new StringBuilder();
        for (Workload w : values()) {
            known.append(known.isEmpty() ? "" : ", ").append(w.label);
        }
        throw new IllegalArgumentException("unknown workload '" + label + "'; known: " + known);
    }

    /** A fresh, deterministic stream of this workload's operations over {@code graph}. Not thread-safe. */
    Source source(EdgeList graph, long seed) {
        return new Source(this, graph, seed);
    }

    /** Draws operations; used by the single dispatcher thread of a run. */
    static final class Source {
        private final Workload workload;
        private final EdgeList graph;
        private final UniformRandomProvider random;
        private final int[] popularity;   // rank → user number: a random permutation, uncorrelated with degree
        private final DiscreteSampler readRank;
        private final DiscreteSampler writeRank;
        private final double[] cumulative = new double[Kind.values().length];
        private final ArrayDeque<long[]> followed = new ArrayDeque<>();
        private final ArrayDeque<long[]> blocked = new ArrayDeque<>();

        private Source(Workload workload, EdgeList graph, long seed) {
            this.workload = workload;
            this.graph = graph;
            this.random = RandomSource.XO_RO_SHI_RO_128_PP.create(seed);
            // LinkBench blends 99.5 % (reads) and 95 % (writes) of its Zipf accesses uncorrelated with out-degree;
            // a random permutation of users as the popularity order is that, fully uncorrelated.
            this.popularity = PermutationSampler.natural(graph.userCount());
            PermutationSampler.shuffle(random, popularity);
            this.readRank = RejectionInversionZipfSampler.of(random, graph.userCount(), READ_ZIPF_EXPONENT);
            this.writeRank = RejectionInversionZipfSampler.of(random, graph.userCount(), WRITE_ZIPF_EXPONENT);
            double sum = 0;
            for (int k = 0; k < cumulative.length; k++) {
                sum += MIXED_WEIGHTS[k];
                cumulative[k] = sum;
            }
        }

        /** The next operation. */
        Operation next() {
            return switch (workload) {
                case CHECK_EXISTING -> existingPair();
                case CHECK_RANDOM -> randomPair();
                case CHECK_MIXED -> random.nextBoolean() ? existingPair() : randomPair();
                case BATCH_CHECK -> batch(uniformUser());
                case FOLLOWING_PAGE -> Operation.of(Kind.FOLLOWING_PAGE, graph.user(uniformUser()), 0);
                case FOLLOWERS_PAGE -> Operation.of(Kind.FOLLOWERS_PAGE, graph.user(uniformUser()), 0);
                case COUNTS -> Operation.of(Kind.COUNTS, graph.user(uniformUser()), 0);
                case WRITES -> random.nextBoolean() || followed.isEmpty()
                        ? follow(uniformUser()) : unfollowEarlierFollow();
                case MIXED -> mixed();
                case HIDDEN -> hidden(uniformUser());
                case BLOCK_WRITES -> random.nextBoolean() || blocked.isEmpty() ? block(uniformUser()) : unblock();
            };
        }

        private Operation mixed() {
            double x = random.nextDouble() * cumulative[cumulative.length - 1];
            Kind kind = Kind.values()[0];
            for (Kind k : Kind.values()) {
                if (x < cumulative[k.ordinal()]) {
                    kind = k;
                    break;
                }
            }
            return switch (kind) {
                case CHECK -> {
                    int u = popularity[readRank.sample() - 1];
                    int start = graph.rowStart(u);
                    int end = graph.rowEnd(u);
                    long other = end > start && random.nextBoolean()
                            ? graph.followee(start + random.nextInt(end - start)) : graph.user(uniformUser());
                    yield Operation.of(Kind.CHECK, graph.user(u), other);
                }
                case BATCH_CHECK -> batch(popularity[readRank.sample() - 1]);
                case FOLLOWING_PAGE, FOLLOWERS_PAGE, COUNTS ->
                        Operation.of(kind, graph.user(popularity[readRank.sample() - 1]), 0);
                case FOLLOW -> follow(popularity[writeRank.sample() - 1]);
                case UNFOLLOW -> followed.isEmpty()
                        ? Operation.of(Kind.UNFOLLOW, graph.user(popularity[writeRank.sample() - 1]),
                                graph.user(uniformUser()))
                        : unfollowEarlierFollow();
                case HIDDEN, BLOCK, UNBLOCK -> throw new IllegalStateException(kind + " is not in the mix");
            };
        }

        private int uniformUser() {
            return random.nextInt(graph.userCount());
        }

        private Operation existingPair() {
            int e = random.nextInt(graph.edgeCount());
            return Operation.of(Kind.CHECK, graph.follower(e), graph.followee(e));
        }

        private Operation randomPair() {
            long a = graph.user(uniformUser());
            long b = graph.user(uniformUser());
            while (b == a) {
                b = graph.user(uniformUser());
            }
            return Operation.of(Kind.CHECK, a, b);
        }

        private Operation hidden(int u) {
            Operation batch = batch(u);
            return new Operation(Kind.HIDDEN, batch.user(), 0, batch.ids());
        }

        private Operation block(int u) {
            long blocker = graph.user(u);
            long target = graph.user(uniformUser());
            while (target == blocker) {
                target = graph.user(uniformUser());
            }
            blocked.addLast(new long[] {blocker, target});
            return Operation.of(Kind.BLOCK, blocker, target);
        }

        private Operation unblock() {
            long[] pair = blocked.removeFirst();
            return Operation.of(Kind.UNBLOCK, pair[0], pair[1]);
        }

        private Operation batch(int u) {
            long[] ids = new long[BATCH_SIZE];
            int start = graph.rowStart(u);
            int row = graph.rowEnd(u) - start;
            int fromRow = Math.min(row, BATCH_SIZE / 2);
            for (int i = 0; i < ids.length; i++) {
                ids[i] = i < fromRow ? graph.followee(start + random.nextInt(row)) : graph.user(uniformUser());
            }
            return new Operation(Kind.BATCH_CHECK, graph.user(u), 0, ids);
        }

        private Operation follow(int u) {
            long follower = graph.user(u);
            long followee = graph.user(uniformUser());
            while (followee == follower) {
                followee = graph.user(uniformUser());
            }
            followed.addLast(new long[] {follower, followee});
            return Operation.of(Kind.FOLLOW, follower, followee);
        }

        private Operation unfollowEarlierFollow() {
            long[] pair = followed.removeFirst();
            return Operation.of(Kind.UNFOLLOW, pair[0], pair[1]);
        }
    }
}
