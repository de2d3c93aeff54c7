package dev.socialgraph.check.reads;

import static dev.socialgraph.check.follow.FollowChecker.NO_TOKEN;
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
        graph.bloom.add(List.of(B, A)); // a false positive: B's direction passes the filter
    }

    /** The two steps as a server runs them: memory, then the blocking call when memory cannot tell. */
    boolean check(long follower, long followee, String token) {
        int known = reads.isFollowingInProcess(follower, followee, reads.writer(token));
        return GraphReads.isAnswer(known) ? known == GraphReads.FOLLOWING
                : reads.isFollowing(follower, followee, reads.writer(token), known);
    }

    @Test
    void isFollowingInProcess_bloomNo_isNotFollowing_andReadsNothing() {
        assertThat(reads.isFollowingInProcess(A, 99, NO_TOKEN)).isEqualTo(GraphReads.NOT_FOLLOWING);
        assertThat(graph.shardReads.get() + graph.relationReads.get() + graph.stateReads.get()).isZero();
    }

    @Test
    void isFollowingInProcess_localHit_ofAPairTheFilterNeverSaw_isFollowing_andReadsNothing() {
        graph.local.put(A, new long[] {B});
        assertThat(reads.isFollowingInProcess(A, B, NO_TOKEN)).isEqualTo(GraphReads.FOLLOWING);
        assertThat(graph.shardReads.get() + graph.relationReads.get()).isZero();
    }

    @Test
    void localMiss_isLeftToTheBlockingStep_whichReadsTheShard() {
        int known = reads.isFollowingInProcess(A, B, NO_TOKEN);
        assertThat(GraphReads.isAnswer(known)).isFalse();
        assertThat(graph.shardReads).hasValue(0);

        assertThat(reads.isFollowing(A, B, NO_TOKEN, known)).isTrue();
        assertThat(graph.shardReads).hasValue(1);
        assertThat(graph.relationReads).as("the filter has not seen the pair: no block read").hasValue(0);
    }

    @Test
    void laggingFeed_isLeftToTheBlockingStep_whichAsksRedisFirst() {
        graph.local.put(A, new long[0]); // stale: would say "no"
        graph.redis.put(A, new long[] {B});
        graph.fresh = false;
        int known = reads.isFollowingInProcess(A, B, NO_TOKEN);
        assertThat(GraphReads.isAnswer(known)).isFalse();
        assertThat(reads.isFollowing(A, B, NO_TOKEN, known)).isTrue();
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
        int known = reads.isFollowingInProcess(A, B, NO_TOKEN);
        assertThat(GraphReads.isAnswer(known)).isFalse();
        assertThat(reads.isFollowing(A, B, NO_TOKEN, known)).isFalse();
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
        assertThat(reads.isFollowingInProcess(A, B, NO_TOKEN)).isEqualTo(GraphReads.FOLLOWING);
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
        assertThat(reads.isFollowingInProcess(A, B, NO_TOKEN)).isEqualTo(GraphReads.NOT_FOLLOWING);
        graph.inactive.apply(B, AccountState.ACTIVE);
        graph.inactive.apply(A, AccountState.ERASED);
        assertThat(reads.isFollowingInProcess(A, B, NO_TOKEN)).isEqualTo(GraphReads.NOT_FOLLOWING);
        assertThat(graph.shardReads.get() + graph.stateReads.get()).isZero();

        graph.inactive.apply(A, AccountState.ACTIVE); // reactivated: the edge is back as it was
        assertThat(reads.isFollowingInProcess(A, B, NO_TOKEN)).isEqualTo(GraphReads.FOLLOWING);
    }

    /** An operator's deactivation answers with the user's token: that user's state row, not the view, decides. */
    @Test
    void aFollowTokenOfEitherUser_readsItsStateRow_beforeTheViewHasIt() {
        graph.local.put(A, new long[] {B});
        graph.states.put(B, AccountState.DEACTIVATED); // just written; the view's poll has not run
        String ofB = graph.tokens.issue(B);
        int known = reads.isFollowingInProcess(A, B, reads.writer(ofB));
        assertThat(GraphReads.isAnswer(known)).as("a state row is never read from memory").isFalse();
        assertThat(graph.stateReads).hasValue(0);
        assertThat(reads.isFollowing(A, B, reads.writer(ofB), known)).isFalse();
        assertThat(graph.stateReads).hasValue(1);
        assertThat(graph.shardReads).as("an inactive user's follow is not read").hasValue(0);

        assertThat(check(A, B, null)).as("the view's answer without the token").isTrue();
        graph.states.remove(B);
        assertThat(check(A, B, ofB)).isTrue();
    }

    @Test
    void shardDown_failsTheBlockingStep_only() {
        graph.down.add(A);
        int known = reads.isFollowingInProcess(A, B, NO_TOKEN);
        assertThatThrownBy(() -> reads.isFollowing(A, B, NO_TOKEN, known))
                .isInstanceOf(ShardUnavailableException.class);
        graph.local.put(A, new long[] {B});
        assertThat(reads.isFollowingInProcess(A, B, NO_TOKEN)).as("memory still answers").isEqualTo(GraphReads.FOLLOWING);
    }

    @Test
    void isFollowing_ofAnAnswer_isThatAnswer_andOfAnotherValue_isRefused() {
        assertThat(reads.isFollowing(A, B, NO_TOKEN, GraphReads.FOLLOWING)).isTrue();
        assertThat(reads.isFollowing(A, B, NO_TOKEN, GraphReads.NOT_FOLLOWING)).isFalse();
        assertThat(graph.shardReads).hasValue(0);
        assertThatThrownBy(() -> reads.isFollowing(A, B, NO_TOKEN, 7)).isInstanceOf(IllegalArgumentException.class);
    }

    // ---------------------------------------------------------------- batch check

    @Test
    void areFollowingInProcess_answersFromTheCache_withAnInactiveFolloweeNotFollowed() {
        graph.local.put(A, new long[] {B, 30});
        graph.inactive.apply(30, AccountState.DEACTIVATED);
        assertThat(reads.areFollowingInProcess(A, new long[] {B, 30, 99}, NO_TOKEN)).containsExactly(true, false, false);
        assertThat(graph.shardReads).hasValue(0);
    }

    @Test
    void areFollowing_ofAnInactiveFollower_isNoneFollowed_andLeftToTheBlockingStep() {
        graph.local.put(A, new long[] {B});
        graph.inactive.apply(A, AccountState.DEACTIVATED);
        assertThat(reads.areFollowingInProcess(A, new long[] {B}, NO_TOKEN)).isNull();
        assertThat(reads.areFollowing(A, new long[] {B}, NO_TOKEN)).containsExactly(false);
        assertThat(graph.shardReads).hasValue(0);
    }

    @Test
    void areFollowing_whenMemoryCannotTell_readsTheShard_andAFollowersTokenItsStateRow() {
        assertThat(reads.areFollowingInProcess(A, new long[] {B}, NO_TOKEN)).as("local miss").isNull();
        assertThat(reads.areFollowing(A, new long[] {B}, NO_TOKEN)).containsExactly(true);
        graph.states.put(A, AccountState.ERASED); // just written; the view's poll has not run
        assertThat(reads.areFollowingInProcess(A, new long[] {B}, reads.writer(graph.tokens.issue(A)))).isNull();
        assertThat(reads.areFollowing(A, new long[] {B}, reads.writer(graph.tokens.issue(A)))).containsExactly(false);
        assertThat(graph.stateReads).hasValue(1);
    }

    // ---------------------------------------------------------------- relationship

    GraphReads.Relationship relationship(long a, long b, String token, long viewer) {
        GraphReads.RelationshipRead read = reads.relationshipInProcess(a, b, reads.writer(token), viewer);
        return reads.relationship(read);
    }

    static GraphReads.Relationship seen(boolean following, boolean followedBy, Boolean blocking, Boolean blockedBy,
                                        Boolean muting) {
        return new GraphReads.Relationship(following, followedBy, blocking, blockedBy, muting);
    }

    @Test
    void relationship_bothDirectionsInMemory_andTheFilterRulingOutEveryRelation_isAnsweredFromMemory() {
        graph.local.put(A, new long[] {B});
        graph.local.put(B, new long[0]);
        assertThat(reads.relationshipInProcess(A, B, NO_TOKEN, GraphReads.ANY_VIEWER))
                .isEqualTo(seen(true, false, false, false, false));
        assertThat(graph.shardReads.get() + graph.relationReads.get()).isZero();
    }

    @Test
    void relationship_finishesOnlyWhatMemoryCouldNotAnswer() {
        graph.local.put(A, new long[] {B}); // B's direction needs the shard
        GraphReads.RelationshipRead read = reads.relationshipInProcess(A, B, NO_TOKEN, GraphReads.ANY_VIEWER);
        assertThat(read).isInstanceOf(GraphReads.UnansweredRelationship.class);
        assertThat(reads.relationship(read)).isEqualTo(seen(true, false, false, false, false));
        assertThat(graph.shardReads).as("only B's row").hasValue(1);
        assertThat(graph.relationReads).as("the filter ruled out every relation").hasValue(0);
    }

    @Test
    void relationship_underABlock_showsNoFollow_andTheRelationsOnlyToWhomTheyConcern() {
        graph.local.put(A, new long[0]);
        graph.local.put(B, new long[] {A}); // B's follow of A, which A's block has not removed yet
        graph.relates(Relation.BLOCK, A, B);
        graph.relates(Relation.MUTE, A, B);
        graph.filterSawBlock(A, B);
        assertThat(relationship(A, B, null, GraphReads.ANY_VIEWER)).isEqualTo(seen(false, false, true, false, true));
        assertThat(relationship(A, B, null, A)).isEqualTo(seen(false, false, true, false, true));
        assertThat(relationship(A, B, null, B)).as("the mute is A's own").isEqualTo(seen(false, false, true, false, null));
        int before = graph.relationReads.get();
        assertThat(reads.relationshipInProcess(A, B, NO_TOKEN, 99))
                .as("a third party: no relation is read, so the follow the block forbids is still shown to it")
                .isEqualTo(seen(false, true, null, null, null));
        assertThat(graph.relationReads).hasValue(before);
    }

    @Test
    void relationship_withAnInactiveUser_isNothing_fromMemory() {
        graph.local.put(A, new long[] {B});
        graph.inactive.apply(B, AccountState.DEACTIVATED);
        assertThat(reads.relationshipInProcess(A, B, NO_TOKEN, GraphReads.ANY_VIEWER))
                .isEqualTo(seen(false, false, false, false, false));
        assertThat(graph.shardReads.get() + graph.relationReads.get()).isZero();
    }

    /** A token of either user: its state row, then both directions and the relations from the rows. */
    @Test
    void relationship_withAFollowTokenOfEitherUser_readsTheirRows_readYourWrites() {
        graph.local.put(A, new long[] {B});
        graph.local.put(B, new long[0]);
        graph.relates(Relation.BLOCK, B, A); // just written: not in the filter yet
        String ofB = graph.tokens.issue(B);
        assertThat(reads.relationshipInProcess(A, B, reads.writer(ofB), GraphReads.ANY_VIEWER))
                .isInstanceOf(GraphReads.UnansweredRelationship.class);
        assertThat(relationship(A, B, ofB, GraphReads.ANY_VIEWER)).isEqualTo(seen(false, false, false, true, false));
        assertThat(graph.stateReads).hasValue(1);

        graph.states.put(B, AccountState.DEACTIVATED);
        int relationReads = graph.relationReads.get();
        assertThat(relationship(A, B, ofB, GraphReads.ANY_VIEWER)).isEqualTo(seen(false, false, false, false, false));
        assertThat(graph.relationReads).as("an inactive user's relations are not read").hasValue(relationReads);
        assertThat(relationship(A, B, null, GraphReads.ANY_VIEWER)).as("the view's answer without the token")
                .isEqualTo(seen(true, false, false, false, false));
    }

    @Test
    void relationship_withOneself_readsNoRelation() {
        graph.filterTrusted = false;
        graph.local.put(A, new long[] {B});
        assertThat(reads.relationshipInProcess(A, A, NO_TOKEN, GraphReads.ANY_VIEWER))
                .isEqualTo(seen(false, false, false, false, false));
        assertThat(graph.relationReads).hasValue(0);
    }

    // ---------------------------------------------------------------- hidden authors

    @Test
    void mayBeHidden_isNobody_whenTheFilterRulesEveryAuthorOut_andHiddenThenReadsNothing() {
        graph.hiddenPairs.add(List.of(99L, 98L)); // another viewer's pair
        long[] candidates = reads.mayBeHidden(A, new long[] {B, 30, 40}, NO_TOKEN);
        assertThat(candidates).isEmpty();
        RelationReadsView hidden = RelationReadsView.of(reads.hidden(A, candidates, System.nanoTime()));
        assertThat(hidden).isEqualTo(new RelationReadsView(List.of(), List.of(), List.of()));
        assertThat(graph.relationReads).hasValue(0);
    }

    @Test
    void mayBeHidden_leavesOutInactiveAuthors_andAnInactiveViewerHidesNobody() {
        graph.filterTrusted = false; // every author is a candidate
        graph.inactive.apply(30, AccountState.ERASED);
        assertThat(reads.mayBeHidden(A, new long[] {B, 30, 40}, NO_TOKEN)).containsExactly(B, 40);
        graph.inactive.apply(A, AccountState.DEACTIVATED);
        assertThat(reads.mayBeHidden(A, new long[] {B, 30, 40}, NO_TOKEN)).isEmpty();
    }

    /** A block or mute just written may not be in the filter yet: the viewer's follow token skips the filter. */
    @Test
    void mayBeHidden_withTheViewersToken_asksAboutEveryAuthor_andHiddenReadsTheRows() {
        graph.relates(Relation.BLOCK, B, A);
        graph.relates(Relation.MUTE, B, 30);
        graph.relates(Relation.BLOCK, 40, B);
        assertThat(reads.mayBeHidden(B, new long[] {A, 30, 40}, NO_TOKEN)).isEmpty();
        long[] candidates = reads.mayBeHidden(B, new long[] {A, 30, 40}, reads.writer(graph.tokens.issue(B)));
        assertThat(candidates).containsExactly(A, 30, 40);
        assertThat(RelationReadsView.of(reads.hidden(B, candidates, System.nanoTime())))
                .isEqualTo(new RelationReadsView(List.of(A), List.of(40L), List.of(30L)));
    }

    /** {@link dev.socialgraph.check.relations.RelationReads.Hidden} with comparable lists. */
    record RelationReadsView(List<Long> blocking, List<Long> blockedBy, List<Long> muting) {
        static RelationReadsView of(dev.socialgraph.check.relations.RelationReads.Hidden hidden) {
            return new RelationReadsView(java.util.Arrays.stream(hidden.blocking()).boxed().toList(),
                    java.util.Arrays.stream(hidden.blockedBy()).boxed().toList(),
                    java.util.Arrays.stream(hidden.muting()).boxed().toList());
        }
    }

    // ---------------------------------------------------------------- lists, counts, suggestions

    static List<Long> ids(GraphReads.VisiblePage page) {
        return java.util.Arrays.stream(page.ids()).boxed().toList();
    }

    @Test
    void listsCountsAndSuggestions_ofAnInactiveUser_areEmpty_andReadNothing() {
        graph.follows(B, A);
        graph.relates(Relation.BLOCK, A, 30);
        graph.inactive.apply(A, AccountState.DEACTIVATED);
        assertThat(reads.following(A, null, 10)).isEqualTo(GraphReads.VisiblePage.EMPTY);
        assertThat(reads.followers(A, null, 10)).isEqualTo(GraphReads.VisiblePage.EMPTY);
        assertThat(reads.relationList(Relation.BLOCK, A, null, 10)).isEqualTo(GraphReads.VisiblePage.EMPTY);
        assertThat(reads.commonFollowing(A, B, 0, 10)).isEqualTo(GraphReads.VisiblePage.EMPTY);
        assertThat(reads.commonFollowing(B, A, 0, 10)).as("either user").isEqualTo(GraphReads.VisiblePage.EMPTY);
        assertThat(reads.counts(A)).isEqualTo(dev.socialgraph.check.lists.FollowLists.Counts.NONE);
        assertThat(reads.suggestions(A, 10)).as("the suggestions are not even computed").isEmpty();
        assertThat(graph.shardReads.get() + graph.relationReads.get()).isZero();
    }

    /** An inactive user is left out after the page is cut: the cursor still moves on from the page's last item. */
    @Test
    void following_leavesOutInactiveUsers_andContinuesAfterThePagesLastPosition() {
        graph.follows(A, 101, 102, 103, 104); // all at time 0: newest first is id descending
        graph.inactive.apply(103, AccountState.ERASED);
        GraphReads.VisiblePage first = reads.following(A, null, 2);
        assertThat(ids(first)).containsExactly(104L);
        assertThat(first.next()).isEqualTo(new dev.socialgraph.common.cursor.CursorPosition(0, 103));
        GraphReads.VisiblePage second = reads.following(A, first.next(), 2);
        assertThat(ids(second)).containsExactly(102L, 101L);
        assertThat(second.next()).isNull();
    }

    /** A follower the owner blocks, whose follow the block's event has not removed yet, is not shown to the owner. */
    @Test
    void followers_leaveOutTheOnesTheOwnerBlocks_readingTheBlockRowOnlyWhenTheFilterMayHideOne() {
        graph.follows(30, B);
        graph.follows(40, B);
        graph.relates(Relation.BLOCK, B, 30);
        assertThat(ids(reads.followers(B, null, 10))).as("the filter has not seen the block")
                .containsExactly(40L, 30L, A);
        assertThat(graph.relationReads).hasValue(0);

        graph.filterSawBlock(B, 30);
        graph.inactive.apply(40, AccountState.DEACTIVATED);
        assertThat(ids(reads.followers(B, null, 10))).containsExactly(A);
        assertThat(graph.relationReads).hasValue(1);
        assertThat(ids(reads.following(30, null, 10))).as("the blocked user's own list is as stored")
                .containsExactly(B);
    }

    @Test
    void commonFollowing_leavesOutInactiveUsers_andContinuesAfterThePageAsCut() {
        graph.follows(A, B, 50, 60);
        graph.follows(30, B, 50, 60);
        graph.inactive.apply(50, AccountState.DEACTIVATED);
        GraphReads.VisiblePage first = reads.commonFollowing(A, 30, 0, 2);
        assertThat(ids(first)).containsExactly(B);
        assertThat(first.next()).isEqualTo(new dev.socialgraph.common.cursor.CursorPosition(0, 50));
        assertThat(ids(reads.commonFollowing(A, 30, first.next().userId(), 2))).containsExactly(60L);
    }

    @Test
    void relationList_leavesOutInactiveTargets_andCounts_areTheStoredOnes() {
        graph.relates(Relation.MUTE, A, B, 30);
        graph.inactive.apply(30, AccountState.DEACTIVATED);
        assertThat(ids(reads.relationList(Relation.MUTE, A, null, 10))).containsExactly(B);
        graph.follows(30, A);
        assertThat(reads.counts(A)).as("a count is corrected by its job, not here")
                .isEqualTo(new dev.socialgraph.check.lists.FollowLists.Counts(1, 1));
    }
}
