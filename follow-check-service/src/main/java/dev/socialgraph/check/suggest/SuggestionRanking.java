package dev.socialgraph.check.suggest;

import dev.socialgraph.common.adjacency.AdjacencyArray;
import java.util.Arrays;

/**
 * Ranking of depth-2 suggestions ("people you may know", DESIGN.md 5): every account followed by the accounts a
 * user follows is a candidate; its score is the number of those accounts that follow it (mutual count).
 * Candidates that are the user or already followed are skipped. Order: mutual count descending, then id
 * ascending, so equal scores have one stable order across calls and instances.
 *
 * <p>Plain Java over primitive arrays: the neighbours' arrays are concatenated and sorted once (O(n log n),
 * n = total fan-out, at most 500 × 500), equal ids are counted in one pass, and a counting sort by mutual count
 * (at most the number of neighbours) keeps ids ascending within each count: no boxing, no comparator.
 */
final class SuggestionRanking {

    /**
     * Ranked suggestions.
     *
     * @param ids          suggested user ids, best first
     * @param mutualCounts aligned with {@code ids}, non-increasing
     */
    record Ranked(long[] ids, int[] mutualCounts) {

        static final Ranked EMPTY = new Ranked(new long[0], new int[0]);

        int size() {
            return ids.length;
        }

        /** The first {@code n} suggestions (all when fewer). */
        Ranked first(int n) {
            return n >= ids.length ? this : new Ranked(Arrays.copyOf(ids, n), Arrays.copyOf(mutualCounts, n));
        }
    }

    private SuggestionRanking() {
    }

    /**
     * Ranks the candidates reachable in two steps.
     *
     * @param self       the user asking, positive
     * @param following  whom {@code self} follows, sorted ascending (the whole row, not only the fan-out)
     * @param neighbours for each account of the fan-out, the ids it follows (any order, each id once per array)
     * @param max        the most suggestions to return, {@code >= 0}
     * @return at most {@code max} suggestions, best first
     */
    static Ranked rank(long self, long[] following, long[][] neighbours, int max) {
        if (max < 0) {
            throw new IllegalArgumentException("max must be >= 0, was " + max);
        }
        int total = 0;
        for (long[] n : neighbours) {
            total += n.length;
        }
        long[] all = new long[total];
        int at = 0;
        for (long[] n : neighbours) {
            System.arraycopy(n, 0, all, at, n.length);
            at += n.length;
        }
        Arrays.sort(all);

        // Run-length count of equal ids, skipping self and accounts already followed; ids stay ascending.
        long[] candidates = new long[total];
        int[] counts = new int[total];
        int m = 0;
        int maxCount = 0;
        for (int i = 0; i < total; ) {
            long id = all[i];
            int j = i + 1;
            while (j < total && all[j] == id) {
                j++;
            }
            if (id != self && !AdjacencyArray.contains(following, id)) {
                candidates[m] = id;
                counts[m] = j - i;
                maxCount = Math.max(maxCount, j - i);
                m++;
            }
            i = j;
        }
        if (m == 0 || max == 0) {
            return Ranked.EMPTY;
        }

        // Counting sort by mutual count, descending; stable, so ids stay ascending within a count.
        int[] start = new int[maxCount + 2];
        for (int i = 0; i < m; i++) {
            start[maxCount - counts[i] + 1]++;
        }
        for (int c = 1; c < start.length; c++) {
            start[c] += start[c - 1];
        }
        int size = Math.min(m, max);
        long[] ids = new long[size];
        int[] mutual = new int[size];
        for (int i = 0; i < m; i++) {
            int slot = start[maxCount - counts[i]]++;
            if (slot < size) {
                ids[slot] = candidates[i];
                mutual[slot] = counts[i];
            }
        }
        return new Ranked(ids, mutual);
    }
}
