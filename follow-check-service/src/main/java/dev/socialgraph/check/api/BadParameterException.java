package dev.socialgraph.check.api;

/** A request parameter, path variable, header or body field is invalid; answered 400 naming {@link #parameter()}. */
final class BadParameterException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String parameter;

    BadParameterException(String parameter, String message) {
        super(message);
        this.parameter = parameter;
    }

    String parameter() {
        return parameter;
    }
}
