package dev.socialgraph.tools.importer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What an import did.
 *
 * @param edgesRead          edge lines read from the file
 * @param selfLoopsSkipped   {@code a -> a} lines skipped (the service forbids self-follows)
 * @param duplicatesSkipped  repeated (follower, followee) pairs skipped
 * @param edgesImported      distinct edges now stored on both sides
 * @param users              distinct users in the imported graph (followers and followees of its edges)
 * @param followingRows      following rows written (users who follow someone)
 * @param followerRows       follower rows written (users with a follower)
 * @param celebrities        followees whose followers went to celebrity pages
 * @param celebrityPages     celebrity pages written
 * @param followingChanged   following rows whose content changed (0 on a repeated import)
 * @param followerChanged    follower rows whose content changed (0 on a repeated import)
 * @param phases             wall time per phase, in order
 * @param snapshot           the bloom snapshot written after the import; empty when none was asked for
 */
public record ImportSummary(long edgesRead, long selfLoopsSkipped, long duplicatesSkipped, long edgesImported,
                            long users, long followingRows, long followerRows, long celebrities, long celebrityPages,
                            long followingChanged, long followerChanged, Map<String, Duration> phases,
                            Optional<Snapshot> snapshot) {

    /** Copies the phases (keeping their order). */
    public ImportSummary {
        phases = new LinkedHashMap<>(phases);
        Objects.requireNonNull(snapshot, "snapshot");
    }

    /**
     * The bloom snapshot an import wrote.
     *
     * @param file          the snapshot file
     * @param bytes         its size in bytes
     * @param edges         edges put into its filter (every imported edge)
     * @param expectedEdges edges the filter is sized for
     * @param fpp           target false-positive probability at {@code expectedEdges}
     * @param firstShard    first logical shard covered (0)
     * @param lastShard     last logical shard covered ({@code logicalShards - 1})
     * @param topic         the event topic of the offsets
     * @param nextOffsets   partition → end offset read before the import's first commit (a sorted copy is kept)
     */
    public record Snapshot(Path file, long bytes, long edges, long expectedEdges, double fpp, int firstShard,
                           int lastShard, String topic, Map<Integer, Long> nextOffsets) {

        /** Copies the offsets. */
        public Snapshot {
            nextOffsets = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(nextOffsets));
        }

        /** Events on the topic before the import, summed over partitions (end offsets; 0 on a fresh topic). */
        public long eventsBefore() {
            return nextOffsets.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /** Total wall time. */
    public Duration total() {
        return phases.values().stream().reduce(Duration.ZERO, Duration::plus);
    }

    /** Imported edges per second over the whole import. */
    public double edgesPerSecond() {
        double seconds = Math.max(1e-3, total().toNanos() / 1e9);
        return edgesImported / seconds;
    }

    /** A human-readable multi-line report. */
    public String report() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("edges read           %,d%n", edgesRead));
        sb.append(String.format("self-loops skipped   %,d%n", selfLoopsSkipped));
        sb.append(String.format("duplicates skipped   %,d%n", duplicatesSkipped));
        sb.append(String.format("edges imported       %,d%n", edgesImported));
        sb.append(String.format("users                %,d%n", users));
        sb.append(String.format("following rows       %,d (%,d changed)%n", followingRows, followingChanged));
        sb.append(String.format("follower rows        %,d (%,d changed)%n", followerRows, followerChanged));
        sb.append(String.format("celebrities          %,d in %,d pages%n", celebrities, celebrityPages));
        snapshot.ifPresent(s -> {
            sb.append(String.format("bloom snapshot       %s%n", s.file()));
            sb.append(String.format("snapshot size        %,d bytes, %,d edges (sized for %,d at fpp %s), shards %d..%d%n",
                    s.bytes(), s.edges(), s.expectedEdges(), s.fpp(), s.firstShard(), s.lastShard()));
            sb.append(String.format("snapshot offsets     %s, %d partitions, %,d events before the import%n", s.topic(),
                    s.nextOffsets().size(), s.eventsBefore()));
        });
        phases.forEach((phase, d) -> sb.append(String.format("%-20s %,.2f s%n", phase, d.toNanos() / 1e9)));
        sb.append(String.format("total                %,.2f s, %,.0f edges/s%n", total().toNanos() / 1e9, edgesPerSecond()));
        return sb.toString();
    }
}
