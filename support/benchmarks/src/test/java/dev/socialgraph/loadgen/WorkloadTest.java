package dev.socialgraph.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.socialgraph.loadgen.Operation.Kind;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WorkloadTest {

    /** 2,000 users, each following 1..20 others: small, but with the shape the workloads need. */
    private static final EdgeList GRAPH = graph();

    private static EdgeList graph() {
        Random random = new Random(7);
        int edges = 20_000;
        long[] from = new long[edges];
        long[] to = new long[edges];
        for (int i = 0; i < edges; i++) {
            from[i] = 1 + random.nextInt(2_000);
            to[i] = 1 + random.nextInt(2_000);
        }
        return EdgeList.of(from, to);
    }

    @Test
    void checkExisting_drawsOnlyEdgesOfTheGraph() {
        Workload.Source source = Workload.CHECK_EXISTING.source(GRAPH, 1);
        for (int i = 0; i < 10_000; i++) {
            Operation op = source.next();
            assertThat(op.kind()).isEqualTo(Kind.CHECK);
            assertThat(GRAPH.contains(op.user(), op.other())).as("%s", op).isTrue();
        }
    }

    @Test
    void checkMixed_isHalfExistingEdges() {
        Workload.Source source = Workload.CHECK_MIXED.source(GRAPH, 1);
        int existing = 0;
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            Operation op = source.next();
            existing += GRAPH.contains(op.user(), op.other()) ? 1 : 0;
        }
        // Half are drawn from edges; of the random half, density 20,000 / 2,000² = 0.5 % hit an edge.
        assertThat(existing / (double) n).isCloseTo(0.5 + 0.5 * 0.005, within(0.02));
    }

    @Test
    void source_sameSeed_sameOperations() {
        Workload.Source a = Workload.MIXED.source(GRAPH, 42);
        Workload.Source b = Workload.MIXED.source(GRAPH, 42);
        for (int i = 0; i < 1_000; i++) {
            Operation x = a.next();
            Operation y = b.next();
            assertThat(y.kind()).isEqualTo(x.kind());
            assertThat(y.user()).isEqualTo(x.user());
            assertThat(y.other()).isEqualTo(x.other());
            assertThat(y.ids()).isEqualTo(x.ids());
        }
    }

    @Test
    void mixed_followsLinkBenchProportions() {
        Workload.Source source = Workload.MIXED.source(GRAPH, 3);
        Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
        int n = 200_000;
        for (int i = 0; i < n; i++) {
            counts.merge(source.next().kind(), 1, Integer::sum);
        }
        double writes = (counts.getOrDefault(Kind.FOLLOW, 0) + counts.getOrDefault(Kind.UNFOLLOW, 0)) / (double) n;
        double pages = (counts.get(Kind.FOLLOWING_PAGE) + counts.get(Kind.FOLLOWERS_PAGE)) / (double) n;
        assertThat(writes).isCloseTo(0.3094, within(0.005));
        assertThat(pages).isCloseTo(0.5071, within(0.005));
        assertThat(counts.get(Kind.COUNTS) / (double) n).isCloseTo(0.1782, within(0.005));
        assertThat(counts).doesNotContainKey(Kind.BATCH_CHECK);
    }

    @Test
    void mixed_userPopularityIsSkewed() {
        Workload.Source source = Workload.MIXED.source(GRAPH, 5);
        Map<Long, Integer> perUser = new HashMap<>();
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            Operation op = source.next();
            if (!op.kind().isWrite()) {
                perUser.merge(op.user(), 1, Integer::sum);
            }
        }
        int top = perUser.values().stream().max(Integer::compare).orElseThrow();
        // Zipf(0.8) over 2,000 users gives the top user about 2.6 % of reads; uniform would give 0.05 %.
        assertThat(top / (double) perUser.values().stream().mapToInt(Integer::intValue).sum()).isGreaterThan(0.015);
    }

    @Test
    void writes_unfollowOnlyPairsFollowedEarlier() {
        Workload.Source source = Workload.WRITES.source(GRAPH, 9);
        java.util.Set<String> followed = new java.util.HashSet<>();
        int unfollows = 0;
        for (int i = 0; i < 10_000; i++) {
            Operation op = source.next();
            String pair = op.user() + ">" + op.other();
            if (op.kind() == Kind.FOLLOW) {
                followed.add(pair);
            } else {
                assertThat(op.kind()).isEqualTo(Kind.UNFOLLOW);
                assertThat(followed).contains(pair);
                unfollows++;
            }
        }
        assertThat(unfollows).isBetween(4_000, 5_000);
    }

    @Test
    void batchCheck_hasOneHundredIdsStartingWithUpToFiftyFromTheRow() {
        Workload.Source source = Workload.BATCH_CHECK.source(GRAPH, 11);
        for (int n = 0; n < 100; n++) {
            Operation op = source.next();
            assertThat(op.ids()).hasSize(100);
            int rowSize = 0;
            for (int u = 0; u < GRAPH.userCount(); u++) {
                if (GRAPH.user(u) == op.user()) {
                    rowSize = GRAPH.rowEnd(u) - GRAPH.rowStart(u);
                }
            }
            for (int i = 0; i < Math.min(50, rowSize); i++) {
                assertThat(GRAPH.contains(op.user(), op.ids()[i])).isTrue();
            }
        }
    }

    @Test
    void parse_unknownLabel_listsTheKnownOnes() {
        assertThat(Workload.parse("linkbench-mix")).isEqualTo(Workload.MIXED);
        assertThatThrownBy(() -> Workload.parse("nope")).hasMessageContaining("check-existing");
    }

    @Test
    void blockWrites_unblockOnlyPairsBlockedEarlier_andHiddenAsksAboutABatchOfAuthors() {
        Workload.Source source = Workload.BLOCK_WRITES.source(GRAPH, 11);
        Map<String, Integer> blocked = new HashMap<>(); // a pair may be blocked twice before its unblocks
        int unblocks = 0;
        for (int i = 0; i < 2_000; i++) {
            Operation op = source.next();
            assertThat(op.user()).isNotEqualTo(op.other());
            String pair = op.user() + ">" + op.other();
            if (op.kind() == Kind.BLOCK) {
                blocked.merge(pair, 1, Integer::sum);
            } else {
                assertThat(op.kind()).isEqualTo(Kind.UNBLOCK);
                assertThat(blocked.getOrDefault(pair, 0)).as(pair).isPositive();
                blocked.merge(pair, -1, Integer::sum);
                unblocks++;
            }
        }
        assertThat(unblocks).isPositive();
        Operation hidden = Workload.HIDDEN.source(GRAPH, 1).next();
        assertThat(hidden.kind()).isEqualTo(Kind.HIDDEN);
        assertThat(hidden.ids()).hasSize(Workload.BATCH_SIZE);
        assertThat(Workload.MIXED.kinds()).doesNotContain(Kind.HIDDEN, Kind.BLOCK, Kind.UNBLOCK);
    }

    @Test
    void taoMix_followsTaosReadProportions_over100000Draws() {
        Workload.Source source = Workload.TAO_MIX.source(GRAPH, 11);
        Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            counts.merge(source.next().kind(), 1, Integer::sum);
        }
        // Binomial standard deviation at n = 100,000 is at most 0.0016: the tolerance is about three of them.
        assertThat(counts.get(Kind.FOLLOWING_PAGE) / (double) n).isCloseTo(0.2875, within(0.005));
        assertThat(counts.get(Kind.FOLLOWERS_PAGE) / (double) n).isCloseTo(0.2875, within(0.005));
        assertThat(counts.get(Kind.CHECK) / (double) n).isCloseTo(0.22, within(0.005));
        assertThat(counts.get(Kind.COUNTS) / (double) n).isCloseTo(0.165, within(0.005));
        assertThat(counts.get(Kind.COMMON_FOLLOWING) / (double) n).isCloseTo(0.04, within(0.003));
        assertThat(counts.keySet()).containsExactlyInAnyOrderElementsOf(Workload.TAO_MIX.kinds());
    }

    @Test
    void taoMix_sameSeed_sameOperations_otherSeed_otherOperations() {
        Workload.Source a = Workload.TAO_MIX.source(GRAPH, 42);
        Workload.Source b = Workload.TAO_MIX.source(GRAPH, 42);
        Workload.Source c = Workload.TAO_MIX.source(GRAPH, 43);
        int differ = 0;
        for (int i = 0; i < 1_000; i++) {
            Operation x = a.next();
            Operation y = b.next();
            assertThat(y.kind()).isEqualTo(x.kind());
            assertThat(y.user()).isEqualTo(x.user());
            assertThat(y.other()).isEqualTo(x.other());
            assertThat(y.limit()).isEqualTo(x.limit());
            Operation z = c.next();
            differ += z.kind() != x.kind() || z.user() != x.user() || z.limit() != x.limit() ? 1 : 0;
        }
        assertThat(differ).isGreaterThan(500);
    }

    @Test
    void taoMix_drawsHalfTheUsersFromTheMostFollowedOnePercent() {
        Workload.Source source = Workload.TAO_MIX.source(GRAPH, 5);
        int hotCount = Workload.Source.hotCount(GRAPH.userCount());
        assertThat(hotCount).isEqualTo(20); // 1 % of 2,000
        java.util.Set<Long> hot = new java.util.HashSet<>();
        for (int u : GRAPH.mostFollowed(hotCount)) {
            hot.add(GRAPH.user(u));
        }
        Map<Long, Integer> perHotUser = new HashMap<>();
        int n = 100_000;
        int inHot = 0;
        for (int i = 0; i < n; i++) {
            long user = GRAPH.user(source.taoUser());
            if (hot.contains(user)) {
                inHot++;
                perHotUser.merge(user, 1, Integer::sum);
            }
        }
        // Half from the hot users, and 1 % of the uniform half lands there too.
        assertThat(inHot / (double) n).isCloseTo(0.5 + 0.5 * 0.01, within(0.01));
        assertThat(perHotUser).hasSize(20);
        // Uniform within the hot set: each of the 20 gets about 2.5 % of all draws.
        assertThat(perHotUser.values()).allSatisfy(c -> assertThat(c / (double) n).isCloseTo(0.02525, within(0.004)));
    }

    @Test
    void taoMix_pagesAre20To100_checksHalfEdges_commonFollowingOfTwoUsers() {
        Workload.Source source = Workload.TAO_MIX.source(GRAPH, 8);
        int least = Integer.MAX_VALUE;
        int most = 0;
        int checks = 0;
        int edges = 0;
        for (int i = 0; i < 50_000; i++) {
            Operation op = source.next();
            switch (op.kind()) {
                case FOLLOWING_PAGE, FOLLOWERS_PAGE, COMMON_FOLLOWING -> {
                    least = Math.min(least, op.limit());
                    most = Math.max(most, op.limit());
                    assertThat(op.cursor()).isNull();
                    if (op.kind() == Kind.COMMON_FOLLOWING) {
                        assertThat(op.other()).isNotEqualTo(op.user()).isNotZero();
                    }
                }
                case CHECK -> {
                    checks++;
                    edges += GRAPH.contains(op.user(), op.other()) ? 1 : 0;
                }
                default -> assertThat(op.limit()).isZero();
            }
        }
        assertThat(least).isEqualTo(Workload.TAO_MIN_LIMIT);
        assertThat(most).isEqualTo(Workload.TAO_MAX_LIMIT);
        // Every user of this graph follows someone: half of the checks are edges, plus the few random hits.
        assertThat(edges / (double) checks).isCloseTo(0.5, within(0.03));
    }
}
