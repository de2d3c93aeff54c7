package dev.socialgraph.check.follow;

import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.store.following.FollowingRow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import org.junit.jupiter.api.Test;

import static dev.socialgraph.check.follow.FollowChecker.NO_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

/** {@link FollowChecker} with every layer a plain fake: which layer answers, in which order, and what is filled. */
class FollowCheckerTest {

    static final long A = 10;
    static final long B = 20;
    static final long C = 30;
    static final long NOT_OWNED = 11;
    static final byte[] SECRET = "follow-checker-test-secret-0123456789".getBytes(StandardCharsets.UTF_8);

    final FakeBloom bloom = new FakeBloom();
    final FakeLocal local = new FakeLocal();
    final FakeCache redis = new FakeCache();
    final FakeShards shards = new FakeShards();
    final FakeFeed feed = new FakeFeed();
    final Queue<Runnable> admissions = new ArrayDeque<>();
    final Clock clock = Clock.fixed(Instant.ofEpochMilli(1_700_000_000_000L), ZoneOffset.UTC);
    final FollowTokens tokens = new FollowTokens(SECRET, clock);
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final FollowChecker checker = new FollowChecker(bloom, local, redis, shards, feed, id -> id != NOT_OWNED,
            tokens, Duration.ofSeconds(5), admissions::add, registry);

    FollowCheckerTest() {
        shards.rows.put(A, new long[] {B}); // A follows B only
        shards.rows.put(NOT_OWNED, new long[] {B});
        bloom.edges.add(A + ":" + B);
        bloom.edges.add(A + ":" + C); // a false positive
        bloom.edges.add(NOT_OWNED + ":" + B);
    }

    @Test
    void bloomSaysNo_answersFalse_andAsksNoOtherLayer() {
        assertThat(checker.isFollowing(A, 99, NO_TOKEN)).isFalse();
        assertThat(answers("bloom")).isEqualTo(1);
        assertThat(local.reads + redis.reads + shards.reads).isZero();
    }

    @Test
    void bloomNotCoveringTheFollower_isNotConsulted() {
        bloom.covered = false;
        assertThat(checker.isFollowing(A, 99, NO_TOKEN)).isFalse();
        assertThat(bloom.consulted).isZero();
        assertThat(answers("shard")).isEqualTo(1);
        assertThat(falsePositives()).isZero(); // not consulted: not a false positive of the filter
    }

    @Test
    void localHit_answersInProcess() {
        local.entries.put(A, new long[] {B});
        assertThat(checker.isFollowing(A, B, NO_TOKEN)).isTrue();
        assertThat(checker.isFollowing(A, C, NO_TOKEN)).isFalse();
        assertThat(answers("local")).isEqualTo(2);
        assertThat(redis.reads + shards.reads).isZero();
        assertThat(falsePositives()).isEqualTo(1); // A->C passed the filter
    }

    @Test
    void localMiss_redisHit_answersFromRedis_thenAdmitsFromTheShardAfterTheAnswer() {
        redis.sets.put(A, new long[] {B});
        assertThat(checker.isFollowing(A, B, NO_TOKEN)).isTrue();
        assertThat(answers("redis")).isEqualTo(1);
        assertThat(shards.reads).isZero(); // the answer did not wait for the admission
        assertThat(admissions).hasSize(1);
        checker.isFollowing(A, B, NO_TOKEN);
        assertThat(admissions).as("one admission per follower in flight").hasSize(1);
        admissions.poll().run();
        assertThat(shards.reads).isEqualTo(1);
        assertThat(local.entries.get(A)).containsExactly(B);
        assertThat(checker.isFollowing(A, B, NO_TOKEN)).isTrue();
        assertThat(answers("local")).isEqualTo(1);
    }

    @Test
    void redisMiss_readsTheShard_fillsRedisAndTheLocalCache() {
        assertThat(checker.isFollowing(A, B, NO_TOKEN)).isTrue();
        assertThat(answers("shard")).isEqualTo(1);
        assertThat(redis.fills).containsExactly(A);
        assertThat(local.entries.get(A)).containsExactly(B);
        assertThat(local.ticketsBeforeReads).isTrue();
    }

