package dev.socialgraph.common.event;

/**
 * A {@code follow-events} value that is not a valid {@link FollowEvent}: unparseable JSON, a missing
 * field, a field of the wrong type or an impossible value. Unchecked. Retrying cannot help, so the
 * consumer sends the record to {@code follow-events.DLT} with this message.
 */
public final class MalformedEventException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what is wrong, naming the field where there is one
     * @param cause   the parser's or validator's exception, or {@code null}
     */
    public MalformedEventException(String message, Throwable cause) {
        super(message, cause);
    }
}
