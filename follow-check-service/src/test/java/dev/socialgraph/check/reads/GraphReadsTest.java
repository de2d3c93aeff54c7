package dev.socialgraph.check.reads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.account.AccountState;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link GraphReads}' decisions with every layer a plain fake ({@link FakeGraph}): which answers memory gives, what
 * the blocking step reads, and the account and block rules on top of the follow check.
 */
class GraphReadsTest {

    static final long A = 10;
    static final long B = 20;

    final FakeGraph graph = new FakeGraph();
    final GraphReads reads = graph.reads;

    GraphReadsTest() {
        graph.follows(A, B); // A follows B
        graph.bloom.add(List.of(A, B));
    }

    /** The two steps as a server runs them: memory, then the blocking call when memory cannot tell. */
    boolean check(long follower, long followee, String token) {
        int known = reads.isFollowingInProcess(follower, followee, token);
        return GraphReads.isAnswer(known) ? known == GraphReads.FOLLOWING
                : reads.isFollowing(follower, followee, token, known);
    }

    @Test
    void isFollowingInProcess_bloomNo_isNotFollowing_andReadsNothing() {
        assertThat(reads.isFollowingInProcess(A, 99, null)).isEqualTo(GraphReads.NOT_FOLLOWING);
        assertThat(graph.shardReads.get() + graph.relationReads.get() + graph.stateReads.get()).isZero();
    }

    @Test
    void isFollowingInProcess_localHit_ofAPairTheFilterNeverSaw_isFollowing_andReadsNothing() {
        graph.local.put(A, new long[] {B});
        assertThat(reads.isFollowingInProcess(A, B, null)).isEqualTo(GraphReads.FOLLOWING);
        assertThat(graph.shardReads.get() + graph.relationReads.get()).isZero();
    }

    @Test
    void localMiss_isLeftToTheBlockingStep_whichReadsTheShard() {
        int known = reads.isFollowingInProcess(A, B, null);
        assertThat(GraphReads.isAnswer(known)).isFalse();
        assertThat(graph.shardReads).hasValue(0);

        assertThat(reads.isFollowing(A, B, null, known)).isTrue();
        assertThat(graph.shardReads).hasValue(1);
        assertThat(graph.relationReads).as("the filter has not seen the pair: no block read").hasValue(0);
    }

    @Test
    void laggingFeed_isLeftToTheBlockingStep_whichAsksRedisFirst() {
        graph.local.put(A, new long[0]); // stale: would say "no"
        graph.redis.put(A, new long[] {B});
        graph.fresh = false;
        int known = reads.isFollowingInProcess(A, B, null);
        assertThat(GraphReads.isAnswer(known)).isFalse();
        assertThat(reads.isFollowing(A, B, null, known)).isTrue();
        assertThat(graph.shardReads).as("Redis answered").hasValue(0);
    }

    /** A follow the followee's block forbids, not removed yet: the filter of hidden pairs says when to read the block. */
    @Test
    void followUnderTheFolloweesBlock_isNotShown_andOnlyAPairTheFilterSawReadsTheBlock() {
        graph.local.put(A, new long[] {B});
        graph.relates(Relation.BLOCK, B, A);
        assertThat(check(A, B, null)).as("the filter has not seen the block yet").isTrue();
        assertThat(graph.relationReads).hasValue(0);

        graph.filterSawBlock(B, A);
        int known = reads.isFollowingInProcess(A, B, null);
        assertThat(GraphReads.isAnswer(known)).isFalse();
        assertThat(reads.isFollowing(A, B, null, known)).isFalse();
        assertThat(graph.relationReads).hasValue(1);
        assertThat(graph.shardReads).as("the follow itself came from memory").hasValue(0);

        graph.relationRows.clear(); // a false positive of the filter: the read finds no block
        assertThat(check(A, B, null)).isTrue();
        graph.local.remove(A); // from the shard now
        graph.relates(Relation.BLOCK, B, A);
        assertThat(check(A, B, null)).isFalse();
    }

