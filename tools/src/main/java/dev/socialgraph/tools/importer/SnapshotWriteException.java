package dev.socialgraph.tools.importer;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The graph was imported (every database holds the file's graph) but its bloom snapshot could not be written. The
 * check service then builds its filter from a shard scan, or from an older snapshot plus replay, as without one.
 */
public final class SnapshotWriteException extends IOException {

    private static final long serialVersionUID = 1L;

    SnapshotWriteException(Path directory, IOException cause) {
        super("graph imported, but its bloom snapshot could not be written to " + directory + ": "
                + cause.getMessage(), cause);
    }
}
