package dev.socialgraph.check.reads;

import dev.socialgraph.check.follow.Answer;
import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.account.AccountState;
import java.util.List;
import org.junit.jupiter.api.Test;

import static dev.socialgraph.check.follow.FollowChecker.NO_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link GraphReads}' decisions with every layer a plain fake ({@link FakeGraph}): which answers memory gives, what
 * the same read reads where blocking is allowed, and the account and block rules on top of the follow check.
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

    /** The check as a server runs it: the token verified once, memory, then the same read where it may block. */
    boolean check(long follower, long followee, String token) {
        long writer = reads.writer(token);
        int answer = reads.isFollowing(follower, followee, writer, false);
        return Answer.isAnswer(answer) ? answer == Answer.YES : blocking(follower, followee, writer);
    }

    /** The check where blocking is allowed, as the server's blocking thread asks it. */
    boolean blocking(long follower, long followee, long writer) {
        return reads.isFollowing(follower, followee, writer, true) == Answer.YES;
    }

    @Test
    void isFollowing_inProcess_bloomNo_isNotFollowing_andReadsNothing() {
        assertThat(reads.isFollowing(A, 99, NO_TOKEN, false)).isEqualTo(Answer.NO);
        assertThat(graph.shardReads.get() + graph.relationReads.get() + graph.stateReads.get()).isZero();
    }

    @Test
    void isFollowing_inProcess_localHit_ofAPairTheFilterNeverSaw_isFollowing_andReadsNothing() {
        graph.local.put(A, new long[] {B});
        assertThat(reads.isFollowing(A, B, NO_TOKEN, false)).isEqualTo(Answer.YES);
        assertThat(graph.shardReads.get() + graph.relationReads.get()).isZero();
    }

    @Test
    void localMiss_isLeftToTheBlockingStep_whichReadsTheShard() {
        int known = reads.isFollowing(A, B, NO_TOKEN, false);
        assertThat(Answer.isAnswer(known)).isFalse();
        assertThat(graph.shardReads).hasValue(0);

        assertThat(blocking(A, B, NO_TOKEN)).isTrue();
        assertThat(graph.shardReads).hasValue(1);
        assertThat(graph.relationReads).as("the filter has not seen the pair: no block read").hasValue(0);
    }

    @Test
    void laggingFeed_isLeftToTheBlockingStep_whichAsksRedisFirst() {
        graph.local.put(A, new long[0]); // stale: would say "no"
        graph.redis.put(A, new long[] {B});
        graph.fresh = false;
        int known = reads.isFollowing(A, B, NO_TOKEN, false);
        assertThat(Answer.isAnswer(known)).isFalse();
        assertThat(blocking(A, B, NO_TOKEN)).isTrue();
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
        int known = reads.isFollowing(A, B, NO_TOKEN, false);
        assertThat(Answer.isAnswer(known)).isFalse();
        assertThat(blocking(A, B, NO_TOKEN)).isFalse();
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
        assertThat(reads.isFollowing(A, B, NO_TOKEN, false)).isEqualTo(Answer.YES);
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
        assertThat(reads.isFollowing(A, B, NO_TOKEN, false)).isEqualTo(Answer.NO);
        graph.inactive.apply(B, AccountState.ACTIVE);
        graph.inactive.apply(A, AccountState.ERASED);
        assertThat(reads.isFollowing(A, B, NO_TOKEN, false)).isEqualTo(Answer.NO);
        assertThat(graph.shardReads.get() + graph.stateReads.get()).isZero();

        graph.inactive.apply(A, AccountState.ACTIVE); // reactivated: the edge is back as it was
        assertThat(reads.isFollowing(A, B, NO_TOKEN, false)).isEqualTo(Answer.YES);
    }

    /** An operator's deactivation answers with the user's token: that user's state row, not the view, decides. */
    @Test
    void aFollowTokenOfEitherUser_readsItsStateRow_beforeTheViewHasIt() {
        graph.local.put(A, new long[] {B});
        graph.states.put(B, AccountState.DEACTIVATED); // just written; the view's poll has not run
        String ofB = graph.tokens.issue(B);
        int known = reads.isFollowing(A, B, reads.writer(ofB), false);
        assertThat(Answer.isAnswer(known)).as("a state row is never read from memory").isFalse();
        assertThat(graph.stateReads).hasValue(0);
        assertThat(blocking(A, B, reads.writer(ofB))).isFalse();
        assertThat(graph.stateReads).hasValue(1);
        assertThat(graph.shardReads).as("an inactive user's follow is not read").hasValue(0);

        assertThat(check(A, B, null)).as("the view's answer without the token").isTrue();
        graph.states.remove(B);
        assertThat(check(A, B, ofB)).isTrue();
    }

    @Test
    void shardDown_failsTheBlockingStep_only() {
        graph.down.add(A);
        assertThat(reads.isFollowing(A, B, NO_TOKEN, false)).as("memory cannot tell").isEqualTo(Answer.NEXT);
        assertThatThrownBy(() -> blocking(A, B, NO_TOKEN))
                .isInstanceOf(ShardUnavailableException.class);
        graph.local.put(A, new long[] {B});
        assertThat(reads.isFollowing(A, B, NO_TOKEN, false)).as("memory still answers").isEqualTo(Answer.YES);
    }

    /** One read in both places: where memory answers, the blocking call gives the same answer and reads nothing. */
    @Test
    void isFollowing_whereMemoryAnswers_isTheSameAnswerWhereBlockingIsAllowed_andReadsNothing() {
        graph.local.put(A, new long[] {B});
        assertThat(reads.isFollowing(A, B, NO_TOKEN, false)).isEqualTo(Answer.YES);
        assertThat(reads.isFollowing(A, B, NO_TOKEN, true)).isEqualTo(Answer.YES);
        assertThat(reads.isFollowing(A, 99, NO_TOKEN, false)).isEqualTo(Answer.NO);
        assertThat(reads.isFollowing(A, 99, NO_TOKEN, true)).isEqualTo(Answer.NO);
        assertThat(graph.shardReads.get() + graph.relationReads.get() + graph.stateReads.get()).isZero();
    }

    /** A check memory could not finish is recorded once, by the call that answers: the follow was in memory. */
    @Test
    void followUnderAPossibleBlock_isRecordedOnce_byTheCallThatAnswers() {
        graph.local.put(A, new long[] {B});
        graph.relates(Relation.BLOCK, B, A);
        graph.filterSawBlock(B, A);
        assertThat(check(A, B, null)).isFalse();
        assertThat(answers("local")).isEqualTo(1);
    }

    // ---------------------------------------------------------------- batch check

    @Test
    void areFollowing_inProcess_answersFromTheCache_withAnInactiveFolloweeNotFollowed() {
        graph.local.put(A, new long[] {B, 30});
        graph.inactive.apply(30, AccountState.DEACTIVATED);
        assertThat(reads.areFollowing(A, new long[] {B, 30, 99}, NO_TOKEN, false)).containsExactly(true, false, false);
        assertThat(graph.shardReads).hasValue(0);
    }

    @Test
    void areFollowing_ofAnInactiveFollower_isNoneFollowed_andLeftToTheBlockingStep() {
        graph.local.put(A, new long[] {B});
        graph.inactive.apply(A, AccountState.DEACTIVATED);
        assertThat(reads.areFollowing(A, new long[] {B}, NO_TOKEN, false)).isNull();
        assertThat(reads.areFollowing(A, new long[] {B}, NO_TOKEN, true)).containsExactly(false);
        assertThat(graph.shardReads).hasValue(0);
    }

    @Test
    void areFollowing_whenMemoryCannotTell_readsTheShard_andAFollowersTokenItsStateRow() {
        assertThat(reads.areFollowing(A, new long[] {B}, NO_TOKEN, false)).as("local miss").isNull();
        assertThat(reads.areFollowing(A, new long[] {B}, NO_TOKEN, true)).containsExactly(true);
        graph.states.put(A, AccountState.ERASED); // just written; the view's poll has not run
        assertThat(reads.areFollowing(A, new long[] {B}, reads.writer(graph.tokens.issue(A)), false)).isNull();
        assertThat(reads.areFollowing(A, new long[] {B}, reads.writer(graph.tokens.issue(A)), true))
                .containsExactly(false);
        assertThat(graph.stateReads).hasValue(1);
    }

    // ---------------------------------------------------------------- relationship

    /** The relationship as a server asks it: memory, then the same read where it may block. */
    GraphReads.Relationship relationship(long a, long b, String token, long viewer) {
        long writer = reads.writer(token);
        GraphReads.Relationship read = reads.relationship(a, b, writer, viewer, false);
        return read != null ? read : reads.relationship(a, b, writer, viewer, true);
    }

    static GraphReads.Relationship seen(boolean following, boolean followedBy, Boolean blocking, Boolean blockedBy,
                                        Boolean muting) {
        // No account here is protected: no follow is hidden, and no request is pending where the two may see one.
        Boolean noRequest = blocking == null ? null : false;
        return new GraphReads.Relationship(following, followedBy, blocking, blockedBy, muting, false, noRequest,
                noRequest);
    }

    @Test
    void relationship_bothDirectionsInMemory_andTheFilterRulingOutEveryRelation_isAnsweredFromMemory() {
        graph.local.put(A, new long[] {B});
        graph.local.put(B, new long[0]);
        assertThat(reads.relationship(A, B, NO_TOKEN, GraphReads.ANY_VIEWER, false))
                .isEqualTo(seen(true, false, false, false, false));
        assertThat(graph.shardReads.get() + graph.relationReads.get()).isZero();
    }

    @Test
    void relationship_finishesOnlyWhatMemoryCouldNotAnswer() {
        graph.local.put(A, new long[] {B}); // B's direction needs the shard
        GraphReads.Relationship read = reads.relationship(A, B, NO_TOKEN, GraphReads.ANY_VIEWER, false);
        assertThat(read).as("not answered in memory").isNull();
        assertThat(reads.relationship(A, B, NO_TOKEN, GraphReads.ANY_VIEWER, true))
                .isEqualTo(seen(true, false, false, false, false));
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
        assertThat(reads.relationship(A, B, NO_TOKEN, 99, false))
                .as("a third party: no relation is read, so the follow the block forbids is still shown to it")
                .isEqualTo(seen(false, true, null, null, null));
        assertThat(graph.relationReads).hasValue(before);
    }

    // ---------------------------------------------------------------- protected accounts

    static final long C = 30;

    @Test
    void maySeeFollows_ofAPublicAccount_isAnyonesAnswer_readingNothing() {
        assertThat(reads.maySeeFollows(C, A, NO_TOKEN, false)).isEqualTo(Answer.YES);
        assertThat(graph.shardReads.get() + graph.relationReads.get() + graph.stateReads.get()).isZero();
    }

    @Test
    void maySeeFollows_ofAProtectedAccount_isTheAccountsItsFollowersAndABackends() {
        graph.inactive.apply(B, AccountState.ACTIVE, true); // B is protected; A follows B
        graph.local.put(A, new long[] {B});
        graph.local.put(C, new long[0]);
        assertThat(reads.maySeeFollows(B, B, NO_TOKEN, false)).as("the account").isEqualTo(Answer.YES);
        assertThat(reads.maySeeFollows(GraphReads.ANY_VIEWER, B, NO_TOKEN, false)).as("a backend")
                .isEqualTo(Answer.YES);
        assertThat(reads.maySeeFollows(A, B, NO_TOKEN, false)).as("a follower").isEqualTo(Answer.YES);
        assertThat(reads.maySeeFollows(C, B, NO_TOKEN, false)).as("anyone else").isEqualTo(Answer.NO);

        graph.inactive.apply(B, AccountState.ACTIVE, false); // public again
        assertThat(reads.maySeeFollows(C, B, NO_TOKEN, false)).isEqualTo(Answer.YES);
    }

    @Test
    void maySeeFollows_whenTheViewersFollowIsNotInMemory_isLeftToTheBlockingStep() {
        graph.inactive.apply(B, AccountState.ACTIVE, true);
        assertThat(reads.maySeeFollows(A, B, NO_TOKEN, false)).isEqualTo(Answer.NEXT);
        assertThat(reads.maySeeFollows(A, B, NO_TOKEN, true)).as("A follows B, by its shard row")
                .isEqualTo(Answer.YES);
    }

    @Test
    void relationship_hidesAProtectedAccountsFollows_fromOthers_andShowsItsRequestsToTheTwo() {
        graph.inactive.apply(A, AccountState.ACTIVE, true); // A, who follows B, is protected
        graph.local.put(A, new long[] {B});
        graph.local.put(B, new long[0]);
        graph.local.put(C, new long[0]);
        graph.relates(Relation.REQUEST, B, A); // B asked to follow A

        GraphReads.Relationship third = relationship(A, B, null, C);
        assertThat(third.following()).as("A's follow, to someone A did not accept").isNull();
        assertThat(third.followedBy()).as("B's follows are public").isFalse();
        assertThat(third.requested()).isNull();
        assertThat(third.requestedBy()).as("requests are the two users' own").isNull();
        assertThat(third.protectedAccount()).as("of B").isFalse();

        GraphReads.Relationship own = relationship(A, B, null, A);
        assertThat(own.following()).isTrue();
        assertThat(own.requestedBy()).as("B's pending request, to A").isTrue();
        assertThat(own.requested()).isFalse();
        GraphReads.Relationship asked = relationship(B, A, null, B);
        assertThat(asked.protectedAccount()).as("A, seen from B").isTrue();
        assertThat(asked.requested()).as("B's own request").isTrue();
        assertThat(asked.followedBy()).as("A's follows, hidden from B, who is not A's follower").isNull();
        assertThat(relationship(A, B, null, GraphReads.ANY_VIEWER).following()).as("a backend").isTrue();
    }

    @Test
    void relationship_withAnInactiveUser_isNothing_fromMemory() {
        graph.local.put(A, new long[] {B});
        graph.inactive.apply(B, AccountState.DEACTIVATED);
        assertThat(reads.relationship(A, B, NO_TOKEN, GraphReads.ANY_VIEWER, false))
                .isEqualTo(seen(false, false, false, false, false));
        assertThat(graph.shardReads.get() + graph.relationReads.get()).isZero();
    }

    /** Each direction is recorded once, by the call that answers the relationship: never by one that did not. */
    @Test
    void relationship_recordsEachDirectionOnce() {
        graph.local.put(A, new long[] {B}); // B's direction needs the shard
        assertThat(relationship(A, B, null, GraphReads.ANY_VIEWER)).isEqualTo(seen(true, false, false, false, false));
        assertThat(answers("local")).as("A's direction").isEqualTo(1);
        assertThat(answers("shard")).as("B's direction").isEqualTo(1);

        graph.local.put(B, new long[0]); // both in memory now
        assertThat(reads.relationship(A, B, NO_TOKEN, GraphReads.ANY_VIEWER, false))
                .isEqualTo(seen(true, false, false, false, false));
        assertThat(answers("local")).isEqualTo(3);
        assertThat(answers("shard")).isEqualTo(1);
    }

    /** A token of either user: its state row, then both directions and the relations from the rows. */
    @Test
    void relationship_withAFollowTokenOfEitherUser_readsTheirRows_readYourWrites() {
        graph.local.put(A, new long[] {B});
        graph.local.put(B, new long[0]);
        graph.relates(Relation.BLOCK, B, A); // just written: not in the filter yet
        String ofB = graph.tokens.issue(B);
        assertThat(reads.relationship(A, B, reads.writer(ofB), GraphReads.ANY_VIEWER, false))
                .as("not answered in memory").isNull();
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
        assertThat(reads.relationship(A, A, NO_TOKEN, GraphReads.ANY_VIEWER, false))
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

    /** Checks answered by {@code layer}, as {@code graph.check.latency} counts them. */
    long answers(String layer) {
        return graph.registry.get("graph.check.latency").tag("layer", layer).timer().count();
    }

    static List<Long> ids(GraphReads.VisiblePage page) {
        return java.util.Arrays.stream(page.ids()).boxed().toList();
    }

    @Test
    void listsCountsAndSuggestions_ofAnInactiveUser_areEmpty_andReadNothing() {
        graph.follows(B, A);
        graph.relates(Relation.BLOCK, A, 30);
        graph.inactive.apply(A, AccountState.DEACTIVATED);
        assertThat(reads.following(A, null, 10, FollowChecker.NO_TOKEN)).isEqualTo(GraphReads.VisiblePage.EMPTY);
        assertThat(reads.followers(A, null, 10, FollowChecker.NO_TOKEN)).isEqualTo(GraphReads.VisiblePage.EMPTY);
        assertThat(reads.relationList(Relation.BLOCK, A, null, 10)).isEqualTo(GraphReads.VisiblePage.EMPTY);
        assertThat(reads.commonFollowing(A, B, 0, 10, FollowChecker.NO_TOKEN)).isEqualTo(GraphReads.VisiblePage.EMPTY);
        assertThat(reads.commonFollowing(B, A, 0, 10, FollowChecker.NO_TOKEN)).as("either user").isEqualTo(GraphReads.VisiblePage.EMPTY);
        assertThat(reads.counts(A, FollowChecker.NO_TOKEN)).isEqualTo(dev.socialgraph.check.lists.FollowLists.Counts.NONE);
        assertThat(reads.suggestions(A, 10)).as("the suggestions are not even computed").isEmpty();
        assertThat(graph.shardReads.get() + graph.relationReads.get()).isZero();
    }

    /** An inactive user is left out after the page is cut: the cursor still moves on from the page's last item. */
    @Test
    void following_leavesOutInactiveUsers_andContinuesAfterThePagesLastPosition() {
        graph.follows(A, 101, 102, 103, 104); // all at time 0: newest first is id descending
        graph.inactive.apply(103, AccountState.ERASED);
        GraphReads.VisiblePage first = reads.following(A, null, 2, FollowChecker.NO_TOKEN);
        assertThat(ids(first)).containsExactly(104L);
        assertThat(first.next()).isEqualTo(new dev.socialgraph.common.cursor.CursorPosition(0, 103));
        GraphReads.VisiblePage second = reads.following(A, first.next(), 2, FollowChecker.NO_TOKEN);
        assertThat(ids(second)).containsExactly(102L, 101L);
        assertThat(second.next()).isNull();
    }

    /** An owner the filter has seen with no pair costs its followers page one question, not one per follower. */
    @Test
    void followers_ofAnOwnerWithNoHiddenPair_askTheFilterNoPair() {
        graph.follows(30, B);
        graph.follows(40, B);
        graph.filterSawBlock(77, 78); // others' pair
        assertThat(ids(reads.followers(B, null, 10, FollowChecker.NO_TOKEN))).containsExactly(40L, 30L, A);
        assertThat(graph.pairProbes).hasValue(0);
        assertThat(graph.relationReads).hasValue(0);

        graph.filterSawBlock(B, 99); // a pair of the owner's, with nobody on the page
        assertThat(ids(reads.followers(B, null, 10, FollowChecker.NO_TOKEN))).containsExactly(40L, 30L, A);
        assertThat(graph.pairProbes).as("each follower on the page").hasValue(3);
        assertThat(graph.relationReads).hasValue(0);
    }

    /** A follower the owner blocks, whose follow the block's event has not removed yet, is not shown to the owner. */
    @Test
    void followers_leaveOutTheOnesTheOwnerBlocks_readingTheBlockRowOnlyWhenTheFilterMayHideOne() {
        graph.follows(30, B);
        graph.follows(40, B);
        graph.relates(Relation.BLOCK, B, 30);
        assertThat(ids(reads.followers(B, null, 10, FollowChecker.NO_TOKEN))).as("the filter has not seen the block")
                .containsExactly(40L, 30L, A);
        assertThat(graph.relationReads).hasValue(0);

        graph.filterSawBlock(B, 30);
        graph.inactive.apply(40, AccountState.DEACTIVATED);
        assertThat(ids(reads.followers(B, null, 10, FollowChecker.NO_TOKEN))).containsExactly(A);
        assertThat(graph.relationReads).hasValue(1);
        assertThat(ids(reads.following(30, null, 10, FollowChecker.NO_TOKEN))).as("the blocked user's own list is as stored")
                .containsExactly(B);
    }

    @Test
    void commonFollowing_leavesOutInactiveUsers_andContinuesAfterThePageAsCut() {
        graph.follows(A, B, 50, 60);
        graph.follows(30, B, 50, 60);
        graph.inactive.apply(50, AccountState.DEACTIVATED);
        GraphReads.VisiblePage first = reads.commonFollowing(A, 30, 0, 2, FollowChecker.NO_TOKEN);
        assertThat(ids(first)).containsExactly(B);
        assertThat(first.next()).isEqualTo(new dev.socialgraph.common.cursor.CursorPosition(0, 50));
        assertThat(ids(reads.commonFollowing(A, 30, first.next().userId(), 2, FollowChecker.NO_TOKEN))).containsExactly(60L);
    }

    @Test
    void knownFollowers_areTheViewersFollowingWhoFollowTheUser_newestFirst_withoutInactiveOrBlocked() {
        long user = 70;
        graph.follows(A, B, 30, 50, 60, 80);
        graph.follows(30, user);
        graph.follows(50, user);
        graph.follows(60, user);
        graph.follows(80, user);
        graph.follows(99, user); // not one the viewer follows
        for (long follower : new long[] {30, 50, 60, 80, 99}) {
            graph.bloom.add(List.of(follower, user)); // the filter holds every edge
        }
        graph.inactive.apply(50, AccountState.DEACTIVATED);
        graph.relates(Relation.BLOCK, user, 80); // the user blocks it: not shown, as on its followers list
        graph.filterSawBlock(user, 80);

        GraphReads.VisiblePage whole = reads.knownFollowers(A, user, null, 5, FollowChecker.NO_TOKEN, true);
        assertThat(ids(whole)).containsExactly(60L, 30L); // equal follow times: the greater id is the newer
        assertThat(whole.next()).isNull();
        // Pages are cut first, then the hidden taken out, as on the followers list: [80, 60], then [50, 30].
        GraphReads.VisiblePage first = reads.knownFollowers(A, user, null, 2, FollowChecker.NO_TOKEN, true);
        assertThat(ids(first)).containsExactly(60L);
        assertThat(first.next()).isEqualTo(new dev.socialgraph.common.cursor.CursorPosition(0, 60));
        GraphReads.VisiblePage second = reads.knownFollowers(A, user, first.next(), 2, FollowChecker.NO_TOKEN, true);
        assertThat(ids(second)).containsExactly(30L);
        assertThat(second.next()).isNull();
        assertThat(ids(reads.knownFollowers(B, user, null, 5, FollowChecker.NO_TOKEN, true))).as("B follows none")
                .isEmpty();
        graph.inactive.apply(user, AccountState.DEACTIVATED);
        assertThat(ids(reads.knownFollowers(A, user, null, 5, FollowChecker.NO_TOKEN, true))).isEmpty();
    }

    @Test
    void knownFollowers_onAnIoThread_areAnsweredWhenMemoryHoldsTheViewersRowAndEveryCandidate() {
        long user = 70;
        graph.follows(A, 30, 50, 60);
        graph.follows(30, user);
        graph.follows(60, user);
        graph.bloom.add(List.of(30L, user));
        graph.bloom.add(List.of(60L, user));
        assertThat(reads.knownFollowers(A, user, null, 5, NO_TOKEN, false)).as("the viewer's row not held").isNull();

        graph.local.put(A, new long[] {30, 50, 60});
        assertThat(reads.knownFollowers(A, user, null, 5, NO_TOKEN, false))
                .as("60 and 30 pass the filter and their rows are not held").isNull();

        graph.local.put(30L, new long[] {user});
        graph.local.put(60L, new long[] {user});
        assertThat(ids(reads.knownFollowers(A, user, null, 5, NO_TOKEN, false)))
                .as("50 ruled out by the bloom filter").containsExactly(60L, 30L);
        assertThat(graph.shardReads).as("no shard read on the I/O thread").hasValue(0);
        graph.relates(Relation.BLOCK, user, 30);
        graph.filterSawBlock(user, 30);
        assertThat(reads.knownFollowers(A, user, null, 5, NO_TOKEN, false))
                .as("a block the filter has seen: the user's block row is read on a blocking thread").isNull();
        assertThat(ids(reads.knownFollowers(A, user, null, 5, NO_TOKEN, true))).containsExactly(60L);
        assertThat(reads.knownFollowers(A, user, null, 5, reads.writer(graph.tokens.issue(A)), false))
                .as("a follow token: the writer's own row is the shard's").isNull();
    }

    @Test
    void relationList_leavesOutInactiveTargets_andCounts_areTheStoredOnes() {
        graph.relates(Relation.MUTE, A, B, 30);
        graph.inactive.apply(30, AccountState.DEACTIVATED);
        assertThat(ids(reads.relationList(Relation.MUTE, A, null, 10))).containsExactly(B);
        graph.follows(30, A);
        assertThat(reads.counts(A, FollowChecker.NO_TOKEN)).as("a count is corrected by its job, not here")
                .isEqualTo(new dev.socialgraph.check.lists.FollowLists.Counts(1, 1));
    }

    /**
     * Read-your-writes on the follower side: the cdc-consumer has not applied 99's follow of 50 yet; with 99's token,
     * 50's first page holds 99 in its place (the page's last item moves to the next page) and the count has it.
     */
    @Test
    void followersAndCounts_withAFollowersToken_showItsOwnFollowAtOnce() {
        graph.follows(30, 50);
        graph.follows(40, 50);
        graph.follows(99, 50);
        graph.followerSideBehind.add(List.of(99L, 50L));
        assertThat(ids(reads.followers(50, null, 2, FollowChecker.NO_TOKEN))).containsExactly(40L, 30L);
        assertThat(reads.counts(50, FollowChecker.NO_TOKEN).followers()).isEqualTo(2);

        GraphReads.VisiblePage first = reads.followers(50, null, 2, 99);
        assertThat(ids(first)).containsExactly(99L, 40L);
        assertThat(first.next()).as("30 moved to the next page")
                .isEqualTo(new dev.socialgraph.common.cursor.CursorPosition(0, 40));
        assertThat(ids(reads.followers(50, first.next(), 2, 99))).containsExactly(30L);
        assertThat(ids(reads.followers(50, null, 10, 99))).containsExactly(99L, 40L, 30L);
        assertThat(reads.counts(50, 99).followers()).isEqualTo(3);
        assertThat(reads.counts(50, 40).followers()).as("another follower's token: nothing to correct")
                .isEqualTo(2);
    }

    /** The follower side still holds 30's unfollowed follow of 50: with 30's token it is gone from page and count. */
    @Test
    void followersAndCounts_withAnUnfollowersToken_leaveItOutAtOnce() {
        graph.follows(40, 50);
        graph.follows(30);
        graph.followerSideBehind.add(List.of(30L, 50L));
        assertThat(ids(reads.followers(50, null, 10, FollowChecker.NO_TOKEN))).containsExactly(40L, 30L);

        GraphReads.VisiblePage page = reads.followers(50, null, 1, 30);
        assertThat(ids(page)).containsExactly(40L);
        assertThat(ids(reads.followers(50, null, 2, 30))).containsExactly(40L);
        assertThat(reads.counts(50, 30).followers()).isEqualTo(1);
        assertThat(reads.counts(50, 50).followers()).as("the owner's own token proves no follow of it").isEqualTo(2);
    }
}
