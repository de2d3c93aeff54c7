package dev.socialgraph.tools.importer;

import dev.socialgraph.common.edges.EdgeListParser;
import dev.socialgraph.common.relation.Relation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * What an import did, per relation ({@link #relations()}); the accessors without a relation ({@link #edgesRead()},
 * {@link #edgesImported()}, {@link #followingRows()}, ...) are the follows'.
 *
 * @param relations               every relation an edge list holds ({@link EdgeListParser#relations()}) → what the import did with its lines
 *                                (an unmodifiable copy in relation order is kept)
 * @param followsForbiddenByBlock distinct follows of the file dropped because a block stands between the two users
 *                                (either direction); counted in neither {@code edgesImported} nor the duplicates
 * @param users                   distinct users in the imported edges of every relation (sources and targets)
 * @param phases                  wall time per phase, in order
 * @param snapshot                the bloom snapshot (of follows) written after the import; empty when none was
 *                                asked for
 * @throws IllegalArgumentException when a relation is missing from {@code relations}
 */
public record ImportSummary(Map<Relation, RelationCounts> relations, long followsForbiddenByBlock, long users,
                            Map<String, Duration> phases, Optional<Snapshot> snapshot) {

    /** Copies the relations and the phases (keeping their order). */
    public ImportSummary {
        EnumMap<Relation, RelationCounts> copy = new EnumMap<>(Relation.class);
        copy.putAll(relations);
        if (copy.size() != EdgeListParser.relations().size()) {
            throw new IllegalArgumentException("every relation needs its counts, got " + copy.keySet());
        }
        relations = Collections.unmodifiableMap(copy);
        phases = new LinkedHashMap<>(phases);
        Objects.requireNonNull(snapshot, "snapshot");
    }

    /**
     * What the import did with one relation's lines.
     *
     * @param linesRead         edge lines of this relation in the file
     * @param selfLoopsSkipped  {@code a -> a} lines skipped (the service forbids them)
     * @param duplicatesSkipped repeated (source, target) pairs skipped
     * @param replaced          whether the stored edges of this relation were replaced by the file's: always for
     *                          follows; for blocks and mutes only when the file has a line of them, otherwise the
     *                          stored ones were left as they are and every count below is 0
     * @param edgesImported     distinct edges now stored on every side the relation keeps
     * @param followingRows     source rows written (users with at least one edge: followings, blocks, mutes)
     * @param followingChanged  stored source rows whose content changed, rows emptied because their user has no
     *                          edge in the file included (0 on a repeated import)
     * @param followerRows      target rows written (followers, blocked-by); 0 for mutes, which keep no reverse side
     * @param followerChanged   stored target rows whose content changed (0 on a repeated import)
     * @param celebrities       targets whose reverse side went to celebrity pages
     * @param celebrityPages    celebrity pages written
     */
    public record RelationCounts(long linesRead, long selfLoopsSkipped, long duplicatesSkipped, boolean replaced,
                                 long edgesImported, long followingRows, long followingChanged, long followerRows,
                                 long followerChanged, long celebrities, long celebrityPages) {

        /** A relation the file has no line of, whose stored edges were left as they are. */
        public static RelationCounts keptAsStored() {
            return new RelationCounts(0, 0, 0, false, 0, 0, 0, 0, 0, 0, 0);
        }
    }

    /** What the import did with {@code relation}'s lines. */
    public RelationCounts counts(Relation relation) {
        return relations.get(relation);
    }

    private RelationCounts follows() {
        return relations.get(Relation.FOLLOW);
    }

    /** Follow lines read from the file (lines of other relations: {@link #counts(Relation)}). */
    public long edgesRead() {
        return follows().linesRead();
    }

    /** Follow self-loops skipped. */
    public long selfLoopsSkipped() {
        return follows().selfLoopsSkipped();
    }

    /** Repeated follows skipped. */
    public long duplicatesSkipped() {
        return follows().duplicatesSkipped();
    }

    /** Distinct follows now stored on both sides. */
    public long edgesImported() {
        return follows().edgesImported();
    }

    /** Following rows written (users who follow someone). */
    public long followingRows() {
        return follows().followingRows();
    }

    /** Follower rows written (users with a follower). */
    public long followerRows() {
        return follows().followerRows();
    }

    /** Followees whose followers went to celebrity pages. */
    public long celebrities() {
        return follows().celebrities();
    }

    /** Follower celebrity pages written. */
    public long celebrityPages() {
        return follows().celebrityPages();
    }

    /** Following rows whose content changed (0 on a repeated import). */
    public long followingChanged() {
        return follows().followingChanged();
    }

    /** Follower rows whose content changed (0 on a repeated import). */
    public long followerChanged() {
        return follows().followerChanged();
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

    /** Imported edges of every relation per second over the whole import. */
    public double edgesPerSecond() {
        double seconds = Math.max(1e-3, total().toNanos() / 1e9);
        long edges = relations.values().stream().mapToLong(RelationCounts::edgesImported).sum();
        return edges / seconds;
    }

    /**
     * A human-readable multi-line report: a table with one column per relation ("-" where a count does not apply,
     * "kept" for a relation whose stored edges were left as they are), then the users, the snapshot and the phases.
     */
    public String report() {
        StringBuilder sb = new StringBuilder();
        row(sb, "relation", r -> r.wireName());
        row(sb, "lines read", r -> number(counts(r).linesRead()));
        row(sb, "self-loops skipped", r -> imported(r, RelationCounts::selfLoopsSkipped));
        row(sb, "duplicates skipped", r -> imported(r, RelationCounts::duplicatesSkipped));
        row(sb, "forbidden by block", r -> r == Relation.FOLLOW ? number(followsForbiddenByBlock) : "-");
        row(sb, "edges imported", r -> imported(r, RelationCounts::edgesImported));
        row(sb, "source rows", r -> imported(r, RelationCounts::followingRows));
        row(sb, "  changed", r -> imported(r, RelationCounts::followingChanged));
        row(sb, "target rows", r -> reverse(r, RelationCounts::followerRows));
        row(sb, "  changed", r -> reverse(r, RelationCounts::followerChanged));
        row(sb, "celebrities", r -> reverse(r, RelationCounts::celebrities));
        row(sb, "celebrity pages", r -> reverse(r, RelationCounts::celebrityPages));
        sb.append(String.format("users                %,d%n", users));
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

    private static void row(StringBuilder sb, String label, Function<Relation, String> cell) {
        sb.append(String.format("%-20s", label));
        for (Relation relation : EdgeListParser.relations()) {
            sb.append(String.format(" %14s", cell.apply(relation)));
        }
        sb.append(String.format("%n"));
    }

    private String imported(Relation relation, ToLongFunction<RelationCounts> count) {
        RelationCounts counts = counts(relation);
        return counts.replaced() ? number(count.applyAsLong(counts)) : "kept";
    }

    /** A count of the reverse side: none for a relation that keeps none (mutes). */
    private String reverse(Relation relation, ToLongFunction<RelationCounts> count) {
        return relation.keepsReverse() ? imported(relation, count) : "-";
    }

    private static String number(long value) {
        return String.format("%,d", value);
    }
}
