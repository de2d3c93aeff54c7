package dev.socialgraph.bloom;

import java.io.IOException;
import java.nio.file.Path;

/** A snapshot file that is truncated, corrupt or not a snapshot at all; the reader falls back to an older one. */
public final class CorruptSnapshotException extends IOException {

    private static final long serialVersionUID = 1L;

    /**
     * @param file   the rejected file
     * @param reason what is wrong with it
     * @param cause  the underlying failure, or {@code null}
     */
    public CorruptSnapshotException(Path file, String reason, Throwable cause) {
        super("Bloom snapshot " + file + " rejected: " + reason, cause);
    }
}
