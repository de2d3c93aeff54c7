package dev.socialgraph.check.reads;

import dev.socialgraph.check.accounts.AccountVisibility;
import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.check.lists.FollowLists;
import dev.socialgraph.check.relations.RelationReads;
import dev.socialgraph.check.suggest.Suggestions;
import dev.socialgraph.common.adjacency.Page;
import dev.socialgraph.common.cursor.CursorPosition;
import dev.socialgraph.common.relation.Relation;
import java.util.Arrays;
import java.util.List;
import org.springframework.stereotype.Service;

/**
 * The check service's reads, one call per question a caller asks, with the visibility rules every answer obeys:
 * <ul>
 *   <li><b>accounts</b> ({@link AccountVisibility}, docs/account-lifecycle.md): an edge with a deactivated or erased
 *       user at either end is invisible, to every viewer; an inactive user's own lists, counts and suggestions are
 *       empty, and it blocks, mutes and is blocked by no one;</li>
 *   <li><b>blocks</b> ({@link RelationReads}): a follow that a block forbids, whose removal by the block's event is
 *       still on its way, is not shown (the single check, the relationship, the blocker's followers); blocks are
 *       shown only to the two users, a mute only to the muter.</li>
 * </ul>
 * It composes the {@link FollowChecker} (bloom filter, in-process cache, Redis, shard), the relation reads, the lists
 * and the suggestions; the HTTP handlers only translate requests and answers.
 *
 * <p><b>Threads.</b> A question that the in-process layers can often answer is asked in two steps, so that a server
 * can answer it on the I/O thread that read the request: the {@code ...InProcess} step never blocks and returns the
 * answer, or what only the blocking step can finish; that step, given what the first one found, may wait for Redis
 * or a shard database and so never runs on an I/O thread. Every other read here may block. Ids are positive 64-bit
 * user ids. A request's {@code X-Follow-Token} is verified once, by {@link #writer}, into the {@code long} every read
 * of the request is given: it proves a write of its own actor only (read-your-writes). Every read that may block throws
 * {@link dev.socialgraph.common.shard.ShardUnavailableException} when a database it must read is down. Thread-safe.
 */
@Service
public class GraphReads {

    /** {@link #isFollowingInProcess}: the follow stands and is visible. */
    public static final int FOLLOWING = 1;
    /** {@link #isFollowingInProcess}: no visible follow. */
    public static final int NOT_FOLLOWING = 0;
    /** A follow token of one of the two users: their state rows decide, then the layers that the token skips to. */
    private static final int ASK_ACCOUNTS = -1;
    /** The follow stands in process, and the in-process filter has seen the pair: the followee's block row decides. */
    private static final int ASK_BLOCK = -2;
    /** Only Redis or the shard can tell. */
    private static final int ASK_LAYERS = -3;

    /** No viewer named: the internal API's caller, who sees every relation. */
    public static final long ANY_VIEWER = 0;

    private final FollowChecker checker;
    private final RelationReads relations;
    private final AccountVisibility accounts;
    private final FollowLists lists;
    private final Suggestions suggestions;

    /**
     * @param checker     the follow check through its layers
     * @param relations   blocks and mutes, and the in-process filter of hidden pairs
     * @param accounts    the rule for inactive accounts
     * @param lists       following and follower lists, counts, common following
     * @param suggestions people one may know
     */
    public GraphReads(FollowChecker checker, RelationReads relations, AccountVisibility accounts, FollowLists lists,
                      Suggestions suggestions) {
        this.checker = checker;
        this.relations = relations;
        this.accounts = accounts;
        this.lists = lists;
        this.suggestions = suggestions;
    }

    /**
     * A request's follow token, verified once ({@link FollowChecker#writer}): what every read of the request is given.
     *
     * @param followToken the {@code X-Follow-Token} header, or {@code null}
     * @return the user whose own write the token proves, {@link FollowChecker#NO_TOKEN} or
     *         {@link FollowChecker#NO_WRITER}
     */
    public long writer(String followToken) {
        return checker.writer(followToken);
    }

