package dev.socialgraph.bloom;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A directory of bloom snapshots, named {@code edges-<first>-<last>-<createdAt>.gbf} (shards zero-padded to 5
 * digits, creation time in epoch ms zero-padded to 15), so the newest of a shard range is found from the names.
 *
 * <p>{@link #write} is atomic: the file is written under a temporary name in the same directory, forced to disk,
 * renamed with {@link StandardCopyOption#ATOMIC_MOVE} and the directory forced, so a reader never sees half a
 * snapshot (a crash leaves at most a {@code .tmp} file, which readers ignore). Afterwards only the newest
 * {@code keep} snapshots of that shard range stay. {@link #newestCovering} reads candidates newest first and skips
 * (reports) corrupt ones, so one bad file costs freshness, not availability.
 */
public final class SnapshotStore {

    private static final Pattern NAME = Pattern.compile("edges-(\\d{5})-(\\d{5})-(\\d{15})\\.gbf");

    private final Path directory;
    private final int keep;

    /**
     * @param directory where snapshots live; created when missing
     * @param keep      newest snapshots kept per shard range, {@code >= 1}
     */
    public SnapshotStore(Path directory, int keep) {
        if (keep < 1) {
            throw new IllegalArgumentException("keep must be >= 1, was " + keep);
        }
        this.directory = directory;
        this.keep = keep;
    }

    /** The directory. */
    public Path directory() {
        return directory;
    }

    /**
     * Writes a snapshot atomically, then deletes all but the newest {@code keep} of its shard range.
     *
     * @param snapshot the snapshot
     * @return the file written
     * @throws IOException when the directory cannot be written; no partial snapshot is left under a final name
     */
    public Path write(BloomSnapshot snapshot) throws IOException {
        Files.createDirectories(directory);
        String name = String.format("edges-%05d-%05d-%015d.gbf", snapshot.firstShard(), snapshot.lastShard(),
                snapshot.createdAt());
        Path target = directory.resolve(name);
        Path temp = Files.createTempFile(directory, name + ".", ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
                 OutputStream out = java.nio.channels.Channels.newOutputStream(channel)) {
                SnapshotFormat.write(snapshot, out);
                channel.force(true);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
        forceDirectory();
        prune(snapshot.firstShard(), snapshot.lastShard());
        return target;
    }

    /**
     * Reads and verifies one snapshot file.
     *
     * @param file a snapshot file
     * @return the snapshot
     * @throws CorruptSnapshotException when it is truncated, corrupt or not a snapshot
     * @throws IOException              when it cannot be read
     */
    public static BloomSnapshot read(Path file) throws IOException {
        return SnapshotFormat.read(file);
    }

    /**
     * The newest valid snapshot covering {@code first..last} of {@code shards} logical shards, newest by creation
     * time; corrupt ones are skipped and reported.
     *
     * @param shards   logical shard count
     * @param first    first logical shard needed
     * @param last     last logical shard needed
     * @param rejected told about each file skipped and why (e.g. to log it)
     * @return the snapshot, or empty when none is valid
     * @throws IOException when the directory cannot be listed
     */
    public Optional<BloomSnapshot> newestCovering(int shards, int first, int last,
                                                  BiConsumer<Path, IOException> rejected) throws IOException {
        for (Entry e : list()) {
            if (e.first > first || e.last < last) {
                continue;
            }
            try {
                BloomSnapshot s = read(e.file);
                if (s.covers(shards, first, last)) {
                    return Optional.of(s);
                }
                rejected.accept(e.file, new CorruptSnapshotException(e.file, "header covers " + s.firstShard()
                        + ".." + s.lastShard() + " of " + s.logicalShards() + ", not " + first + ".." + last
                        + " of " + shards, null));
            } catch (IOException ex) {
                rejected.accept(e.file, ex);
            }
        }
        return Optional.empty();
    }

    /**
     * Creation time of the newest snapshot file whose name covers {@code first..last}, without reading it (cheap
     * enough to poll; the file may still turn out corrupt when read).
     *
     * @param first first logical shard needed
     * @param last  last logical shard needed
     * @return epoch ms, or empty when there is none
     * @throws IOException when the directory cannot be listed
     */
    public OptionalLong newestCreatedAt(int first, int last) throws IOException {
        for (Entry e : list()) {
            if (e.first <= first && last <= e.last) {
                return OptionalLong.of(e.createdAt);
            }
        }
        return OptionalLong.empty();
    }

    /**
     * Snapshot files of the directory, newest first (by the creation time in their names).
     *
     * @return the files; empty when the directory does not exist
     * @throws IOException when it cannot be listed
     */
    public List<Path> files() throws IOException {
        return list().stream().map(Entry::file).toList();
    }

    private record Entry(Path file, int first, int last, long createdAt) {
    }

    private List<Entry> list() throws IOException {
        List<Entry> out = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return out;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "edges-*.gbf")) {
            for (Path f : files) {
                Matcher m = NAME.matcher(f.getFileName().toString());
                if (m.matches()) {
                    out.add(new Entry(f, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                            Long.parseLong(m.group(3))));
                }
            }
        }
        out.sort(Comparator.comparingLong(Entry::createdAt).reversed());
        return out;
    }

    private void prune(int first, int last) throws IOException {
        int seen = 0;
        for (Entry e : list()) {
            if (e.first == first && e.last == last && ++seen > keep) {
                Files.deleteIfExists(e.file);
            }
        }
    }

    private void forceDirectory() {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // Some file systems cannot open a directory for fsync; the rename is still atomic there.
        }
    }
}
