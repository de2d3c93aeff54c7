package dev.socialgraph.common.id;

/**
 * A value that should be a user id is not one. Unchecked: it reports bad input, which the web layer
 * turns into a 400 {@code application/problem+json} naming {@link #field()}.
 */
public final class InvalidUserIdException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** Serialized with the exception (it extends a {@code Serializable} type). */
    private final String field;

    /**
     * Creates the exception.
     *
     * @param field   the name of the offending field or path variable
     * @param message what is wrong, naming the field
     */
    public InvalidUserIdException(String field, String message) {
        super(message);
        this.field = field;
    }

    /**
     * The name of the offending field, for the problem detail's {@code field} member.
     *
     * @return the name of the offending field or path variable, as given by the caller of
     *         {@link UserIds#parse} or {@link UserIds#requirePositive}
     */
    public String field() {
        return field;
    }
}