    @Test
    void followerNotOwned_isNeverCachedInProcess() {
        assertThat(checker.isFollowing(NOT_OWNED, B, NO_TOKEN)).isTrue();
        redis.sets.put(NOT_OWNED, new long[] {B});
        assertThat(checker.isFollowing(NOT_OWNED, B, NO_TOKEN)).isTrue();
        assertThat(local.entries).doesNotContainKey(NOT_OWNED);
        assertThat(admissions).isEmpty();
    }

    @Test
    void validFollowToken_skipsBloomLocalAndRedis_andReadsTheShard() {
        local.entries.put(A, new long[0]); // stale: the follow of B has not arrived here
        redis.sets.put(A, new long[0]); // stale too: the write-through failed
        bloom.edges.remove(A + ":" + B);
        assertThat(checker.isFollowing(A, B, checker.writer(tokens.issue(A)))).isTrue();
        assertThat(bloom.consulted + local.reads + redis.reads).isZero();
        assertThat(answers("shard")).isEqualTo(1);
    }

    @Test
    void followTokenOfAnotherActor_isIgnored() {
        bloom.edges.remove(A + ":" + B);
        assertThat(checker.isFollowing(A, B, checker.writer(tokens.issue(B)))).isFalse();
        assertThat(answers("bloom")).isEqualTo(1);
    }

    /** The feed-lag guard: while events are behind, a stale "no" of the filter or the local cache is not used. */
    @Test
    void feedLagging_skipsBloomAndLocal_andAnswersFromRedisOrTheShard() {
        bloom.edges.remove(A + ":" + B); // the filter has not seen the new follow
        local.entries.put(A, new long[0]); // nor has the local cache
        feed.fresh = false;
        redis.sets.put(A, new long[] {B});
        assertThat(checker.isFollowing(A, B, NO_TOKEN)).isTrue();
        assertThat(answers("redis")).isEqualTo(1);
        redis.sets.clear();
        assertThat(checker.isFollowing(A, B, NO_TOKEN)).isTrue();
        assertThat(answers("shard")).isEqualTo(1);
        assertThat(bloom.consulted + local.reads).isZero();
        assertThat(local.entries.get(A)).as("no fill while lagging").isEmpty();
        assertThat(admissions).isEmpty();
        assertThat(registry.counter("graph.check.feed.lagged").count()).isEqualTo(2);
    }

    @Test
    void admissionQueuedWhileFresh_doesNotFillOnceTheFeedLags() {
        redis.sets.put(A, new long[] {B});
        checker.isFollowing(A, B, NO_TOKEN);
        feed.fresh = false;
        admissions.poll().run();
        assertThat(local.entries).doesNotContainKey(A);
    }

    @Test
    void admissionRejected_isRetriedOnTheNextMiss() {
        FollowChecker full = new FollowChecker(bloom, local, redis, shards, feed, id -> true, tokens,
                Duration.ofSeconds(5), r -> {
                    throw new java.util.concurrent.RejectedExecutionException("full");
                }, new SimpleMeterRegistry());
        redis.sets.put(A, new long[] {B});
        assertThat(full.isFollowing(A, B, NO_TOKEN)).isTrue();
        FollowChecker working = new FollowChecker(bloom, local, redis, shards, feed, id -> true, tokens,
                Duration.ofSeconds(5), Runnable::run, new SimpleMeterRegistry());
        assertThat(working.isFollowing(A, B, NO_TOKEN)).isTrue();
        assertThat(local.entries.get(A)).containsExactly(B);
    }

    @Test
    void falsePositive_isCountedOnlyWhenTheFilterWasConsultedAndSaidMaybe() {
        assertThat(checker.isFollowing(A, C, NO_TOKEN)).isFalse(); // filter said maybe, shard said no
        assertThat(falsePositives()).isEqualTo(1);
        assertThat(checker.isFollowing(A, B, NO_TOKEN)).isTrue();
        assertThat(falsePositives()).isEqualTo(1);
        feed.fresh = false;
        assertThat(checker.isFollowing(A, C, NO_TOKEN)).isFalse();
        assertThat(falsePositives()).as("filter skipped while lagging").isEqualTo(1);
    }

    @Test
    void batch_bloomRulesOutEveryId_answersWithoutOtherLayers() {
        assertThat(checker.areFollowing(A, new long[] {97, 98, 99}, NO_TOKEN)).containsExactly(false, false, false);
        assertThat(local.reads + redis.reads + shards.reads).isZero();
    }

