package dev.socialgraph.store.account;

import java.util.Arrays;
import java.util.function.LongConsumer;

/**
 * The in-process view of users whose account is deactivated or erased (docs/account-lifecycle.md), and of protected
 * accounts (docs/decisions/0064-follow-requests.md), fed by {@link AccountStateFeed} from the rows of
 * {@code account_states}. The check service asks it before every answer, so an inactive user is invisible within
 * one poll (250 ms) without waiting for the state change's job. One {@link InactiveSet} of every inactive id; a lookup
 * costs one volatile read while the set is empty and one probe otherwise.
 *
 * <p>{@link #apply} is called by one thread at a time (the feed holds the view's monitor); every other method by any
 * thread.
 */
public final class InactiveUsers {

    private final InactiveSet inactive = new InactiveSet();
    /** The erased among {@link #inactive}: erasure is for good, so an id is never removed. */
    private final InactiveSet erased = new InactiveSet();
    /** The protected accounts, active or not: a reader asks {@link #isInactive} first. */
    private final InactiveSet protectedAccounts = new InactiveSet();
    private final LongConsumer onErased;

    /** A view with no callback. */
    public InactiveUsers() {
        this(id -> { });
    }

    /**
     * @param onErased called with a user each time the view reads their erased state row (the check service drops
     *                 the user's entries from its in-process cache: the erasure deletes their rows, and nothing else
     *                 would evict them); idempotent, since a poll's overlap reads a row more than once
     */
    public InactiveUsers(LongConsumer onErased) {
        this.onErased = onErased;
    }

    /**
     * Whether no user is inactive: one volatile read, the hot path's only cost while that holds.
     *
     * @return whether the view is empty
     */
    public boolean isEmpty() {
        return inactive.isEmpty();
    }

    /**
     * How many users are inactive (deactivated or erased).
     *
     * @return {@code >= 0}
     */
    public int size() {
        return inactive.size();
    }

    /**
     * Whether {@code userId}'s account is deactivated or erased, as far as this view knows.
     *
     * @param userId any value; non-positive ids are never inactive
     * @return whether the user is invisible
     */
    public boolean isInactive(long userId) {
        return !inactive.isEmpty() && inactive.contains(userId);
    }

    /**
     * Whether {@code userId}'s account is erased, as far as this view knows: the change stream then serves nothing
     * naming them but their {@code erase} event.
     *
     * @param userId any value; non-positive ids are never erased
     * @return whether the user is erased
     */
    public boolean isErased(long userId) {
        return !erased.isEmpty() && erased.contains(userId);
    }

    /**
     * Whether {@code userId}'s account is protected, as far as this view knows: one volatile read while no account is.
     *
     * @param userId any value; non-positive ids are never protected
     * @return whether a new follower needs the account's approval, and its lists are its followers' to see
     */
    public boolean isProtected(long userId) {
        return !protectedAccounts.isEmpty() && protectedAccounts.contains(userId);
    }

    /**
     * How many accounts are protected.
     *
     * @return {@code >= 0}
     */
    public int protectedCount() {
        return protectedAccounts.size();
    }

    /**
     * Whether either user is inactive: an edge between them is invisible.
     *
     * @param a any value
     * @param b any value
     * @return whether {@code a} or {@code b} is inactive
     */
    public boolean hidesEither(long a, long b) {
        return !inactive.isEmpty() && (inactive.contains(a) || inactive.contains(b));
    }

    /**
     * {@code ids} without the inactive ones, in the same order.
     *
     * @param ids any ids
     * @return {@code ids} itself when none is inactive, otherwise a shorter copy
     */
    public long[] withoutInactive(long[] ids) {
        if (inactive.isEmpty()) {
            return ids;
        }
        long[] out = null;
        int n = 0;
        for (int i = 0; i < ids.length; i++) {
            boolean hidden = inactive.contains(ids[i]);
            if (hidden && out == null) {
                out = Arrays.copyOf(ids, ids.length);
                n = i;
            } else if (!hidden && out != null) {
                out[n++] = ids[i];
            }
        }
        return out == null ? ids : Arrays.copyOf(out, n);
    }

    /**
     * Applies one user's state as read from its state row, with a public account; one thread at a time.
     *
     * @param userId positive
     * @param state  the row's state
     */
    public void apply(long userId, AccountState state) {
        apply(userId, state, false);
    }

    /**
     * Applies one user's row as read; one thread at a time.
     *
     * @param userId           positive
     * @param state            the row's state
     * @param protectedAccount the row's protection
     */
    public void apply(long userId, AccountState state, boolean protectedAccount) {
        if (protectedAccount) {
            protectedAccounts.add(userId);
        } else {
            protectedAccounts.remove(userId);
        }
        if (state == AccountState.ACTIVE) {
            inactive.remove(userId);
            return;
        }
        inactive.add(userId);
        if (state == AccountState.ERASED) {
            erased.add(userId);
            onErased.accept(userId);
        }
    }
}
