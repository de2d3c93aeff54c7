package dev.socialgraph.check.accounts;

import dev.socialgraph.check.follow.Answer;
import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.store.account.AccountState;
import dev.socialgraph.store.account.InactiveUsers;

/**
 * The read path's one rule for inactive accounts (docs/account-lifecycle.md): an edge with a deactivated or erased
 * user at either end is invisible, to every viewer. The {@link InactiveUsers} view answers, except for a read that
 * carries a follow token of one of the two users: that caller may have just changed the user's state (an operator's
 * deactivation answers with the user's token), so that user's state row is read instead of the view, which may be one
 * poll behind.
 */
public final class AccountVisibility {

    /** Reads one user's state row ({@link AccountStates#state}). */
    @FunctionalInterface
    public interface StateReader {

        /**
         * @param userId positive user id
         * @return the user's state
         */
        AccountState state(long userId);
    }

    private final InactiveUsers view;
    private final StateReader states;
    private final boolean enabled;

    /**
     * @param view    the inactive users
     * @param states  reads a state row ({@link AccountStates#state}), for reads with a follow token
     * @param enabled {@code false} turns the rule off (only to measure its cost: inactive users are then shown)
     */
    public AccountVisibility(InactiveUsers view, StateReader states, boolean enabled) {
        this.view = view;
        this.states = states;
        this.enabled = enabled;
    }

    /**
     * The account rule as a layer of a read about an edge between {@code a} and {@code b}.
     *
     * @param a      positive user id
     * @param b      positive user id
     * @param writer the request's follow token, as {@link FollowChecker#writer} verified it: the state row of the user
     *               it names is read (so this may block then), the view answers for the other
     * @return {@link Answer#NO} when either user is inactive (the edge is invisible), {@link Answer#NEXT} when both
     *         are active (the next layer answers)
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when a state row must be read and its database
     *                                                                is down
     */
    public int answer(long a, long b, long writer) {
        return isInactive(a, writer) || isInactive(b, writer) ? Answer.NO : Answer.NEXT;
    }

    /**
     * Whether {@code userId} is inactive; reads its state row when the request's follow token is the user's own.
     *
     * @param userId positive user id
     * @param writer the request's follow token, as {@link FollowChecker#writer} verified it
     * @return whether the user is deactivated or erased
     */
    public boolean isInactive(long userId, long writer) {
        if (!enabled) {
            return false;
        }
        if (writer == userId) {
            return !states.state(userId).isActive();
        }
        return view.isInactive(userId);
    }

    /**
     * {@code ids} without the inactive users, by the view.
     *
     * @param ids any ids
     * @return {@code ids} itself when none is inactive, otherwise a shorter copy in the same order
     */
    public long[] withoutInactive(long[] ids) {
        return enabled ? view.withoutInactive(ids) : ids;
    }

    /**
     * How many of {@code ids} are inactive users by the view: what a count read from memory subtracts, as the shard's
     * count has them taken out.
     *
     * @param ids any ids
     * @return {@code 0..ids.length}; 0 without a look at the ids while no user is inactive
     */
    public int inactiveAmong(long[] ids) {
        if (!anyInactive()) {
            return 0;
        }
        int n = 0;
        for (long id : ids) {
            if (view.isInactive(id)) {
                n++;
            }
        }
        return n;
    }

    /**
     * Whether {@code userId} is inactive by the view (no state row read).
     *
     * @param userId any value
     * @return whether the view holds it
     */
    public boolean isInactive(long userId) {
        return enabled && view.isInactive(userId);
    }

    /**
     * Whether {@code userId} is erased by the view: the change stream serves nothing naming them but their erasure.
     *
     * @param userId any value
     * @return whether the view holds it as erased
     */
    public boolean isErased(long userId) {
        return enabled && view.isErased(userId);
    }

    /**
     * Whether {@code userId} is a protected account by the view (docs/decisions/0064-follow-requests.md): one volatile
     * read while no account is protected, one probe otherwise. Not turned off with the inactive-users rule.
     *
     * @param userId any value
     * @return whether the view holds it as protected
     */
    public boolean isProtected(long userId) {
        return view.isProtected(userId);
    }

    /**
     * Whether any user is inactive by the view: while none is, the per-id work can be skipped.
     *
     * @return whether the view holds an id
     */
    public boolean anyInactive() {
        return enabled && !view.isEmpty();
    }
}
