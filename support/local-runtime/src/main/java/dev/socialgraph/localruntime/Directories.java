package dev.socialgraph.localruntime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Deletes the temporary directories the embedded servers write to. */
public final class Directories {

    private Directories() {
    }

    /**
     * Deletes a directory tree, children first; a missing directory is not an error.
     *
     * @param root the directory (or a file)
     * @throws UncheckedIOException when something in it cannot be deleted
     */
    public static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete " + root, e);
        }
    }
}
