package dev.socialgraph.common.adjacency;

import java.util.Arrays;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * One newest-first page of a list: items in the order {@code (followedAt desc, id desc)}.
 *
 * <p>{@code ids[i]} is a user id and {@code followedAt[i]} the epoch-millisecond time of that follow,
 * aligned and exactly sized. The position of the last item, {@code (lastFollowedAt(), lastId())}, is
 * what the next request's cursor carries; pass it back as {@code (cursorFollowedAt, cursorId)} to get
 * the items strictly after it. The first page is requested with {@code cursorId == }{@link #START}.
 *
 * <p>The arrays are not copied defensively; do not modify them.
 *
 * @param ids        user ids, newest first
 * @param followedAt follow times in epoch milliseconds, aligned with {@code ids}, non-increasing
 * @param hasMore    whether items remain after the last one of this page
 */
public record Page(long[] ids, long[] followedAt, boolean hasMore) {

    /**
     * The {@code cursorId} that asks for the first page ({@code cursorFollowedAt} is then ignored).
     * Zero is never a user id, so it cannot collide with a real position.
     */
    public static final long START = 0L;

    /**
     * The list's order: whether the item {@code (followedAt1, id1)} comes before {@code (followedAt2, id2)} on a
     * newest-first page (a later follow first, a larger id first among follows of the same millisecond).
     *
     * @param followedAt1 epoch ms
     * @param id1         user id
     * @param followedAt2 epoch ms
     * @param id2         user id
     * @return whether the first is newer
     */
    public static boolean isNewer(long followedAt1, long id1, long followedAt2, long id2) {
        return Pairs.compare(followedAt1, id1, followedAt2, id2) > 0;
    }

    /**
     * Checks that both arrays are present and aligned.
     *
     * @throws NullPointerException     if an array is {@code null}
     * @throws IllegalArgumentException if the arrays differ in length
     */
    public Page {
        Objects.requireNonNull(ids, "ids");
        Objects.requireNonNull(followedAt, "followedAt");
        if (ids.length != followedAt.length) {
            throw new IllegalArgumentException(
                    "ids and followedAt differ in length: " + ids.length + " != " + followedAt.length);
        }
    }

    /**
     * The number of items on this page, at most the requested limit.
     *
     * @return {@code ids().length}
     */
    public int size() {
        return ids.length;
    }

    /**
     * Whether this page has no items (the list is exhausted, or the limit was 0).
     *
     * @return {@code size() == 0}
     */
    public boolean isEmpty() {
        return ids.length == 0;
    }

    /**
     * The id of the last (oldest) item: the {@code userId} of the next cursor.
     *
     * @return a user id
     * @throws NoSuchElementException if the page is empty
     */
    public long lastId() {
        requireNotEmpty();
        return ids[ids.length - 1];
    }

    /**
     * The follow time of the last (oldest) item: the {@code followedAt} of the next cursor.
     *
     * @return epoch milliseconds
     * @throws NoSuchElementException if the page is empty
     */
    public long lastFollowedAt() {
        requireNotEmpty();
        return followedAt[followedAt.length - 1];
    }

    private void requireNotEmpty() {
        if (ids.length == 0) {
            throw new NoSuchElementException("empty page has no last item");
        }
    }

    /** Content equality of the arrays (records compare arrays by reference otherwise). */
    @Override
    public boolean equals(Object o) {
        return o instanceof Page other
                && hasMore == other.hasMore
                && Arrays.equals(ids, other.ids)
                && Arrays.equals(followedAt, other.followedAt);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(ids) + Arrays.hashCode(followedAt)) + Boolean.hashCode(hasMore);
    }

    @Override
    public String toString() {
        return "Page[size=" + ids.length + ", hasMore=" + hasMore + ", head=" + head(ids, followedAt) + "]";
    }

    /** The first few {@code id@followedAt} entries, for messages about arrays of any length. */
    static String head(long[] ids, long[] followedAt) {
        int shown = Math.min(ids.length, 8);
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < shown; i++) {
            s.append(i == 0 ? "" : ", ").append(ids[i]).append('@').append(followedAt[i]);
        }
        return s.append(shown < ids.length ? ", …]" : "]").toString();
    }
}
