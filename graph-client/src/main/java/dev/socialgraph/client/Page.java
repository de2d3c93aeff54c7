package dev.socialgraph.client;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One page of a list answered by the check service: its items in the list's order, and the cursor of the next page.
 *
 * @param items      the page's items, in the list's order (newest first for following, followers, blocking and
 *                   muting; ascending by id for common following); may hold fewer than the limit asked even when
 *                   more follow (the followers list leaves out users the owner blocks); unmodifiable
 * @param nextCursor the opaque cursor to pass for the next page, or {@code null} on the last page
 * @param <T>        the item type
 */
public record Page<T>(List<T> items, String nextCursor) {

    /**
     * @param items      the page's items
     * @param nextCursor the next page's cursor, or {@code null}
     */
    public Page {
        items = List.copyOf(Objects.requireNonNull(items, "items"));
    }

    /**
     * Whether another page follows.
     *
     * @return {@code nextCursor() != null}
     */
    public boolean hasNext() {
        return nextCursor != null;
    }

    /**
     * The next page's cursor.
     *
     * @return the cursor, or empty on the last page
     */
    public Optional<String> next() {
        return Optional.ofNullable(nextCursor);
    }
}
