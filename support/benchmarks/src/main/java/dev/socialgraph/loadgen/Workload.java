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
    BLOCK_WRITES("block-writes", EnumSet.of(Kind.BLOCK, Kind.UNBLOCK)),
    /**
     * Facebook TAO's read mix (Bronson et al., USENIX ATC 2013, §6, as ZipG's benchmark tabulates it: assoc_range
     * 40.9 %, obj_get 28.8 %, assoc_get 15.7 %, assoc_count 11.7 %, assoc_time_range 2.8 %) without the object reads,
     * which this service does not have, renormalised and mapped onto follows: see {@link #TAO_WEIGHTS}. Half of the
     * users are drawn from the most followed 1 % ({@link #HOT_SHARE}), half uniformly; page sizes are drawn from
     * {@link #TAO_MIN_LIMIT}..{@link #TAO_MAX_LIMIT}.
     */
    TAO_MIX("tao-mix", EnumSet.of(Kind.FOLLOWING_PAGE, Kind.FOLLOWERS_PAGE, Kind.CHECK, Kind.COUNTS,
            Kind.COMMON_FOLLOWING));

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

    /**
     * TAO's reads in percent without obj_get (28.8 % of TAO's reads; the rest renormalised to 100 %): assoc_range
     * 57.5 % → list pages, split evenly between following and followers; assoc_get 22 % → single check;
     * assoc_count 16.5 % → counts; assoc_time_range 4 % → common following, the one other ranged list read this
     * API has (TAO's time range has no equivalent here).
     */
    static final double[] TAO_WEIGHTS = new double[Kind.values().length];

    static {
        TAO_WEIGHTS[Kind.FOLLOWING_PAGE.ordinal()] = 57.5 / 2;
        TAO_WEIGHTS[Kind.FOLLOWERS_PAGE.ordinal()] = 57.5 / 2;
        TAO_WEIGHTS[Kind.CHECK.ordinal()] = 22;
        TAO_WEIGHTS[Kind.COUNTS.ordinal()] = 16.5;
        TAO_WEIGHTS[Kind.COMMON_FOLLOWING.ordinal()] = 4;
    }

    /**
     * The share of the users, the most followed by in-degree, from which half of {@link #TAO_MIX}'s users are drawn:
     * TAO's load is skewed towards popular objects, and a follow graph's popular users are its most followed.
     */
    static final double HOT_SHARE = 0.01;

    /**
     * {@link #TAO_MIX}'s page sizes, drawn uniformly from this range (inclusive) for every list read. Neither the TAO
     * paper nor ZipG publishes a distribution of limits; a range rather than one size keeps the benchmark from
     * timing a single response size: 20 is a mobile client's first page, 100 a web client's, and the mean, 60, is
     * close to the API's default of 50.
     */
    static final int TAO_MIN_LIMIT = 20;
    static final int TAO_MAX_LIMIT = 100;

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
        /** {@link #TAO_MIX}'s hot users (user numbers, the most followed 1 %); empty for the other workloads. */
        private final int[] hot;
        private final double[] taoCumulative = new double[Kind.values().length];

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
            this.hot = workload == TAO_MIX ? graph.mostFollowed(hotCount(graph.userCount())) : new int[0];
            double taoSum = 0;
            for (int k = 0; k < taoCumulative.length; k++) {
                taoSum += TAO_WEIGHTS[k];
                taoCumulative[k] = taoSum;
            }
        }

        /** How many users are hot among {@code users}: {@link #HOT_SHARE} of them, rounded up, at least one. */
        static int hotCount(int users) {
            return Math.max(1, (int) Math.ceil(users * HOT_SHARE));
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
                case TAO_MIX -> tao();
            };
        }

        /**
         * One read of {@link #TAO_MIX}. Every user is drawn by {@link #taoUser()}. A check asks whether the drawn user
         * follows one of its followees (half of the checks, when it follows anyone) or another drawn user, as the
         * LinkBench mix's checks do (the TAO paper gives no hit rate for assoc_get; half and half exercises both the
         * bloom filter's fast negatives and the lookups). Common following is of two drawn users.
         */
        private Operation tao() {
            Kind kind = pick(taoCumulative);
            int u = taoUser();
            return switch (kind) {
                case FOLLOWING_PAGE, FOLLOWERS_PAGE -> Operation.page(kind, graph.user(u), 0, taoLimit());
                case COUNTS -> Operation.of(kind, graph.user(u), 0);
                case CHECK -> {
                    int start = graph.rowStart(u);
                    int end = graph.rowEnd(u);
                    long other = end > start && random.nextBoolean()
                            ? graph.followee(start + random.nextInt(end - start)) : graph.user(otherTaoUser(u));
                    yield Operation.of(Kind.CHECK, graph.user(u), other);
                }
                case COMMON_FOLLOWING -> Operation.page(kind, graph.user(u), graph.user(otherTaoUser(u)), taoLimit());
                default -> throw new IllegalStateException(kind + " is not in the mix");
            };
        }

        /** A user number: with probability ½ uniformly one of the hot users, else uniformly one of all users. */
        int taoUser() {
            return random.nextBoolean() ? hot[random.nextInt(hot.length)] : uniformUser();
        }

        /** A user number other than {@code u}, drawn as {@link #taoUser()} draws. */
        private int otherTaoUser(int u) {
            int other = taoUser();
            while (other == u && graph.userCount() > 1) {
                other = taoUser();
            }
            return other;
        }

        private int taoLimit() {
            return TAO_MIN_LIMIT + random.nextInt(TAO_MAX_LIMIT - TAO_MIN_LIMIT + 1);
        }

        /** The kind whose slice of {@code cumulative} (running sums of weights by ordinal) a uniform draw falls in. */
        private Kind pick(double[] cumulative) {
            double x = random.nextDouble() * cumulative[cumulative.length - 1];
            for (Kind k : Kind.values()) {
                if (x < cumulative[k.ordinal()]) {
                    return k;
                }
            }
            return Kind.values()[cumulative.length - 1];
        }

        private Operation mixed() {
            Kind kind = pick(cumulative);
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
                case HIDDEN, BLOCK, UNBLOCK, COMMON_FOLLOWING ->
                        throw new IllegalStateException(kind + " is not in the mix");
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