    @Test
    void batch_layersInOrder() {
        long[] ids = {B, C, 99};
        assertThat(checker.areFollowing(A, ids, NO_TOKEN)).containsExactly(true, false, false);
        assertThat(answers("shard")).isEqualTo(1);
        assertThat(checker.areFollowing(A, ids, NO_TOKEN)).containsExactly(true, false, false);
        assertThat(answers("local")).isEqualTo(1);
        local.entries.clear();
        redis.sets.put(A, new long[] {B});
        assertThat(checker.areFollowing(A, ids, NO_TOKEN)).containsExactly(true, false, false);
        assertThat(answers("redis")).isEqualTo(1);
    }

    @Test
    void batch_withFollowTokenOrLaggingFeed_doesNotTrustInProcessLayers() {
        local.entries.put(A, new long[0]);
        bloom.edges.clear();
        assertThat(checker.areFollowing(A, new long[] {B}, checker.writer(tokens.issue(A)))).containsExactly(true);
        feed.fresh = false;
        assertThat(checker.areFollowing(A, new long[] {B}, NO_TOKEN)).containsExactly(true);
        assertThat(answers("shard")).isEqualTo(2);
    }

    /** The I/O-thread answer: bloom "no" and local hits only; everything else is left to the full check. */
    @Test
    void answerInProcess_answersFromBloomAndLocal_andTouchesNothingElse() {
        assertThat(answerInProcess(A, 99, NO_TOKEN)).isEqualTo(Answer.NO);
        assertThat(answerInProcess(A, B, NO_TOKEN)).as("local miss").isEqualTo(Answer.NEXT);
        local.entries.put(A, new long[] {B});
        assertThat(answerInProcess(A, B, NO_TOKEN)).isEqualTo(Answer.YES);
        assertThat(answerInProcess(A, C, NO_TOKEN)).isEqualTo(Answer.NO);
        assertThat(redis.reads + shards.reads).isZero();
        assertThat(admissions).isEmpty();
        assertThat(answers("bloom")).isEqualTo(1);
        assertThat(answers("local")).as("the UNKNOWN was not recorded").isEqualTo(2);
        assertThat(falsePositives()).isEqualTo(1); // A->C passed the filter
    }

    @Test
    void answerInProcess_withAFollowTokenOrALaggingFeed_isUnknown() {
        local.entries.put(A, new long[0]);
        bloom.edges.clear();
        assertThat(answerInProcess(A, B, checker.writer(tokens.issue(A)))).isEqualTo(Answer.NEXT);
        assertThat(answerInProcess(A, B, checker.writer("not-a-token"))).isEqualTo(Answer.NEXT);
        assertThat(areFollowingInProcess(A, new long[] {B}, checker.writer(tokens.issue(A)))).isNull();
        feed.fresh = false;
        assertThat(answerInProcess(A, B, NO_TOKEN)).isEqualTo(Answer.NEXT);
        assertThat(areFollowingInProcess(A, new long[] {B}, NO_TOKEN)).isNull();
        assertThat(bloom.consulted + local.reads + redis.reads + shards.reads).isZero();
        assertThat(registry.counter("graph.check.feed.lagged").count()).as("counted by the full check only").isZero();
    }

    @Test
    void areFollowingInProcess_answersFromBloomOrLocal_elseNull() {
        assertThat(areFollowingInProcess(A, new long[] {98, 99}, NO_TOKEN)).containsExactly(false, false);
        assertThat(areFollowingInProcess(A, new long[] {B, 99}, NO_TOKEN)).isNull();
        local.entries.put(A, new long[] {B});
        assertThat(areFollowingInProcess(A, new long[] {B, 99}, NO_TOKEN)).containsExactly(true, false);
        assertThat(redis.reads + shards.reads).isZero();
        assertThat(answers("bloom") + answers("local")).isEqualTo(2);
    }

