package dev.socialgraph.common.cursor;

/**
 * A cursor string that {@link CursorCodec#decode} rejects. Unchecked; it is the client's fault, so the
 * web layer answers 400 naming the {@code cursor} parameter. {@link #reason()} is a low-cardinality
 * value fit for a metric tag.
 */
public final class InvalidCursorException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** What is wrong with the cursor; the constants are in the order {@link CursorCodec#decode} checks. */
    public enum Reason {
        /** {@code null} or the empty string. */
        EMPTY,
        /** Not the length of any cursor this codec writes. */
        LENGTH,
        /** A character outside the base64url alphabet {@code A-Z a-z 0-9 - _}. */
        ENCODING,
        /** A format version this codec does not read. */
        VERSION,
        /** The signature does not match: changed, forged, or signed with another key. */
        TAMPERED,
        /** Genuine, but issued for another list kind or another owner. */
        FOREIGN
    }

    /** Serialized with the exception (it extends a {@code Serializable} type). */
    private final Reason reason;

    InvalidCursorException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    /**
     * What is wrong with the cursor, for a metric tag or a log line.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }
}
