package dev.socialgraph.reconciler.repair;

import java.util.EnumMap;
import java.util.Map;

/**
 * What one repair did: of a followee's follower side, or of the follows under one block.
 *
 * @param found           divergences found under the row lock, by kind (in-flight edges and pairs with an inactive
 *                        user left out)
 * @param repaired        whether the fix was committed ({@code false} when nothing was found)
 * @param skippedInFlight follower ids left alone because their event may still be in flight
 * @param skippedInactive pairs left alone because one of the two users is deactivated or erased
 *                        ({@link dev.socialgraph.store.account.AccountStateRepository#inactiveAmong}): follower ids of a followee's repair (all of them when the followee
 *                        is the inactive one), or blocks whose follows were not removed
 */
public record RepairResult(Map<Divergence, Integer> found, boolean repaired, int skippedInFlight,
                           int skippedInactive) {

    /** Nothing found, nothing skipped. */
    public static final RepairResult NONE = new RepairResult(Map.of(), false, 0, 0);

    public RepairResult {
        found = Map.copyOf(found);
    }

    /** A result that skipped no pair of an inactive user. */
    public RepairResult(Map<Divergence, Integer> found, boolean repaired, int skippedInFlight) {
        this(found, repaired, skippedInFlight, 0);
    }

    /**
     * Pairs left alone, nothing else: the followee or every pair was inactive.
     *
     * @param pairs pairs left alone, {@code >= 0}
     * @return {@link #NONE} when {@code pairs} is 0
     */
    public static RepairResult skippedInactive(int pairs) {
        return pairs == 0 ? NONE : new RepairResult(Map.of(), false, 0, pairs);
    }

    /** Number of divergences of {@code kind} found. */
    public int found(Divergence kind) {
        return found.getOrDefault(kind, 0);
    }

    /** Total divergences found. */
    public int totalFound() {
        return found.values().stream().mapToInt(Integer::intValue).sum();
    }

    /**
     * The follows under one block that were removed.
     *
     * @param removed follows removed, {@code >= 0}
     * @return {@link #NONE} when none was; otherwise {@code removed} {@link Divergence#FOLLOW_UNDER_BLOCK}s, repaired
     */
    public static RepairResult followsUnderBlock(int removed) {
        return removed == 0 ? NONE : new RepairResult(Map.of(Divergence.FOLLOW_UNDER_BLOCK, removed), true, 0);
    }

    static Map<Divergence, Integer> counts(int missing, int stale, int wrongCount, int duplicate) {
        Map<Divergence, Integer> m = new EnumMap<>(Divergence.class);
        put(m, Divergence.MISSING_FOLLOWER, missing);
        put(m, Divergence.STALE_FOLLOWER, stale);
        put(m, Divergence.WRONG_COUNT, wrongCount);
        put(m, Divergence.DUPLICATE, duplicate);
        return m;
    }

    private static void put(Map<Divergence, Integer> m, Divergence kind, int n) {
        if (n > 0) {
            m.put(kind, n);
        }
    }
}