    /**
     * The first step of "does {@code followerId} visibly follow {@code followeeId}?": the answer when memory holds
     * it (the inactive users' view, the bloom filter, the in-process cache, the filter of hidden pairs), without any
     * I/O. Allocates nothing: the check's hot path.
     *
     * @param followerId  positive user id
     * @param followeeId  positive user id
     * @param writer the request's follow token, as {@link #writer} verified it
     * @return {@link #FOLLOWING} or {@link #NOT_FOLLOWING}; a negative value when only
     *         {@link #isFollowing(long, long, long, int)} can answer, which is then to be given this value
     */
    public int isFollowingInProcess(long followerId, long followeeId, long writer) {
        int visibility = accounts.inProcess(followerId, followeeId, writer);
        if (visibility == AccountVisibility.HIDDEN) {
            return NOT_FOLLOWING; // a deactivated or erased user's edges are invisible
        }
        if (visibility == AccountVisibility.ASK_SHARD) {
            return ASK_ACCOUNTS;
        }
        int known = checker.answerInProcess(followerId, followeeId, writer);
        if (known == FollowChecker.NOT_FOLLOWING) {
            return NOT_FOLLOWING;
        }
        if (known == FollowChecker.FOLLOWING) {
            // The filter of hidden pairs says when the followee's block row must be read, which is rare.
            return relations.followMayBeBlocked(followerId, followeeId) ? ASK_BLOCK : FOLLOWING;
        }
        return ASK_LAYERS;
    }

    /**
     * Whether {@link #isFollowingInProcess}'s value is the answer.
     *
     * @param inProcess a value of {@link #isFollowingInProcess}
     * @return {@code true} for {@link #FOLLOWING} and {@link #NOT_FOLLOWING}
     */
    public static boolean isAnswer(int inProcess) {
        return inProcess >= 0;
    }

    /**
     * The second step: whether {@code followerId} visibly follows {@code followeeId}, reading what the first step
     * could not answer from memory (a state row, the followee's block row, Redis or the following shard). May block.
     *
     * @param followerId  positive user id
     * @param followeeId  positive user id
     * @param writer the request's follow token, as {@link #writer} verified it
     * @param inProcess   what {@link #isFollowingInProcess} returned for the same three arguments
     * @return {@code false} when either user is inactive, when there is no follow, and for a follow under the
     *         followee's block whose removal is still on its way
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when a database that must be read is down
     */
    public boolean isFollowing(long followerId, long followeeId, long writer, int inProcess) {
        return switch (inProcess) {
            case FOLLOWING -> true;
            case NOT_FOLLOWING -> false;
            case ASK_ACCOUNTS -> !accounts.hides(followerId, followeeId, writer)
                    && followsVisibly(followerId, followeeId, writer);
            case ASK_BLOCK -> !relations.blocks(followeeId, followerId);
            case ASK_LAYERS -> followsVisibly(followerId, followeeId, writer);
            default -> throw new IllegalArgumentException("not a value of isFollowingInProcess: " + inProcess);
        };
    }

    /** The check from Redis or the shard, a block of the follower by the followee hiding the follow; may block. */
    private boolean followsVisibly(long follower, long followee, long writer) {
        // The followee's token: it may have just blocked the follower, before the filter has the block.
        return checker.isFollowing(follower, followee, writer)
                && !((writer == followee || relations.followMayBeBlocked(follower, followee))
                && relations.blocks(followee, follower));
    }

    // ---------------------------------------------------------------- batch check

    /**
     * The first step of the batch check: which of {@code followeeIds} {@code followerId} visibly follows, when
     * memory holds the answer (the bloom filter rules every id out, or the in-process cache has the follower).
     *
     * @param followerId  positive user id
     * @param followeeIds positive user ids
     * @param writer the request's follow token, as {@link #writer} verified it
     * @return membership aligned with {@code followeeIds}, an inactive followee's {@code false}; {@code null} when
     *         only {@link #areFollowing} can answer
     */
    public boolean[] areFollowingInProcess(long followerId, long[] followeeIds, long writer) {
        if (accounts.inProcess(followerId, followerId, writer) != AccountVisibility.VISIBLE) {
            return null; // an inactive follower, or a state row to read: off the I/O thread
        }
        boolean[] known = checker.areFollowingInProcess(followerId, followeeIds, writer);
        return known == null ? null : visible(followeeIds, known);
    }

    /**
     * Which of {@code followeeIds} {@code followerId} visibly follows, through every layer. May block.
     *
     * @param followerId  positive user id
     * @param followeeIds positive user ids
     * @param writer      the request's follow token ({@link #writer}); the follower's own write reads its state row
     *                    and its following row (read-your-writes)
     * @return membership aligned with {@code followeeIds}: all {@code false} for an inactive follower, {@code false}
     *         for an inactive followee
     */
    public boolean[] areFollowing(long followerId, long[] followeeIds, long writer) {
        if (accounts.isInactive(followerId, writer)) {
            return new boolean[followeeIds.length];
        }
        return visible(followeeIds, checker.areFollowing(followerId, followeeIds, writer));
    }

