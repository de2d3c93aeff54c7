package dev.socialgraph.common.cursor;

/**
 * The position in a list of the last item a client received: the next page starts strictly after it.
 * For the newest-first lists the order is {@code (followedAt desc, userId desc)}; for
 * {@link ListKind#COMMON}, ascending {@code userId} and {@code followedAt} is {@code 0}.
 *
 * @param followedAt the item's follow time, epoch ms
 * @param userId     the item's user id, positive
 */
public record CursorPosition(long followedAt, long userId) {

    /**
     * Checks that the position names a user.
     *
     * @throws IllegalArgumentException if {@code userId <= 0}
     */
    public CursorPosition {
        if (userId <= 0) {
            throw new IllegalArgumentException("userId must be a positive user id, was " + userId);
        }
    }
}
