package dev.socialgraph.localruntime;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The repository's root directory: the one holding the Maven wrapper ({@code mvnw}) and the root {@code pom.xml}. Tests
 * and programs run from a module's directory ({@code <root>/gateway}, {@code <root>/support/e2e}, ...) find the
 * services' jars ({@code <root>/<module>/target}), the documents ({@code <root>/docs}) and the datasets
 * ({@code <root>/../shared}) from here, at whatever depth their own module sits, rather than by counting {@code ..}.
 */
public final class RepositoryRoot {

    private RepositoryRoot() {
    }

    /**
     * The repository root above the working directory ({@code user.dir}; Surefire and Failsafe run a module's tests in
     * the module's directory).
     *
     * @return the root, absolute and normalized
     * @throws IllegalStateException when neither the working directory nor any directory above it holds {@code mvnw}
     *                               and {@code pom.xml}
     */
    public static Path find() {
        return above(Path.of(""));
    }

    /**
     * The repository root at or above {@code start}.
     *
     * @param start a directory inside the repository, relative to the working directory or absolute
     * @return the root, absolute and normalized
     * @throws IllegalStateException when neither {@code start} nor any directory above it holds {@code mvnw} and
     *                               {@code pom.xml}
     */
    public static Path above(Path start) {
        Path absolute = start.toAbsolutePath().normalize();
        for (Path dir = absolute; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "no repository root (a directory with mvnw and pom.xml) at or above " + absolute);
    }
}