    /** While the filter is not trusted, a follow is not checked against blocks: a shard read per follow otherwise. */
    @Test
    void filterNotTrusted_readsNoBlock() {
        graph.local.put(A, new long[] {B});
        graph.relates(Relation.BLOCK, B, A);
        graph.filterSawBlock(B, A);
        graph.filterTrusted = false;
        assertThat(reads.isFollowingInProcess(A, B, null)).isEqualTo(GraphReads.FOLLOWING);
        graph.local.remove(A);
        assertThat(check(A, B, null)).isTrue();
        assertThat(graph.relationReads).hasValue(0);
    }

    /** The followee's token: it may have just blocked the follower, before the filter has the block. */
    @Test
    void aFollowTokenOfTheFollowee_readsItsBlock_readYourWrites() {
        graph.local.put(A, new long[] {B});
        graph.relates(Relation.BLOCK, B, A);
        assertThat(check(A, B, graph.tokens.issue(B))).isFalse();
        assertThat(check(A, B, graph.tokens.issue(A))).as("the follower's own token proves no block").isTrue();
    }

    @Test
    void aFollowTokenOfTheFollower_readsTheShard_despiteAStaleCache() {
        graph.local.put(A, new long[0]); // the follow has not reached the in-process cache
        graph.bloom.clear(); // nor the filter
        assertThat(check(A, B, null)).isFalse();
        assertThat(check(A, B, graph.tokens.issue(A))).isTrue();
        assertThat(graph.shardReads).hasValue(1);
    }

    @Test
    void inactiveUser_atEitherEnd_isNotFollowed_fromMemory() {
        graph.local.put(A, new long[] {B});
        graph.inactive.apply(B, AccountState.DEACTIVATED);
        assertThat(reads.isFollowingInProcess(A, B, null)).isEqualTo(GraphReads.NOT_FOLLOWING);
        graph.inactive.apply(B, AccountState.ACTIVE);
        graph.inactive.apply(A, AccountState.ERASED);
        assertThat(reads.isFollowingInProcess(A, B, null)).isEqualTo(GraphReads.NOT_FOLLOWING);
        assertThat(graph.shardReads.get() + graph.stateReads.get()).isZero();

        graph.inactive.apply(A, AccountState.ACTIVE); // reactivated: the edge is back as it was
        assertThat(reads.isFollowingInProcess(A, B, null)).isEqualTo(GraphReads.FOLLOWING);
    }

    /** An operator's deactivation answers with the user's token: that user's state row, not the view, decides. */
    @Test
    void aFollowTokenOfEitherUser_readsItsStateRow_beforeTheViewHasIt() {
        graph.local.put(A, new long[] {B});
        graph.states.put(B, AccountState.DEACTIVATED); // just written; the view's poll has not run
        String ofB = graph.tokens.issue(B);
        int known = reads.isFollowingInProcess(A, B, ofB);
        assertThat(GraphReads.isAnswer(known)).as("a state row is never read from memory").isFalse();
        assertThat(graph.stateReads).hasValue(0);
        assertThat(reads.isFollowing(A, B, ofB, known)).isFalse();
        assertThat(graph.stateReads).hasValue(1);
        assertThat(graph.shardReads).as("an inactive user's follow is not read").hasValue(0);

        assertThat(check(A, B, null)).as("the view's answer without the token").isTrue();
        graph.states.remove(B);
        assertThat(check(A, B, ofB)).isTrue();
    }

    @Test
    void shardDown_failsTheBlockingStep_only() {
        graph.down.add(A);
        int known = reads.isFollowingInProcess(A, B, null);
        assertThatThrownBy(() -> reads.isFollowing(A, B, null, known))
                .isInstanceOf(ShardUnavailableException.class);
        graph.local.put(A, new long[] {B});
        assertThat(reads.isFollowingInProcess(A, B, null)).as("memory still answers").isEqualTo(GraphReads.FOLLOWING);
    }

    @Test
    void isFollowing_ofAnAnswer_isThatAnswer_andOfAnotherValue_isRefused() {
        assertThat(reads.isFollowing(A, B, null, GraphReads.FOLLOWING)).isTrue();
        assertThat(reads.isFollowing(A, B, null, GraphReads.NOT_FOLLOWING)).isFalse();
        assertThat(graph.shardReads).hasValue(0);
        assertThatThrownBy(() -> reads.isFollowing(A, B, null, 7)).isInstanceOf(IllegalArgumentException.class);
    }
}
