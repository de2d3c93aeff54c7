package dev.socialgraph.common.cursor;

/**
 * Which list a cursor pages; part of what makes a cursor from another list "foreign". Each kind has a
 * fixed one-byte code in the cursor's binary form, independent of declaration order.
 */
public enum ListKind {
    /** Whom the owner follows, newest first. */
    FOLLOWING(1),
    /** Who follows the owner, newest first. */
    FOLLOWERS(2),
    /** Whom the owner and another user both follow, ascending by id (position: {@code userId} only). */
    COMMON(3),
    /** Whom the owner blocks, newest first. */
    BLOCKING(4),
    /** Whom the owner mutes, newest first. */
    MUTING(5),
    /** Whom the owner follows who follow another user, newest first by the owner's follow. */
    KNOWN_FOLLOWERS(6),
    /** Whom the owner asked to follow and waits for, newest first. */
    REQUESTS_OUTGOING(7),
    /** Who asked to follow the owner (a protected account) and waits, newest first. */
    REQUESTS_INCOMING(8);

    private final byte code;

    ListKind(int code) {
        this.code = (byte) code;
    }

    byte code() {
        return code;
    }
}