    /** The single check's blocks: a follow they may hide is finished where blocking is allowed, and recorded there. */
    @Test
    void aFollowABlockMayHide_isLeftToTheBlockingCall_andRecordedOnceThere() {
        local.entries.put(A, new long[] {B});
        FollowChecker.Blocks blockedByB = new FollowChecker.Blocks() {
            @Override
            public boolean followMayBeBlocked(long followerId, long followeeId, long writer) {
                return followeeId == B;
            }

            @Override
            public boolean blocks(long blockerId, long blockedId) {
                return blockerId == B && blockedId == A;
            }
        };
        assertThat(checker.isFollowing(A, B, NO_TOKEN, false, blockedByB)).isEqualTo(Answer.NEXT);
        assertThat(answers("local")).as("nothing recorded by the call that did not answer").isZero();
        assertThat(checker.isFollowing(A, B, NO_TOKEN, true, blockedByB)).isEqualTo(Answer.NO);
        assertThat(answers("local")).as("the follow, found in memory, recorded once").isEqualTo(1);
        assertThat(checker.isFollowing(A, C, NO_TOKEN, false, blockedByB)).as("no follow: no block to read")
                .isEqualTo(Answer.NO);
        assertThat(checker.isFollowing(A, B, NO_TOKEN, true, FollowChecker.Blocks.NONE)).isEqualTo(Answer.YES);
        assertThat(redis.reads + shards.reads).isZero();
    }

    @Test
    void knownInProcess_isWhatMemoryAnswers_andRecordsNothing() {
        local.entries.put(A, new long[] {B});
        assertThat(checker.knownInProcess(A, B, NO_TOKEN)).isEqualTo(Answer.YES);
        assertThat(checker.knownInProcess(A, C, NO_TOKEN)).isEqualTo(Answer.NO);
        assertThat(checker.knownInProcess(A, 99, NO_TOKEN)).isEqualTo(Answer.NO);
        assertThat(checker.knownInProcess(NOT_OWNED, B, NO_TOKEN)).isEqualTo(Answer.NEXT);
        assertThat(answers("bloom") + answers("local")).isZero();
        assertThat(falsePositives()).isZero();
    }

    /** The pair's read on an I/O thread, of the follow as stored. */
    private int answerInProcess(long followerId, long followeeId, long writer) {
        return checker.isFollowing(followerId, followeeId, writer, false, FollowChecker.Blocks.NONE);
    }

    /** The batch's read on an I/O thread. */
    private boolean[] areFollowingInProcess(long followerId, long[] followeeIds, long writer) {
        return checker.areFollowing(followerId, followeeIds, writer, false);
    }

    private long answers(String layer) {
        return registry.get("graph.check.latency").tag("layer", layer).timer().count();
    }

    private double falsePositives() {
        return registry.counter("graph.check.bloom.false.positives").count();
    }

    @Test
    void whichFollow_asksMemoryFirst_andTheShardsOnceForTheRest() {
        long known = 40; // in the in-process cache, following B
        long ruledOut = 41; // the filter says no
        long stored = 42; // the filter says maybe: the shard says yes
        long falsePositive = 43; // the filter says maybe: the shard says no
        local.entries.put(known, new long[] {B});
        shards.rows.put(stored, new long[] {B});
        shards.rows.put(falsePositive, new long[] {C});
        bloom.edges.add(known + ":" + B);
        bloom.edges.add(stored + ":" + B);
        bloom.edges.add(falsePositive + ":" + B);
        long[] asked = {A, known, ruledOut, stored, falsePositive};

        assertThat(checker.whichFollow(asked, B, NO_TOKEN, true)).containsExactly(A, known, stored);
        assertThat(shards.whichFollowCalls).as("one shard read for all memory could not answer").hasSize(1);
        assertThat(shards.whichFollowCalls.get(0)).containsExactly(A, stored, falsePositive);

        shards.whichFollowCalls.clear();
        assertThat(checker.whichFollow(new long[] {known, ruledOut}, B, checker.writer(tokens.issue(known)), true))
                .as("the writer's own row is the shard's, which does not hold B").isEmpty();
        assertThat(shards.whichFollowCalls.get(0)).containsExactly(known);

        shards.whichFollowCalls.clear();
        feed.fresh = false;
        assertThat(checker.whichFollow(new long[] {known, stored}, B, NO_TOKEN, true))
                .as("a stale feed: memory is not asked").containsExactly(stored);
        assertThat(shards.whichFollowCalls.get(0)).containsExactly(known, stored);
    }

