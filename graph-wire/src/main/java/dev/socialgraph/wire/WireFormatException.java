package dev.socialgraph.wire;

/**
 * A body does not have the shape its codec reads: a request's (a service answers 400 problem+json naming
 * {@link #field}, as graph-web maps it) or an answer's (a client treats the answer as unusable).
 */
public final class WireFormatException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String field;

    /**
     * @param field   the member at fault as the sender wrote it ({@code body}, {@code pairs}, {@code pairs[3].followerId})
     * @param message what is wrong, naming the field too
     */
    public WireFormatException(String field, String message) {
        super(message);
        this.field = field;
    }

    /** The member at fault. */
    public String field() {
        return field;
    }
}
