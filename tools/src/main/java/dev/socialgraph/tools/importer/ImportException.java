package dev.socialgraph.tools.importer;

/**
 * The import stopped before writing anything: the file's graph breaks a rule of the service (e.g. the following
 * cap), or the event topic's offsets for the bloom snapshot could not be read. The message names the bad input.
 */
public final class ImportException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    ImportException(String message) {
        super(message);
    }
}
