package dev.socialgraph.tools.importer;

/** The file's graph breaks a rule of the service (e.g. the following cap); nothing was written. */
public final class ImportException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    ImportException(String message) {
        super(message);
    }
}
