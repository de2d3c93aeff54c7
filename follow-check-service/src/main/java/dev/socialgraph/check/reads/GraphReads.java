package dev.socialgraph.check.reads;

import dev.socialgraph.check.accounts.AccountVisibility;
import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.check.relations.RelationReads;
import org.springframework.stereotype.Service;

/**
 * The check service's reads, one call per question a caller asks, with the visibility rules every answer obeys:
 * <ul>
 *   <li><b>accounts</b> ({@link AccountVisibility}, docs/account-lifecycle.md): an edge with a deactivated or erased
 *       user at either end is invisible;</li>
 *   <li><b>blocks</b> ({@link RelationReads}): a follow that the followee's block forbids, whose removal by the
 *       block's event is still on its way, is not shown.</li>
 * </ul>
 * It composes the {@link FollowChecker} (bloom filter, in-process cache, Redis, shard) and the relation reads; the
 * HTTP handlers only translate requests and answers.
 *
 * <p><b>Threads.</b> A question that the in-process layers can answer is asked in two steps, so that a server can
 * answer it on the I/O thread that read the request: {@code ...InProcess} never blocks and returns the answer, or
 * says that only the blocking call can; that call, given what the first step found, may wait for Redis or a shard
 * database and so never runs on an I/O thread. Ids are positive 64-bit user ids; a follow token is the
 * {@code X-Follow-Token} header (or {@code null}) and proves a write of its own actor only (read-your-writes).
 * Thread-safe.
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

    private final FollowChecker checker;
    private final RelationReads relations;
    private final AccountVisibility accounts;

    /**
     * @param checker   the follow check through its layers
     * @param relations blocks and mutes, and the in-process filter of hidden pairs
     * @param accounts  the rule for inactive accounts
     */
    public GraphReads(FollowChecker checker, RelationReads relations, AccountVisibility accounts) {
        this.checker = checker;
        this.relations = relations;
        this.accounts = accounts;
    }

    /**
     * The first step of "does {@code followerId} visibly follow {@code followeeId}?": the answer when memory holds
     * it (the inactive users' view, the bloom filter, the in-process cache, the filter of hidden pairs), without any
     * I/O. Allocates nothing: the check's hot path.
     *
     * @param followerId  positive user id
     * @param followeeId  positive user id
     * @param followToken the {@code X-Follow-Token} header, or {@code null}
     * @return {@link #FOLLOWING} or {@link #NOT_FOLLOWING}; a negative value when only
     *         {@link #isFollowing(long, long, String, int)} can answer, which is then to be given this value
     */
    public int isFollowingInProcess(long followerId, long followeeId, String followToken) {
        int visibility = accounts.inProcess(followerId, followeeId, followToken);
        if (visibility == AccountVisibility.HIDDEN) {
            return NOT_FOLLOWING; // a deactivated or erased user's edges are invisible
        }
        if (visibility == AccountVisibility.ASK_SHARD) {
            return ASK_ACCOUNTS;
        }
        int known = checker.answerInProcess(followerId, followeeId, followToken);
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
     * @param followToken the same {@code X-Follow-Token} header, or {@code null}
     * @param inProcess   what {@link #isFollowingInProcess} returned for the same three arguments
     * @return {@code false} when either user is inactive, when there is no follow, and for a follow under the
     *         followee's block whose removal is still on its way
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when a database that must be read is down
     */
    public boolean isFollowing(long followerId, long followeeId, String followToken, int inProcess) {
        return switch (inProcess) {
            case FOLLOWING -> true;
            case NOT_FOLLOWING -> false;
            case ASK_ACCOUNTS -> !accounts.hides(followerId, followeeId, followToken)
                    && followsVisibly(followerId, followeeId, followToken);
            case ASK_BLOCK -> !relations.blocks(followeeId, followerId);
            case ASK_LAYERS -> followsVisibly(followerId, followeeId, followToken);
            default -> throw new IllegalArgumentException("not a value of isFollowingInProcess: " + inProcess);
        };
    }

    /** The check from Redis or the shard, a block of the follower by the followee hiding the follow; may block. */
    private boolean followsVisibly(long follower, long followee, String token) {
        // The followee's token: it may have just blocked the follower, before the filter has the block.
        return checker.isFollowing(follower, followee, token)
                && !((checker.isOwnWrite(followee, token) || relations.followMayBeBlocked(follower, followee))
                && relations.blocks(followee, follower));
    }
}