    /** {@code answers} with every inactive followee's answer made {@code false}. */
    private boolean[] visible(long[] ids, boolean[] answers) {
        for (int i = 0; i < ids.length; i++) {
            if (answers[i] && accounts.isInactive(ids[i])) {
                answers[i] = false;
            }
        }
        return answers;
    }

    // ---------------------------------------------------------------- relationship

    /** {@link #relationshipInProcess}'s value: the relationship, or what the blocking step must still read. */
    public sealed interface RelationshipRead permits Relationship, UnansweredRelationship {
    }

    /**
     * Both directions between two users and the relations between them, as a viewer may see them. While a block
     * stands either way neither follow is shown: a follow the block's event has not removed yet is never reported.
     *
     * @param following  {@code a} follows {@code b}
     * @param followedBy {@code b} follows {@code a}
     * @param blocking   {@code a} blocks {@code b}; {@code null} for a viewer other than {@code a} or {@code b}
     * @param blockedBy  {@code b} blocks {@code a}; {@code null} for a viewer other than {@code a} or {@code b}
     * @param muting     {@code a} mutes {@code b}; {@code null} for a viewer other than {@code a}
     */
    public record Relationship(boolean following, boolean followedBy, Boolean blocking, Boolean blockedBy,
                               Boolean muting) implements RelationshipRead {

        static Relationship of(boolean following, boolean followedBy, RelationReads.Between between,
                               boolean showBlocks, boolean showMute) {
            return new Relationship(following && !between.blocked(), followedBy && !between.blocked(),
                    showBlocks ? between.blocking() : null, showBlocks ? between.blockedBy() : null,
                    showMute ? between.muting() : null);
        }
    }

    /** What memory could not answer of a relationship; {@link #relationship} reads the rest. */
    public static final class UnansweredRelationship implements RelationshipRead {

        private final long a;
        private final long b;
        private final long writer;
        private final boolean showBlocks;
        private final boolean showMute;
        /** A follow token of {@code a} or {@code b}: their state rows decide first. */
        private final boolean askAccounts;
        /** Each direction as memory answered it, {@link FollowChecker#UNKNOWN} when it did not. */
        private final int following;
        private final int followedBy;
        /** No relation is to be read: none is shown to the viewer, or the filter rules every one out. */
        private final boolean noRelations;

        private UnansweredRelationship(long a, long b, long writer, boolean showBlocks, boolean showMute,
                                       boolean askAccounts, int following, int followedBy, boolean noRelations) {
            this.a = a;
            this.b = b;
            this.writer = writer;
            this.showBlocks = showBlocks;
            this.showMute = showMute;
            this.askAccounts = askAccounts;
            this.following = following;
            this.followedBy = followedBy;
            this.noRelations = noRelations;
        }
    }

    /**
     * The first step of a relationship: answered from memory when both directions are (bloom filter, in-process
     * cache) and no relation must be read (the filter of hidden pairs rules every one out, or none is shown to the
     * viewer).
     *
     * @param a           positive user id
     * @param b           positive user id
     * @param writer      the request's follow token ({@link #writer}); it proves only its own actor's writes, so it
     *                    is compared with each direction's follower
     * @param viewerId    who asks (the gateway's token subject), or {@link #ANY_VIEWER}
     * @return a {@link Relationship}, or what {@link #relationship} must finish
     */
    public RelationshipRead relationshipInProcess(long a, long b, long writer, long viewerId) {
        boolean showBlocks = viewerId == ANY_VIEWER || viewerId == a || viewerId == b;
        boolean showMute = viewerId == ANY_VIEWER || viewerId == a;
        int visibility = accounts.inProcess(a, b, writer);
        if (visibility == AccountVisibility.HIDDEN) {
            return Relationship.of(false, false, RelationReads.Between.NONE, showBlocks, showMute);
        }
        boolean askAccounts = visibility == AccountVisibility.ASK_SHARD;
        // A state row to read means a token of a or b: neither direction may come from memory then.
        int following = askAccounts ? FollowChecker.UNKNOWN : checker.answerInProcess(a, b, writer);
        int followedBy = askAccounts ? FollowChecker.UNKNOWN : checker.answerInProcess(b, a, writer);
        // A third party sees neither blocks nor mutes: the relations are not read for it at all. A follow token of
        // either user: its block or mute may not be in the in-process filter yet.
        boolean ownWrite = askAccounts || writer == a || writer == b;
        boolean noRelations = !showBlocks || a == b || !ownWrite && relations.surelyNone(a, b);
        if (following != FollowChecker.UNKNOWN && followedBy != FollowChecker.UNKNOWN && noRelations) {
            return Relationship.of(following == FollowChecker.FOLLOWING, followedBy == FollowChecker.FOLLOWING,
                    RelationReads.Between.NONE, showBlocks, showMute);
        }
        return new UnansweredRelationship(a, b, writer, showBlocks, showMute, askAccounts, following,
                followedBy, noRelations);
    }

