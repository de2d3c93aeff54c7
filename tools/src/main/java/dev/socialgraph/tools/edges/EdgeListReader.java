package dev.socialgraph.tools.edges;

import dev.socialgraph.common.relation.Relation;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.function.LongConsumer;
import java.util.zip.GZIPInputStream;

/**
 * Reads a directed edge list in the format of the project's datasets (SNAP): one edge per line,
 * {@code source<TAB>target} (one or more spaces also separate), optionally followed by a third column naming the
 * edge's relation by its wire name ({@link Relation#wireName()}: {@code follow}, {@code block} or {@code mute},
 * lower case; no third column means {@code follow}, so every SNAP file is a follow graph). Lines starting with
 * {@code #} or {@code %} are comments, blank lines are skipped, CRLF is accepted; gzip is detected by its magic
 * bytes, not the name. Any other third column (a number, an unknown word) or a fourth column is a malformed line.
 *
 * <p>Edges carry no time in these files, so each gets a synthetic, deterministic time:
 * {@link #BASE_FOLLOWED_AT} plus its 0-based edge index in the file, in milliseconds, one counter over the lines
 * of every relation. File order is therefore arrival order, and re-reading the same file gives the same times (a
 * re-import changes nothing).
 */
public final class EdgeListReader {

    /** 2020-01-01T00:00:00Z in epoch ms: the time of a file's first edge. */
    public static final long BASE_FOLLOWED_AT = 1_577_836_800_000L;

    /** The accepted third columns, for messages: "follow, block or mute". */
    static final String RELATION_NAMES = relationNames();

    private static final Relation[] RELATIONS = Relation.values();

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
     * @return every relation of {@link Relation#values()} mapped to its edges, an empty list when the file has no
     *         line of it; each edge at {@link #BASE_FOLLOWED_AT} + its edge index in the whole file (ms)
     * @throws EdgeListFormatException at the first malformed line, naming file, line number, line and the
     *                                 accepted relations
     * @throws IOException             when the file cannot be read
     */
    public static EnumMap<Relation, EdgeList> readRelations(Path file, LongConsumer progress) throws IOException {
        long size = Files.size(file);
        EnumMap<Relation, EdgeList> edges = new EnumMap<>(Relation.class);
        for (Relation relation : RELATIONS) {
            // Follows are nearly every line of a real graph: size them for the file; the others grow as needed.
            edges.put(relation, new EdgeList(relation == Relation.FOLLOW
                    ? (int) Math.min(Integer.MAX_VALUE - 8, Math.max(1024, size / 8)) : 16));
        }
        try (CountingInputStream counting = new CountingInputStream(Files.newInputStream(file));
             BufferedReader reader = new BufferedReader(
                     new InputStreamReader(maybeGunzip(counting), StandardCharsets.UTF_8), 1 << 16)) {
            String line;
            long lineNumber = 0;
            long index = 0;
            while ((line = reader.readLine()) != null) {
                lineNumber++;
                if ((lineNumber & 0xFFFF) == 0) {
                    progress.accept(counting.count);
                }
                int start = skipBlanks(line, 0);
                if (start == line.length() || line.charAt(start) == '#' || line.charAt(start) == '%') {
                    continue;
                }
                int end1 = skipDigits(line, start);
                int start2 = skipBlanks(line, end1);
                int end2 = skipDigits(line, start2);
                int start3 = skipBlanks(line, end2);
                if (end1 == start || start2 == end1 || end2 == start2 || (start3 == end2 && end2 != line.length())) {
                    throw new EdgeListFormatException(file.toString(), lineNumber, line,
                            "expected two decimal user ids and an optional relation (" + RELATION_NAMES
                                    + "), separated by tabs or spaces");
                }
                Relation relation = Relation.FOLLOW;
                if (start3 != line.length()) {
                    int end3 = skipToken(line, start3);
                    relation = relation(line, start3, end3);
                    if (relation == null) {
                        throw new EdgeListFormatException(file.toString(), lineNumber, line, "unknown relation '"
                                + line.substring(start3, end3) + "': the third column must be " + RELATION_NAMES
                                + " (none means follow)");
                    }
                    if (skipBlanks(line, end3) != line.length()) {
                        throw new EdgeListFormatException(file.toString(), lineNumber, line,
                                "expected at most three columns: two user ids and a relation (" + RELATION_NAMES
                                        + ")");
                    }
                }
                long source = parseId(file, lineNumber, line, start, end1);
                long target = parseId(file, lineNumber, line, start2, end2);
                edges.get(relation).add(source, target, BASE_FOLLOWED_AT + index++);
            }
            progress.accept(size);
        }
        return edges;
    }

    /** The relation whose wire name is exactly {@code line[from, to)}; {@code null} when none is. */
    private static Relation relation(String line, int from, int to) {
        for (Relation relation : RELATIONS) {
            String name = relation.wireName();
            if (name.length() == to - from && line.regionMatches(from, name, 0, name.length())) {
                return relation;
            }
        }
        return null;
    }

    private static String relationNames() {
        Relation[] all = Relation.values();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < all.length; i++) {
            if (i > 0) {
                sb.append(i == all.length - 1 ? " or " : ", ");
            }
            sb.append(all[i].wireName());
        }
        return sb.toString();
    }

    private static long parseId(Path file, long lineNumber, String line, int from, int to) {
        long value;
        try {
            value = Long.parseLong(line, from, to, 10);
        } catch (NumberFormatException e) {
            throw new EdgeListFormatException(file.toString(), lineNumber, line, "user id does not fit in 64 bits");
        }
        if (value <= 0) {
            throw new EdgeListFormatException(file.toString(), lineNumber, line, "user ids must be positive");
        }
        return value;
    }

    private static int skipBlanks(String s, int i) {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t' || s.charAt(i) == '\r')) {
            i++;
        }
        return i;
    }

    /** The end of the token starting at {@code i}: the next blank or the end of the line. */
    private static int skipToken(String s, int i) {
        while (i < s.length() && s.charAt(i) != ' ' && s.charAt(i) != '\t' && s.charAt(i) != '\r') {
            i++;
        }
        return i;
    }

    private static int skipDigits(String s, int i) {
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
        }
        return i;
    }

    private static InputStream maybeGunzip(InputStream in) throws IOException {
        BufferedInputStream buffered = new BufferedInputStream(in, 1 << 16);
        buffered.mark(2);
        int b1 = buffered.read();
        int b2 = buffered.read();
        buffered.reset();
        boolean gzip = b1 == 0x1f && b2 == 0x8b; // RFC 1952 magic
        return gzip ? new GZIPInputStream(buffered, 1 << 16) : buffered;
    }

    /** Counts bytes read from the underlying (possibly compressed) file, for progress. */
    private static final class CountingInputStream extends java.io.FilterInputStream {
        long count;

        CountingInputStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }
    }
}
