package dev.socialgraph.tools.edges;

import dev.socialgraph.common.edges.EdgeListFormatException;
import dev.socialgraph.common.edges.EdgeListParser;
import dev.socialgraph.common.relation.Relation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.function.LongConsumer;

/**
 * Reads a whole edge list into the importer's arrays, one {@link EdgeList} per relation. The format (SNAP's
 * {@code source<TAB>target}, an optional relation column, comments, gzip) and its errors are graph-common's
 * {@link EdgeListParser}; what this class adds is the importer's time rule.
 *
 * <p>Edges carry no time in these files, so each gets a synthetic, deterministic time:
 * {@link #BASE_FOLLOWED_AT} plus its 0-based edge index in the file ({@link EdgeListParser#edgeIndex()}), in
 * milliseconds, one counter over the lines of every relation. File order is therefore arrival order, and re-reading
 * the same file gives the same times (a re-import changes nothing).
 */
public final class EdgeListReader {

    /** 2020-01-01T00:00:00Z in epoch ms: the time of a file's first edge. */
    public static final long BASE_FOLLOWED_AT = 1_577_836_800_000L;

    private EdgeListReader() {
    }

    /**
     * Reads the follows of {@code file} in file order (self-loops and duplicates included; see
     * {@link EdgeList#removeSelfLoopsAndDuplicates()}): the lines without a third column or with {@code follow}.
     * Lines of other relations are validated but not in the list; their edges still take their index, so each
     * follow's time is the same as in {@link #readRelations}.
     *
     * @param progress called now and then with the number of (compressed) bytes read so far; may be a no-op
     * @return the follows, each at {@link #BASE_FOLLOWED_AT} + its edge index in the file (ms)
     * @throws EdgeListFormatException at the first malformed line, naming file, line number and line
     * @throws IOException             when the file cannot be read
     */
    public static EdgeList read(Path file, LongConsumer progress) throws IOException {
        return readRelations(file, progress).get(Relation.FOLLOW);
    }

    /**
     * Reads every edge of {@code file} in file order, one list per relation (self-loops and duplicates included).
     *
     * @param progress called now and then with the number of (compressed) bytes read so far; may be a no-op
     * @return every relation an edge list holds ({@link EdgeListParser#relations()}) mapped to its edges, an empty list when the file has no
     *         line of it; each edge at {@link #BASE_FOLLOWED_AT} + its edge index in the whole file (ms)
     * @throws EdgeListFormatException at the first malformed line, naming file, line number, line and the
     *                                 accepted relations
     * @throws IOException             when the file cannot be read
     */
    public static EnumMap<Relation, EdgeList> readRelations(Path file, LongConsumer progress) throws IOException {
        long size = Files.size(file);
        EnumMap<Relation, EdgeList> edges = new EnumMap<>(Relation.class);
        for (Relation relation : EdgeListParser.relations()) {
            // Follows are nearly every line of a real graph: size them for the file; the others grow as needed.
            edges.put(relation, new EdgeList(relation == Relation.FOLLOW
                    ? (int) Math.min(Integer.MAX_VALUE - 8, Math.max(1024, size / 8)) : 16));
        }
        try (EdgeListParser parser = EdgeListParser.open(file)) {
            while (parser.next()) {
                long index = parser.edgeIndex();
                if ((index & 0xFFFF) == 0) {
                    progress.accept(parser.bytesRead());
                }
                edges.get(parser.relation()).add(parser.source(), parser.target(), BASE_FOLLOWED_AT + index);
            }
        }
        progress.accept(size);
        return edges;
    }
}
