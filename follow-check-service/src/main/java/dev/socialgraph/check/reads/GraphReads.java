package dev.socialgraph.check.reads;

import dev.socialgraph.check.accounts.AccountVisibility;
import dev.socialgraph.check.follow.Answer;
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
 * <p><b>One read pipeline.</b> Each layer answers in the one scheme of {@link Answer} ({@link Answer#YES},
 * {@link Answer#NO}, or {@link Answer#NEXT}: ask the next layer), and each read is written once. The reads a server
 * may answer on the I/O thread that read the request (the single check, the batch check, the relationship) take
 * {@code mayBlock}: with {@code false} the read asks the layers in memory and answers {@link Answer#NEXT} (for the
 * batch and the relationship, {@code null}) where its next layer would wait for Redis, a shard database or a state
 * row; the same call with {@code true}, on a thread that may block, answers in full. No state passes between the two
 * calls but the request's own values. Every other read here may block.
 *
 * <p><b>Follow tokens.</b> A request's {@code X-Follow-Token} is verified once, by {@link #writer}, into the
 * {@code long} every read of the request is given: the user whose own write it proves (read-your-writes), or none.
 * A request that carries a token is answered where blocking is allowed. Ids are positive 64-bit user ids. Every read
 * that may block throws {@link dev.socialgraph.common.shard.ShardUnavailableException} when a database it must read
 * is down. Thread-safe.
 */
@Service
public class GraphReads {

    /** No viewer named: the internal API's caller, who sees every relation. */
    public static final long ANY_VIEWER = 0;

    private final FollowChecker checker;
    private final RelationReads relations;
    private final AccountVisibility accounts;
    private final FollowLists lists;
    private final Suggestions suggestions;

    /**
     * @param checker     the follow check through its layers, and the follow tokens' verification
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
     * Whether a read carrying a follow token must leave memory at once: the token's read-your-writes reads its user's
     * state row and own row from their stores, which a read on an I/O thread may not wait for.
     *
     * @param writer   the request's follow token, as {@link #writer} verified it, or {@link FollowChecker#NO_TOKEN}
     * @param mayBlock whether a store may be read; {@code false} on an I/O thread
     * @return {@code true}: the read answers its "memory cannot answer" ({@link Answer#NEXT} or {@code null})
     */
    private static boolean tokenNeedsStores(long writer, boolean mayBlock) {
        return !mayBlock && writer != FollowChecker.NO_TOKEN;
    }

    /**
     * Whether {@code followerId} visibly follows {@code followeeId}: the layers in order, the inactive users' view (or
     * the state row of a user the token names), then the follow check (bloom filter, in-process cache, Redis, shard),
     * whose "yes" the followee's block row decides when the filter of hidden pairs (or the followee's token) says a
     * block may stand. Allocates nothing: the check's hot path.
     *
     * @param followerId positive user id
     * @param followeeId positive user id
     * @param writer     the request's follow token, as {@link #writer} verified it
     * @param mayBlock   whether Redis, a shard or a state row may be read; {@code false} on an I/O thread
     * @return {@link Answer#YES} or {@link Answer#NO} ({@code NO} when either user is inactive, when there is no
     *         follow, and for a follow under the followee's block whose removal is still on its way);
     *         {@link Answer#NEXT} only when {@code !mayBlock} and the next layer would block
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when a database that must be read is down
     */
    public int isFollowing(long followerId, long followeeId, long writer, boolean mayBlock) {
        if (tokenNeedsStores(writer, mayBlock)) {
            return Answer.NEXT; // a follow token: a state row or the shard may have to be read
        }
        if (accounts.answer(followerId, followeeId, writer) == Answer.NO) {
            return Answer.NO; // a deactivated or erased user's edges are invisible
        }
        return checker.isFollowing(followerId, followeeId, writer, mayBlock, relations);
    }

    // ---------------------------------------------------------------- batch check

    /**
     * Which of {@code followeeIds} {@code followerId} visibly follows: the follower's account, then the follow check
     * (nothing but the bloom filter when it rules out every id, else the in-process cache, else Redis or the shard),
     * then the followees' accounts by the view.
     *
     * @param followerId  positive user id
     * @param followeeIds positive user ids
     * @param writer      the request's follow token, as {@link #writer} verified it; the follower's own write reads
     *                    its state row and its following row (read-your-writes)
     * @param mayBlock    whether Redis, a shard or a state row may be read; {@code false} on an I/O thread
     * @return membership aligned with {@code followeeIds}: all {@code false} for an inactive follower, {@code false}
     *         for an inactive followee; {@code null} (the batch's {@link Answer#NEXT}) only when {@code !mayBlock} and
     *         the next layer would block, or the follower is inactive
     */
    public boolean[] areFollowing(long followerId, long[] followeeIds, long writer, boolean mayBlock) {
        if (tokenNeedsStores(writer, mayBlock)) {
            return null; // a follow token: a state row or the shard may have to be read
        }
        if (accounts.isInactive(followerId, writer)) {
            // Rare: answered where blocking is allowed, as it always was.
            return mayBlock ? new boolean[followeeIds.length] : null;
        }
        boolean[] known = checker.areFollowing(followerId, followeeIds, writer, mayBlock);
        return known == null ? null : visible(followeeIds, known);
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

    /**
     * Both directions between two users and the relations between them, as a viewer may see them. While a block
     * stands either way neither follow is shown: a follow the block's event has not removed yet is never reported.
     *
     * @param following        {@code a} follows {@code b}; {@code null} when {@code a} is a protected account whose
     *                         follows the viewer may not see ({@link #maySeeFollows})
     * @param followedBy       {@code b} follows {@code a}; {@code null} when {@code b} is such an account
     * @param blocking         {@code a} blocks {@code b}; {@code null} for a viewer other than {@code a} or {@code b}
     * @param blockedBy        {@code b} blocks {@code a}; {@code null} for a viewer other than {@code a} or {@code b}
     * @param muting           {@code a} mutes {@code b}; {@code null} for a viewer other than {@code a}
     * @param protectedAccount {@code b} is a protected account
     * @param requested        {@code a} asked to follow {@code b} and is waiting; {@code null} for a viewer other than
     *                         {@code a} or {@code b}
     * @param requestedBy      {@code b} asked to follow {@code a} and is waiting; {@code null} as {@code requested}
     */
    public record Relationship(Boolean following, Boolean followedBy, Boolean blocking, Boolean blockedBy,
                               Boolean muting, boolean protectedAccount, Boolean requested, Boolean requestedBy) {

        static Relationship of(boolean following, boolean followedBy, RelationReads.Between between,
                               boolean showBlocks, boolean showMute, Sight sight) {
            return new Relationship(sight.followsOfA ? following && !between.blocked() : null,
                    sight.followsOfB ? followedBy && !between.blocked() : null,
                    showBlocks ? between.blocking() : null, showBlocks ? between.blockedBy() : null,
                    showMute ? between.muting() : null, sight.bProtected,
                    showBlocks ? sight.requested : null, showBlocks ? sight.requestedBy : null);
        }
    }

    /**
     * What of the two users' follows and requests the viewer sees: whether it may see {@code a}'s and {@code b}'s
     * follows, whether {@code b} is protected, and the pending requests between them (read only towards a protected
     * account, and only for one of the two).
     */
    private record Sight(boolean followsOfA, boolean followsOfB, boolean bProtected, boolean requested,
                         boolean requestedBy) {
    }

    /**
     * The relationship between {@code a} and {@code b}: the accounts, both directions through the follow check's
     * layers (as stored: the relations decide what a block hides), and the blocks and mute between them unless none is
     * to be read (none is shown to the viewer, or the filter of hidden pairs rules every one out).
     *
     * <p>On an I/O thread it answers only when memory holds all of it, and records a direction only then: the direction
     * from {@code b}, whose shard an instance routed by {@code a} rarely owns, is looked up first without being
     * recorded, then {@code a}'s, then {@code b}'s for the record. When memory cannot answer, nothing was recorded
     * (unless {@code b}'s row left memory in the moment between its two lookups), so the blocking call records each
     * direction once.
     *
     * @param a        positive user id
     * @param b        positive user id
     * @param writer   the request's follow token, as {@link #writer} verified it; it proves only its own actor's
     *                 writes, so it is compared with each direction's follower
     * @param viewerId who asks (the gateway's token subject), or {@link #ANY_VIEWER}
     * @param mayBlock whether Redis, a shard or a state row may be read; {@code false} on an I/O thread
     * @return the relationship; {@code null} (the relationship's {@link Answer#NEXT}) only when {@code !mayBlock} and a
     *         layer it needs would block
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when a database that must be read is down
     */
    public Relationship relationship(long a, long b, long writer, long viewerId, boolean mayBlock) {
        boolean showBlocks = viewerId == ANY_VIEWER || viewerId == a || viewerId == b;
        boolean showMute = viewerId == ANY_VIEWER || viewerId == a;
        if (tokenNeedsStores(writer, mayBlock)) {
            return null; // a follow token: state rows, the shard or the relations may have to be read
        }
        Sight sight = sight(a, b, writer, viewerId, showBlocks, mayBlock);
        if (sight == null) {
            return null;
        }
        if (accounts.answer(a, b, writer) == Answer.NO) {
            return Relationship.of(false, false, RelationReads.Between.NONE, showBlocks, showMute, sight);
        }
        // A third party sees neither blocks nor mutes: the relations are not read for it at all. A follow token of
        // either user: its block or mute may not be in the in-process filter yet.
        boolean noRelations = !showBlocks || a == b || writer != a && writer != b && relations.surelyNone(a, b);
        if (!mayBlock && (!noRelations || !Answer.isAnswer(checker.knownInProcess(b, a, writer)))) {
            return null;
        }
        int following = checker.isFollowing(a, b, writer, mayBlock, FollowChecker.Blocks.NONE);
        if (!Answer.isAnswer(following)) {
            return null; // nothing recorded: a's direction is not in memory
        }
        int followedBy = checker.isFollowing(b, a, writer, mayBlock, FollowChecker.Blocks.NONE);
        if (!Answer.isAnswer(followedBy)) {
            return null; // b's row left memory since it was looked up, a moment ago
        }
        return Relationship.of(following == Answer.YES, followedBy == Answer.YES,
                noRelations ? RelationReads.Between.NONE : relations.between(a, b), showBlocks, showMute, sight);
    }

    /**
     * What the viewer sees of {@code a}'s and {@code b}'s follows and of the requests between them; {@code null} when
     * {@code !mayBlock} and a layer it needs would block. While neither user is protected (the common case) this reads
     * nothing but the view of protected accounts.
     */
    private Sight sight(long a, long b, long writer, long viewerId, boolean showRequests, boolean mayBlock) {
        boolean aProtected = accounts.isProtected(a);
        boolean bProtected = accounts.isProtected(b);
        if (!aProtected && !bProtected) {
            return new Sight(true, true, false, false, false);
        }
        // maySeeFollows of a public user is YES: no second look at the view for it.
        int seeA = aProtected ? maySeeFollows(viewerId, a, writer, mayBlock) : Answer.YES;
        int seeB = bProtected ? maySeeFollows(viewerId, b, writer, mayBlock) : Answer.YES;
        boolean readRequests = showRequests && a != b;
        if (!Answer.isAnswer(seeA) || !Answer.isAnswer(seeB) || !mayBlock && readRequests) {
            return null; // a request is read from the requester's shard
        }
        return new Sight(seeA == Answer.YES, seeB == Answer.YES, bProtected,
                readRequests && bProtected && relations.requestPending(a, b),
                readRequests && aProtected && relations.requestPending(b, a));
    }

    // ---------------------------------------------------------------- protected accounts

    /**
     * Whether {@code viewerId} may see {@code ownerId}'s follows: whom it follows and who follows it
     * (docs/decisions/0064-follow-requests.md). Anyone may see a public account's; a protected account's are the
     * account's own and its followers' to see, and a backend's (no viewer named). Costs one look at the view of
     * protected accounts (one volatile read while none is protected) unless the owner is protected and the viewer
     * another user: then the viewer's follow of the owner is checked through the follow check's layers.
     *
     * @param viewerId who asks (the gateway's token subject), or {@link #ANY_VIEWER}
     * @param ownerId  positive user id
     * @param writer   the request's follow token, as {@link #writer} verified it
     * @param mayBlock whether Redis, a shard or a state row may be read; {@code false} on an I/O thread
     * @return {@link Answer#YES} or {@link Answer#NO}; {@link Answer#NEXT} only when {@code !mayBlock} and the viewer's
     *         follow needs a layer that would block
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when a database that must be read is down
     */
    public int maySeeFollows(long viewerId, long ownerId, long writer, boolean mayBlock) {
        if (viewerId == ANY_VIEWER || viewerId == ownerId || !accounts.isProtected(ownerId)) {
            return Answer.YES;
        }
        return isFollowing(viewerId, ownerId, writer, mayBlock);
    }

    // ---------------------------------------------------------------- hidden authors

    /**
     * The first step of the hidden-authors check: the authors whose rows must be read, usually none. An inactive
     * viewer has no blocks or mutes, and no relation with an inactive author is shown; the filter of hidden pairs
     * rules out the others unless a follow token of the viewer says its block or mute may not be in it yet.
     *
     * @param viewerId  positive user id
     * @param authorIds positive, ascending, distinct
     * @param writer    the request's follow token, as {@link #writer} verified it
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

        /** This page without its item {@code at}; the cursor still continues after the page as it was read. */
        VisiblePage without(int at) {
            long[] i = new long[ids.length - 1];
            long[] t = new long[ids.length - 1];
            System.arraycopy(ids, 0, i, 0, at);
            System.arraycopy(times, 0, t, 0, at);
            System.arraycopy(ids, at + 1, i, at, ids.length - at - 1);
            System.arraycopy(times, at + 1, t, at, ids.length - at - 1);
            return new VisiblePage(i, t, next);
        }

        /**
         * This newest-first page with {@code (followedAt, id)} put in its place, newer than the page's end; a page
         * already of {@code limit} items gives its last item to the next page.
         */
        VisiblePage with(long id, long followedAt, int limit) {
            int at = 0;
            while (at < ids.length && Page.isNewer(times[at], ids[at], followedAt, id)) {
                at++;
            }
            long[] i = new long[ids.length + 1];
            long[] t = new long[ids.length + 1];
            System.arraycopy(ids, 0, i, 0, at);
            System.arraycopy(times, 0, t, 0, at);
            i[at] = id;
            t[at] = followedAt;
            System.arraycopy(ids, at, i, at + 1, ids.length - at);
            System.arraycopy(times, at, t, at + 1, ids.length - at);
            if (i.length <= limit) {
                return new VisiblePage(i, t, next);
            }
            int n = limit;
            return new VisiblePage(Arrays.copyOf(i, n), Arrays.copyOf(t, n), new CursorPosition(t[n - 1], i[n - 1]));
        }
    }

    /**
     * Whom {@code userId} follows, newest first; empty for an inactive user. From the in-process following row when
     * it holds the user, else the shard.
     *
     * @param after  the position to continue after, or {@code null} for the first page
     * @param limit  page size, {@code >= 1}
     * @param writer the request's follow token, as {@link #writer} verified it: the user's own write reads its shard
     */
    public VisiblePage following(long userId, CursorPosition after, int limit, long writer) {
        return following(userId, after, limit, writer, true);
    }

    /**
     * {@link #following(long, CursorPosition, int, long)}, on an I/O thread when {@code !mayBlock}.
     *
     * @return the page; {@code null} only when {@code !mayBlock} and memory cannot answer (or a token came)
     */
    public VisiblePage following(long userId, CursorPosition after, int limit, long writer, boolean mayBlock) {
        if (tokenNeedsStores(writer, mayBlock)) {
            return null; // a follow token: its user's own row is read from the shard
        }
        if (accounts.isInactive(userId, FollowChecker.NO_TOKEN)) {
            return VisiblePage.EMPTY; // an inactive user's lists are empty
        }
        Page page = lists.following(userId, at(after), from(after), limit, writer, mayBlock);
        return page == null ? null : visible(page, new long[0]);
    }

    /**
     * Who follows {@code userId}, newest first, without the followers {@code userId} blocks; empty for an inactive
     * user. From the follower-side window in memory when it holds the page, else the shard.
     *
     * <p><b>Read-your-writes.</b> With a follow token of another user {@code w}, the first page is as {@code w}'s own
     * write left it: the follower side is written after the follow, so {@code w}'s following row (the source of truth,
     * written before the token was issued) decides whether {@code w} is on it. A follow of {@code userId} that would
     * come on this page is put in its place (the page's last item then moves to the next page), an unfollow is taken
     * off (the cursor still continues after the page as read). No other user's fresh edges are merged.
     *
     * @param after  the position to continue after, or {@code null} for the first page
     * @param limit  page size, {@code >= 1}
     * @param writer the request's follow token, as {@link #writer} verified it
     */
    public VisiblePage followers(long userId, CursorPosition after, int limit, long writer) {
        return followers(userId, after, limit, writer, true);
    }

    /**
     * {@link #followers(long, CursorPosition, int, long)}, on an I/O thread when {@code !mayBlock}.
     *
     * @return the page; {@code null} only when {@code !mayBlock} and memory cannot answer (or a token came)
     */
    public VisiblePage followers(long userId, CursorPosition after, int limit, long writer, boolean mayBlock) {
        if (tokenNeedsStores(writer, mayBlock)) {
            return null; // a follow token: its user's own row is read from the shard
        }
        if (accounts.isInactive(userId, FollowChecker.NO_TOKEN)) {
            return VisiblePage.EMPTY;
        }
        Page page = lists.followers(userId, at(after), from(after), limit, checker.feedFresh(), mayBlock);
        long[] blocked = page == null ? null : relations.blockedAmong(userId, page.ids(), mayBlock);
        if (blocked == null) {
            return null;
        }
        VisiblePage visible = visible(page, blocked);
        return after == null && writer > 0 && writer != userId ? withWrite(visible, userId, writer, limit) : visible;
    }

    /** The first page of {@code followeeId}'s followers with {@code writer}'s own follow of it as it stands. */
    private VisiblePage withWrite(VisiblePage page, long followeeId, long writer, int limit) {
        long followedAt = lists.followedAt(writer, followeeId);
        int at = indexOf(page.ids(), writer);
        if (followedAt == FollowLists.NOT_FOLLOWING) {
            return at < 0 ? page : page.without(at);
        }
        CursorPosition end = page.next();
        if (at >= 0 || accounts.isInactive(writer)
                || end != null && !Page.isNewer(followedAt, writer, end.followedAt(), end.userId())) {
            return page; // on it already, not shown, or older than the page's end: a later page's
        }
        return page.with(writer, followedAt, limit);
    }

    private static int indexOf(long[] ids, long id) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == id) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The users {@code viewerId} follows who follow {@code userId} ("followers you know"), newest first by the viewer's
     * follow, without inactive users and without the followers {@code userId} blocks; empty when either is inactive.
     * Reads the viewer's following row (memory, or its shard) and asks which of its followees follow {@code userId} on
     * the following side ({@link FollowLists#knownFollowers}): bounded by the viewer's following count, not
     * {@code userId}'s followers.
     *
     * @param viewerId positive user id: who asks
     * @param userId   positive user id: whose followers
     * @param after    the position to continue after (in the viewer's following list), or {@code null} for the first
     *                 page
     * @param limit    page size, {@code >= 1}
     * @param writer   the request's follow token, as {@link #writer} verified it: the viewer's own row then comes from
     *                 its shard
     * @param mayBlock whether a shard may be read; {@code false} on an I/O thread
     * @return the page; {@code null} only when {@code !mayBlock} and memory cannot answer (or a token came)
     */
    public VisiblePage knownFollowers(long viewerId, long userId, CursorPosition after, int limit, long writer,
                                      boolean mayBlock) {
        if (tokenNeedsStores(writer, mayBlock)) {
            return null; // a follow token: its user's own row is read from the shard
        }
        if (accounts.isInactive(viewerId, FollowChecker.NO_TOKEN) || accounts.isInactive(userId, FollowChecker.NO_TOKEN)) {
            return VisiblePage.EMPTY;
        }
        Page page = lists.knownFollowers(viewerId, userId, at(after), from(after), limit, writer, mayBlock);
        long[] blocked = page == null ? null : relations.blockedAmong(userId, page.ids(), mayBlock);
        return blocked == null ? null : visible(page, blocked);
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

    /**
     * {@code userId}'s pending follow requests, newest first, without inactive users; empty for an inactive user:
     * outgoing, whom the user asked to follow (its row of requests on its following shard, the truth, written
     * synchronously); incoming, who asked to follow the user (its follower side of requests, kept by the event
     * consumer within the follower side's propagation bound).
     *
     * @param incoming whether the requests to the user, rather than the user's own
     * @param after    the position to continue after, or {@code null} for the first page
     * @param limit    page size, {@code >= 1}
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when the database is down
     */
    public VisiblePage followRequests(long userId, boolean incoming, CursorPosition after, int limit) {
        if (accounts.isInactive(userId, FollowChecker.NO_TOKEN)) {
            return VisiblePage.EMPTY;
        }
        Page page = incoming ? relations.incomingRequests(userId, at(after), from(after), limit)
                : relations.list(Relation.REQUEST, userId, at(after), from(after), limit);
        return visible(page, new long[0]);
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
     * @param writer  the request's follow token, as {@link #writer} verified it: its user's own row is read from its
     *                shard
     * @return the page; {@code next} carries the last id of the page as cut ({@code followedAt} 0)
     */
    public VisiblePage commonFollowing(long a, long b, long afterId, int limit, long writer) {
        return commonFollowing(a, b, afterId, limit, writer, true);
    }

    /**
     * {@link #commonFollowing(long, long, long, int, long)}, on an I/O thread when {@code !mayBlock}.
     *
     * @return the page; {@code null} only when {@code !mayBlock} and memory cannot answer (or a token came)
     */
    public VisiblePage commonFollowing(long a, long b, long afterId, int limit, long writer, boolean mayBlock) {
        if (tokenNeedsStores(writer, mayBlock)) {
            return null; // a follow token: its user's own row is read from the shard
        }
        if (accounts.answer(a, b, FollowChecker.NO_TOKEN) == Answer.NO) {
            return VisiblePage.EMPTY;
        }
        FollowLists.CommonPage page = lists.commonFollowing(a, b, afterId, limit, writer, mayBlock);
        if (page == null) {
            return null;
        }
        long[] ids = accounts.withoutInactive(page.ids());
        CursorPosition next = page.hasMore() ? new CursorPosition(0, page.ids()[page.ids().length - 1]) : null;
        return new VisiblePage(ids, new long[ids.length], next);
    }

    /**
     * How many follow {@code userId} and whom it follows, less the inactive users taken out of the counts; zeros for
     * an inactive user. Each from memory when it holds it, else one statement on the user's shard of its group (for
     * the following count, its row).
     * With a follow token of another user {@code w}, the follower count is as {@code w}'s own write left it
     * ({@link FollowLists#followerCountAfterWrite}).
     *
     * @param userId positive user id
     * @param writer the request's follow token, as {@link #writer} verified it
     * @return the counts
     */
    public FollowLists.Counts counts(long userId, long writer) {
        return counts(userId, writer, true);
    }

    /**
     * {@link #counts(long, long)}, on an I/O thread when {@code !mayBlock}.
     *
     * @return the counts; {@code null} only when {@code !mayBlock} and memory cannot answer (or a token came)
     */
    public FollowLists.Counts counts(long userId, long writer, boolean mayBlock) {
        if (tokenNeedsStores(writer, mayBlock)) {
            return null; // a follow token: the follower side is corrected by a shard read
        }
        if (accounts.isInactive(userId, FollowChecker.NO_TOKEN)) {
            return FollowLists.Counts.NONE;
        }
        return lists.counts(userId, writer, checker.feedFresh(), mayBlock);
    }

    /**
     * People {@code userId} may know, best first, without inactive users; none for an inactive user.
     *
     * @param limit the most to return, {@code >= 1}
     */
    public List<Suggestions.Suggestion> suggestions(long userId, int limit) {
        return accounts.isInactive(userId, FollowChecker.NO_TOKEN) ? List.of() : suggestions.suggest(userId, limit);
    }

    /**
     * Whether {@code userId} is inactive now by the view of inactive users (no state row read): the change stream
     * serves no event naming such a user.
     *
     * @param userId any value
     * @return whether the view holds it
     */
    public boolean isInactive(long userId) {
        return accounts.isInactive(userId);
    }

    /**
     * Whether {@code userId} is erased now by the view of inactive users (no state row read): the change stream serves
     * nothing naming such a user but the {@code erase} event itself.
     *
     * @param userId any value
     * @return whether the view holds it as erased
     */
    public boolean isErased(long userId) {
        return accounts.isErased(userId);
    }

    /**
     * Whether {@code blockerId} blocks {@code blockedId}, from the blocker's row: a user's own change stream shows
     * nothing from or about a user who blocks its owner. May read a shard: call where blocking is allowed.
     *
     * @param blockerId positive user id
     * @param blockedId positive user id
     * @return whether the block stands
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when the blocker's database is down
     */
    public boolean blocks(long blockerId, long blockedId) {
        return relations.blocks(blockerId, blockedId);
    }
}
