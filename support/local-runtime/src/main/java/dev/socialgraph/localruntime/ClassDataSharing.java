package dev.socialgraph.localruntime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a service's runnable jar with a class-data sharing archive, so that every start after the first maps the
 * classes it loaded last time instead of reading, parsing and verifying them again: about half of a Spring Boot
 * service's start-up CPU, which on a machine whose cores a whole fleet shares is most of a fleet's start-up time.
 *
 * <p>The JVM can archive only classes it loads from plain jars on the class path, not from the jars nested in a
 * Spring Boot exec jar, so the jar is first extracted with Spring Boot's own tool
 * ({@code java -Djarmode=tools -jar <jar> extract}, Spring Boot's "Class Data Sharing" reference section), once per
 * build of the jar, into {@code <jar's directory>/cds/<size>-<modified>/}. That directory is never changed once it
 * exists (a rebuilt jar gets a new one), because the archive records the size and time of every jar it was made
 * from. The archive itself is the JVM's dynamic one ({@code -XX:+AutoCreateSharedArchive}, JDK 19 and newer): written
 * when a JVM that found none (or a stale one) exits normally, mapped by the next start; one file per set of JVM
 * options and runtime, because an archive made with other flags (compact object headers, for one) is not mapped.
 * A JVM killed by {@code SIGKILL} writes nothing; the next start is then an ordinary one.
 *
 * <p>Shared by the launcher ({@code ./graph up}) and the test harness ({@link ServiceProcess}).
 */
public final class ClassDataSharing {

    private static final String EXTRACTED = "cds";

    private ClassDataSharing() {
    }

    /**
     * The arguments that follow the JVM options to run {@code execJar}: {@code -XX:SharedArchiveFile=<archive>
     * -XX:+AutoCreateSharedArchive -jar <extracted jar>}, or plain {@code -jar <execJar>} when the jar cannot be
     * extracted (a read-only directory, a jar without Spring Boot's tools), so that a service always starts.
     *
     * @param execJar    a Spring Boot runnable jar
     * @param jvmOptions the JVM options the service is started with; they name the archive
     * @return the arguments, starting with the archive options or {@code -jar}
     */
    public static List<String> jarArguments(Path execJar, List<String> jvmOptions) {
        Path extracted;
        try {
            extracted = extracted(execJar);
        } catch (IOException | RuntimeException e) {
            return List.of("-jar", execJar.toString());
        }
        Path archive = extracted.resolve(archiveName(jvmOptions));
        return List.of("-XX:SharedArchiveFile=" + archive, "-XX:+AutoCreateSharedArchive",
                "-jar", extracted.resolve(execJar.getFileName()).toString());
    }

    /**
     * The extracted layout of {@code execJar} ({@code <name>.jar} and {@code lib/}), extracting it first when this
     * build of the jar has none. Safe when several processes ask at once: each extracts into a directory of its own
     * and the first to rename it into place wins.
     *
     * @param execJar a Spring Boot runnable jar
     * @return the directory holding the extracted jar
     * @throws IOException when the jar cannot be read or extracted
     */
    static Path extracted(Path execJar) throws IOException {
        Path root = execJar.toAbsolutePath().getParent().resolve(EXTRACTED);
        Path dir = root.resolve(Files.size(execJar) + "-" + Files.getLastModifiedTime(execJar).toMillis());
        if (Files.isRegularFile(dir.resolve(execJar.getFileName()))) {
            return dir;
        }
        Files.createDirectories(root);
        Path scratch = Files.createTempDirectory(root, "extracting-");
        try {
            extract(execJar, scratch);
            try {
                Files.move(scratch, dir, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                // the directory already there, complete: another process won the race
                if (!Files.isRegularFile(dir.resolve(execJar.getFileName()))) {
                    throw e;
                }
            }
            return dir;
        } finally {
            try {
                Directories.deleteRecursively(scratch);
            } catch (UncheckedIOException e) {
                // a scratch directory left in target/ costs disk, not correctness
            }
        }
    }

    private static void extract(Path execJar, Path destination) throws IOException {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djarmode=tools", "-jar", execJar.toAbsolutePath().toString(),
                "extract", "--force", "--destination", destination.toString());
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            if (!p.waitFor(2, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IOException("extracting " + execJar + " took over 2 minutes");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted extracting " + execJar, e);
        }
        if (p.exitValue() != 0 || !Files.isRegularFile(destination.resolve(execJar.getFileName()))) {
            throw new IOException("extracting " + execJar + " failed with exit " + p.exitValue());
        }
    }

    /** {@code <first 12 hex digits of SHA-256 over the runtime's version and the options>.jsa}. */
    static String archiveName(List<String> jvmOptions) {
        List<String> key = new ArrayList<>();
        key.add(System.getProperty("java.home"));
        key.add(Runtime.version().toString());
        key.addAll(jvmOptions);
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(String.join("\n", key).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 6) + ".jsa";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
