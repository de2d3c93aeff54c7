package dev.socialgraph.common.adjacency;

import java.util.Arrays;
import java.util.Objects;

/**
 * An adjacency row after a change: the aligned arrays to write back, whether anything changed, and
 * for a single removal the {@code followedAt} of the removed edge.
 *
 * <p>{@code ids[i]} is a user id and {@code followedAt[i]} the epoch-millisecond time that edge was
 * created; both arrays have the same, exact length (they are stored as PostgreSQL {@code BIGINT[]}).
 * Their order is that of the operation that produced the result: ascending ids for
 * {@link AdjacencyArray}, ascending {@code (followedAt, id)} for {@link TimeOrderedAdjacency}.
 *
 * <p>When {@code changed} is {@code false} the arrays are the very instances that were passed in, so
 * a caller can skip the row update (and, on the write path, the version bump and the outbox event).
 * The arrays are never copied defensively: neither the operations nor their callers may modify them.
 *
 * @param ids               the row's ids after the operation
 * @param followedAt        the row's follow times after the operation, aligned with {@code ids}
 * @param changed           whether the row's content differs from the input
 * @param removedFollowedAt for a {@code remove} that removed an entry, that entry's follow time (the
 *                          unfollow event carries it); {@link #NO_TIME} for every other result
 */
public record Adjacency(long[] ids, long[] followedAt, boolean changed, long removedFollowedAt) {

    /** {@link #removedFollowedAt()} of a result that removed nothing. */
    public static final long NO_TIME = Long.MIN_VALUE;

    /**
     * Checks that both arrays are present and aligned.
     *
     * @throws NullPointerException     if an array is {@code null}
     * @throws IllegalArgumentException if the arrays differ in length
     */
    public Adjacency {
        Objects.requireNonNull(ids, "ids");
        Objects.requireNonNull(followedAt, "followedAt");
        if (ids.length != followedAt.length) {
            throw new IllegalArgumentException(
                    "ids and followedAt differ in length: " + ids.length + " != " + followedAt.length);
        }
    }

    static Adjacency unchanged(long[] ids, long[] followedAt) {
        return new Adjacency(ids, followedAt, false, NO_TIME);
    }

    static Adjacency changed(long[] ids, long[] followedAt) {
        return new Adjacency(ids, followedAt, true, NO_TIME);
    }

    /**
     * The number of entries in the row after the operation.
     *
     * @return {@code ids().length}
     */
    public int size() {
        return ids.length;
    }

    /** Content equality of the arrays (records compare arrays by reference otherwise). */
    @Override
    public boolean equals(Object o) {
        return o instanceof Adjacency other
                && changed == other.changed
                && removedFollowedAt == other.removedFollowedAt
                && Arrays.equals(ids, other.ids)
                && Arrays.equals(followedAt, other.followedAt);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(ids) + Arrays.hashCode(followedAt)) + Boolean.hashCode(changed);
    }

    /** A short form: a row can hold a million entries, so only the first few are shown. */
    @Override
    public String toString() {
        return "Adjacency[size=" + ids.length + ", changed=" + changed
                + (removedFollowedAt == NO_TIME ? "" : ", removedFollowedAt=" + removedFollowedAt)
                + ", head=" + Page.head(ids, followedAt) + "]";
    }
}
