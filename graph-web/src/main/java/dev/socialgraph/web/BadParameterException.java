package dev.socialgraph.web;

/**
 * A request parameter, path variable, header or body field is invalid; {@link ProblemAdvice} answers 400
 * problem+json naming it in {@code parameter}.
 */
public final class BadParameterException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String parameter;

    /**
     * @param parameter the input's name as the client sent it ({@code limit}, {@code ids}, {@code firstShard})
     * @param message   what is wrong, shown as the problem's {@code detail}; names the parameter too
     */
    public BadParameterException(String parameter, String message) {
        super(message);
        this.parameter = parameter;
    }

    /** The bad input's name. */
    public String parameter() {
        return parameter;
    }
}