    @Test
    void whichFollow_onAnIoThread_answersOnlyWhenMemoryHoldsEveryOne() {
        long known = 40; // in the in-process cache, following B
        long ruledOut = 41; // the filter says no
        long stored = 42; // the filter says maybe, no cached row
        local.entries.put(known, new long[] {B});
        bloom.edges.add(known + ":" + B);
        bloom.edges.add(stored + ":" + B);

        assertThat(checker.whichFollow(new long[] {known, ruledOut}, B, NO_TOKEN, false)).containsExactly(known);
        assertThat(checker.whichFollow(new long[] {known, ruledOut, stored}, B, NO_TOKEN, false))
                .as("one follower memory cannot answer: the question goes to a blocking thread").isNull();
        assertThat(checker.whichFollow(new long[] {known}, B, checker.writer(tokens.issue(known)), false))
                .as("the token's writer's own row is the shard's").isNull();
        feed.fresh = false;
        assertThat(checker.whichFollow(new long[] {ruledOut}, B, NO_TOKEN, false)).as("a stale feed").isNull();
        assertThat(shards.whichFollowCalls).as("no shard read on an I/O thread").isEmpty();
    }

    static final class FakeBloom implements FollowChecker.Bloom {
        final Set<String> edges = new HashSet<>();
        boolean covered = true;
        int consulted;

        @Override
        public boolean covers(long followerId) {
            return covered;
        }

        @Override
        public boolean mightFollow(long followerId, long followeeId) {
            consulted++;
            return edges.contains(followerId + ":" + followeeId);
        }
    }

    static final class FakeLocal implements FollowChecker.Local {
        final Map<Long, long[]> entries = new HashMap<>();
        final Set<Long> ticketed = new HashSet<>();
        boolean ticketsBeforeReads = true;
        int reads;
        FakeShards shards;

        @Override
        public long[] following(long followerId) {
            reads++;
            return entries.get(followerId);
        }

        @Override
        public long ticket(long followerId) {
            ticketed.add(followerId);
            return 1;
        }

        @Override
        public FollowingRow row(long followerId) {
            reads++;
            long[] ids = entries.get(followerId);
            return ids == null ? null : new FollowingRow(followerId, ids, new long[ids.length], ids.length);
        }

        @Override
        public boolean put(FollowingRow row, long ticket) {
            ticketsBeforeReads &= ticketed.contains(row.followerId()) && ticket == 1;
            entries.put(row.followerId(), row.followingIds());
            return true;
        }
    }

    static final class FakeCache implements FollowChecker.Cache {
        final Map<Long, long[]> sets = new HashMap<>();
        final java.util.List<Long> fills = new java.util.ArrayList<>();
        int reads;

        @Override
        public int isFollowing(long followerId, long followeeId) {
            reads++;
            long[] set = sets.get(followerId);
            return set == null ? Answer.NEXT
                    : Answer.of(Arrays.stream(set).anyMatch(id -> id == followeeId));
        }

        @Override
        public boolean[] areFollowing(long followerId, long[] followeeIds) {
            reads++;
            long[] set = sets.get(followerId);
            if (set == null) {
                return null;
            }
            boolean[] out = new boolean[followeeIds.length];
            for (int i = 0; i < out.length; i++) {
                long id = followeeIds[i];
                out[i] = Arrays.stream(set).anyMatch(x -> x == id);
            }
            return out;
        }

        @Override
        public void fill(long followerId, long[] followingIds, long version) {
            fills.add(followerId);
        }
    }

    static final class FakeShards implements FollowChecker.Shards {
        final Map<Long, long[]> rows = new HashMap<>();
        final java.util.List<long[]> whichFollowCalls = new java.util.ArrayList<>();
        int reads;

        @Override
        public long[] whichFollow(long[] followerIds, long followeeId) {
            whichFollowCalls.add(followerIds.clone());
            return FollowChecker.Shards.super.whichFollow(followerIds, followeeId);
        }

        @Override
        public FollowingRow following(long followerId) {
            reads++;
            long[] ids = rows.getOrDefault(followerId, new long[0]);
            return new FollowingRow(followerId, ids, new long[ids.length], ids.length);
        }
    }

    static final class FakeFeed implements FollowChecker.Feed {
        boolean fresh = true;

        @Override
        public boolean isFresh() {
            return fresh;
        }
    }
}
