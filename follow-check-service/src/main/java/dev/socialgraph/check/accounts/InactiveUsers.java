package dev.socialgraph.check.accounts;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Arrays;
import java.util.function.LongConsumer;

/**
 * The in-process view of users whose account is deactivated or erased (docs/account-lifecycle.md): every read of the
 * check service asks it before answering, so an inactive user is invisible within one poll of {@link AccountStateFeed}
 * (250 ms), without waiting for the state change's job. Kept as an {@link InactiveSet}; the exact check pays one
 * volatile read while no user is inactive and one probe per id otherwise.
 *
 * <p>An erased user's entries in the in-process following cache are dropped when the view learns of the erasure (the
 * {@code erased} callback): the erasure deletes their rows, and nothing else would evict them.
 */
public final class InactiveUsers {

    private final InactiveSet set = new InactiveSet();
    private final LongConsumer erased;

    /**
     * @param erased   called with each user the view learns was erased (drops their in-process cache entries)
     * @param registry where {@code graph.check.accounts.inactive} (ids held) is published
     */
    public InactiveUsers(LongConsumer erased, MeterRegistry registry) {
        this.erased = erased;
        Gauge.builder("graph.check.accounts.inactive", set, InactiveSet::size)
                .description("Users whose account is deactivated or erased, as this instance's view holds them")
                .register(registry);
    }

    /**
     * Whether no user is inactive: one volatile read, the hot path's only cost while that holds.
     *
     * @return whether the view is empty
     */
    public boolean isEmpty() {
        return set.isEmpty();
    }

    /**
     * Whether {@code userId}'s account is deactivated or erased, as far as this instance knows.
     *
     * @param userId any value; non-positive ids are never inactive
     * @return whether the user is invisible
     */
    public boolean isInactive(long userId) {
        return !set.isEmpty() && set.contains(userId);
    }

    /**
     * Whether either user is inactive: an edge between them is invisible.
     *
     * @param a any value
     * @param b any value
     * @return whether {@code a} or {@code b} is inactive
     */
    public boolean hidesEither(long a, long b) {
        return !set.isEmpty() && (set.contains(a) || set.contains(b));
    }

    /**
     * {@code ids} without the inactive ones, in the same order.
     *
     * @param ids any ids
     * @return {@code ids} itself when none is inactive, otherwise a shorter copy
     */
    public long[] withoutInactive(long[] ids) {
        if (set.isEmpty()) {
            return ids;
        }
        long[] out = null;
        int n = 0;
        for (int i = 0; i < ids.length; i++) {
            boolean inactive = set.contains(ids[i]);
            if (inactive && out == null) {
                out = Arrays.copyOf(ids, ids.length);
                n = i;
            } else if (!inactive && out != null) {
                out[n++] = ids[i];
            }
        }
        return out == null ? ids : Arrays.copyOf(out, n);
    }

    /**
     * Applies one user's state as read from its state row; called by one thread at a time (the feed's).
     *
     * @param userId positive
     * @param state  0 active, 1 deactivated, 2 erased ({@code account_states.state})
     */
    public void apply(long userId, int state) {
        if (state == AccountStates.ACTIVE) {
            set.remove(userId);
            return;
        }
        set.add(userId);
        if (state == AccountStates.ERASED) {
            erased.accept(userId);
        }
    }
}