    /**
     * The relationship, finishing what {@link #relationshipInProcess} found: the state rows a token asks for, the
     * directions memory did not answer, and the relations unless none is to be read. May block.
     *
     * @param read what {@link #relationshipInProcess} returned
     * @return the relationship; {@code read} itself when it already was one
     */
    public Relationship relationship(RelationshipRead read) {
        return switch (read) {
            case Relationship answered -> answered;
            case UnansweredRelationship r -> {
                if (r.askAccounts && accounts.hides(r.a, r.b, r.writer)) {
                    yield Relationship.of(false, false, RelationReads.Between.NONE, r.showBlocks, r.showMute);
                }
                boolean following = r.following != FollowChecker.UNKNOWN ? r.following == FollowChecker.FOLLOWING
                        : checker.isFollowing(r.a, r.b, r.writer);
                boolean followedBy = r.followedBy != FollowChecker.UNKNOWN
                        ? r.followedBy == FollowChecker.FOLLOWING : checker.isFollowing(r.b, r.a, r.writer);
                yield Relationship.of(following, followedBy,
                        r.noRelations ? RelationReads.Between.NONE : relations.between(r.a, r.b), r.showBlocks,
                        r.showMute);
            }
        };
    }

    // ---------------------------------------------------------------- hidden authors

    /**
     * The first step of the hidden-authors check: the authors whose rows must be read, usually none. An inactive
     * viewer has no blocks or mutes, and no relation with an inactive author is shown; the filter of hidden pairs
     * rules out the others unless a follow token of the viewer says its block or mute may not be in it yet.
     *
     * @param viewerId    positive user id
     * @param authorIds   positive, ascending, distinct
     * @param writer the request's follow token, as {@link #writer} verified it
     * @return a subset of {@code authorIds}, ascending; when empty, {@link #hidden} reads nothing
     */
    public long[] mayBeHidden(long viewerId, long[] authorIds, long writer) {
        boolean ownWrite = writer == viewerId;
        long[] asked = accounts.isInactive(viewerId) ? new long[0] : authorIds;
        return relations.mayBeHidden(viewerId, accounts.withoutInactive(asked), ownWrite);
    }

    /**
     * Which of {@code candidates} the viewer blocks, is blocked by, or mutes: the viewer's rows, read only when there
     * is a candidate (so without I/O when there is none). Timed from {@code startNanos} as
     * {@code graph.check.hidden.latency}.
     *
     * @param viewerId   positive user id
     * @param candidates from {@link #mayBeHidden}
     * @param startNanos {@link System#nanoTime()} when the request's answer began
     * @return the three subsets of {@code candidates}, each ascending
     */
    public RelationReads.Hidden hidden(long viewerId, long[] candidates, long startNanos) {
        return relations.hidden(viewerId, candidates, startNanos);
    }

    // ---------------------------------------------------------------- lists, counts, suggestions

    /**
     * One page of a list as every viewer sees it: the items shown, and where the next page starts. Inactive users
     * (and, on a followers list, the followers the owner blocks) are left out after the page is cut, so a page may
     * hold fewer than {@code limit} items while {@code next} still continues after the page's last position.
     *
     * @param ids   user ids shown, in the list's order
     * @param times epoch ms aligned with {@code ids}: when each follow, block or mute was made; zeros for common
     *              following, which has no times
     * @param next  the position to continue after, or {@code null} on the last page
     */
    public record VisiblePage(long[] ids, long[] times, CursorPosition next) {

        static final VisiblePage EMPTY = new VisiblePage(new long[0], new long[0], null);
    }

    /**
     * Whom {@code userId} follows, newest first; empty for an inactive user.
     *
     * @param after the position to continue after, or {@code null} for the first page
     * @param limit page size, {@code >= 1}
     */
    public VisiblePage following(long userId, CursorPosition after, int limit) {
        if (accounts.isInactive(userId, FollowChecker.NO_TOKEN)) {
            return VisiblePage.EMPTY; // an inactive user's lists are empty
        }
        Page page = lists.following(userId, at(after), from(after), limit);
        return visible(page, new long[0]);
    }

    /**
     * Who follows {@code userId}, newest first, without the followers {@code userId} blocks; empty for an inactive
     * user.
     *
     * @param after the position to continue after, or {@code null} for the first page
     * @param limit page size, {@code >= 1}
     */
    public VisiblePage followers(long userId, CursorPosition after, int limit) {
        if (accounts.isInactive(userId, FollowChecker.NO_TOKEN)) {
            return VisiblePage.EMPTY;
        }
        Page page = lists.followers(userId, at(after), from(after), limit);
        return visible(page, relations.blockedAmong(userId, page.ids()));
    }

    /**
     * Whom {@code userId} blocks or mutes, newest first; empty for an inactive user.
     *
     * @param relation {@link Relation#BLOCK} or {@link Relation#MUTE}
     * @param after    the position to continue after, or {@code null} for the first page
     * @param limit    page size, {@code >= 1}
     */
    public VisiblePage relationList(Relation relation, long userId, CursorPosition after, int limit) {
        if (accounts.isInactive(userId, FollowChecker.NO_TOKEN)) {
            return VisiblePage.EMPTY;
        }
        return visible(relations.list(relation, userId, at(after), from(after), limit), new long[0]);
    }

    private static long at(CursorPosition after) {
        return after == null ? 0 : after.followedAt();
    }

    private static long from(CursorPosition after) {
        return after == null ? Page.START : after.userId();
    }

    /** The page without inactive users and {@code hidden} (ascending); the cursor goes on from the page's end. */
    private VisiblePage visible(Page page, long[] hidden) {
        long[] ids = new long[page.size()];
        long[] times = new long[page.size()];
        int n = 0;
        for (int i = 0; i < page.size(); i++) {
            long id = page.ids()[i];
            if ((hidden.length == 0 || Arrays.binarySearch(hidden, id) < 0) && !accounts.isInactive(id)) {
                ids[n] = id;
                times[n++] = page.followedAt()[i];
            }
        }
        CursorPosition next = page.hasMore() ? new CursorPosition(page.lastFollowedAt(), page.lastId()) : null;
        return new VisiblePage(Arrays.copyOf(ids, n), Arrays.copyOf(times, n), next);
    }

    /**
     * The ids both {@code a} and {@code b} follow, ascending after {@code afterId}, without inactive users; empty when
     * either is inactive.
     *
     * @param afterId exclusive lower bound, {@code 0} for the first page
     * @param limit   page size, {@code >= 1}
     * @return the page; {@code next} carries the last id of the page as cut ({@code followedAt} 0)
     */
    public VisiblePage commonFollowing(long a, long b, long afterId, int limit) {
        if (accounts.hides(a, b, FollowChecker.NO_TOKEN)) {
            return VisiblePage.EMPTY;
        }
        FollowLists.CommonPage page = lists.commonFollowing(a, b, afterId, limit);
        long[] ids = accounts.withoutInactive(page.ids());
        CursorPosition next = page.hasMore() ? new CursorPosition(0, page.ids()[page.ids().length - 1]) : null;
        return new VisiblePage(ids, new long[ids.length], next);
    }

    /**
     * How many follow {@code userId} and whom it follows, less the inactive users taken out of the counts; zeros for
     * an inactive user.
     */
    public FollowLists.Counts counts(long userId) {
        return accounts.isInactive(userId, FollowChecker.NO_TOKEN) ? FollowLists.Counts.NONE : lists.counts(userId);
    }

    /**
     * People {@code userId} may know, best first, without inactive users; none for an inactive user.
     *
     * @param limit the most to return, {@code >= 1}
     */
    public List<Suggestions.Suggestion> suggestions(long userId, int limit) {
        return accounts.isInactive(userId, FollowChecker.NO_TOKEN) ? List.of() : suggestions.suggest(userId, limit);
    }
}
