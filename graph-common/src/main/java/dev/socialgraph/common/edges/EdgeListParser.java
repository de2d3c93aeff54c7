package dev.socialgraph.common.edges;

import dev.socialgraph.common.relation.Relation;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.Closeable;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * The one reader of the project's edge-list files (the datasets' format, SNAP's): a cursor over the file's edges, one
 * line at a time, so a file of millions of lines is never held as text. The bulk importer, the benchmark's graph and
 * the launcher's sample edge all read through it.
 *
 * <p>Format: one edge per line, {@code source<TAB>target} (one or more spaces or tabs also separate), both decimal
 * positive 64-bit user ids, optionally followed by a third column naming the edge's relation by its wire name
 * ({@link Relation#wireName()}: {@code follow}, {@code block} or {@code mute}, lower case; no third column means
 * {@code follow}, so every SNAP file is a follow graph). Lines whose first non-blank character is {@code #} (SNAP) or
 * {@code %} (KONECT) are comments, blank lines are skipped, CRLF is accepted; gzip is detected by its magic bytes, not
 * by the file's name. Any other third column (a number, an unknown word) or a fourth column is a malformed line.
 *
 * <p>Edges come in file order, as written: self-loops and duplicates are the caller's to drop or keep (the datasets
 * keep self-loops as their sources published them). Not thread-safe.
 *
 * <pre>{@code
 * try (EdgeListParser edges = EdgeListParser.open(file)) {
 *     while (edges.next()) {
 *         use(edges.source(), edges.target(), edges.relation());
 *     }
 * }
 * }</pre>
 */
public final class EdgeListParser implements Closeable {

    private static final Relation[] RELATIONS = {Relation.FOLLOW, Relation.BLOCK, Relation.MUTE};

    /**
     * The relations an edge list holds: follows, blocks and mutes. A follow request is not among them: it is a
     * protected account's pending answer, not graph data an import brings.
     *
     * @return {@link Relation#FOLLOW}, {@link Relation#BLOCK}, {@link Relation#MUTE}, in that order
     */
    public static java.util.List<Relation> relations() {
        return java.util.List.of(RELATIONS);
    }

    /** The accepted third columns, for messages: "follow, block or mute". */
    private static final String RELATION_NAMES = relationNames();

    private static final int BUFFER = 1 << 16;

    private final String name;
    private final CountingInputStream counting;
    private final BufferedReader reader;
    private long lineNumber;
    private long edges;
    private long source;
    private long target;
    private Relation relation;

    private EdgeListParser(Path file) throws IOException {
        this.name = file.toString();
        this.counting = new CountingInputStream(Files.newInputStream(file));
        try {
            this.reader = new BufferedReader(new InputStreamReader(maybeGunzip(counting), StandardCharsets.UTF_8),
                    BUFFER);
        } catch (IOException | RuntimeException e) {
            counting.close();
            throw e;
        }
    }

    /**
     * Opens {@code file}, plain or gzip, positioned before its first edge.
     *
     * @param file an edge list
     * @return a parser to {@link #close()}
     * @throws IOException when the file cannot be opened, or its gzip header is broken
     */
    public static EdgeListParser open(Path file) throws IOException {
        return new EdgeListParser(file);
    }

    /**
     * Moves to the next edge, past comments and blank lines.
     *
     * @return {@code true} when there is one ({@link #source()}, {@link #target()}, {@link #relation()} describe it);
     *         {@code false} at the end of the file
     * @throws EdgeListFormatException at a malformed line, naming the file, the line number, the reason and the line
     * @throws IOException             when the file cannot be read
     */
    public boolean next() throws IOException {
        String line;
        while ((line = reader.readLine()) != null) {
            lineNumber++;
            int start = skipBlanks(line, 0);
            if (start == line.length() || line.charAt(start) == '#' || line.charAt(start) == '%') {
                continue;
            }
            parse(line, start);
            edges++;
            return true;
        }
        return false;
    }

    /** The current edge's source: the follower, blocker or muter, a positive user id. */
    public long source() {
        return source;
    }

    /** The current edge's target: the followee, blocked or muted user, a positive user id. */
    public long target() {
        return target;
    }

    /** The current edge's relation: the third column, {@link Relation#FOLLOW} when there is none. */
    public Relation relation() {
        return relation;
    }

    /**
     * The current edge's 0-based index among every edge of the file, of every relation: what the importer derives an
     * edge's synthetic, deterministic follow time from.
     */
    public long edgeIndex() {
        return edges - 1;
    }

    /** The current edge's 1-based line number in the (uncompressed) file. */
    public long lineNumber() {
        return lineNumber;
    }

    /** Bytes of the file read so far (compressed bytes for a gzip file), for progress against its size. */
    public long bytesRead() {
        return counting.count;
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }

    /** Reads the edge of {@code line}, whose first non-blank character is at {@code start}, into the fields. */
    private void parse(String line, int start) {
        int end1 = skipDigits(line, start);
        int start2 = skipBlanks(line, end1);
        int end2 = skipDigits(line, start2);
        int start3 = skipBlanks(line, end2);
        if (end1 == start || start2 == end1 || end2 == start2 || (start3 == end2 && end2 != line.length())) {
            throw malformed(line, "expected two decimal user ids and an optional relation (" + RELATION_NAMES
                    + "), separated by tabs or spaces");
        }
        Relation parsed = Relation.FOLLOW;
        if (start3 != line.length()) {
            int end3 = skipToken(line, start3);
            parsed = relation(line, start3, end3);
            if (parsed == null) {
                throw malformed(line, "unknown relation '" + line.substring(start3, end3) + "': the third column must be "
                        + RELATION_NAMES + " (none means follow)");
            }
            if (skipBlanks(line, end3) != line.length()) {
                throw malformed(line, "expected at most three columns: two user ids and a relation (" + RELATION_NAMES
                        + ")");
            }
        }
        source = parseId(line, start, end1);
        target = parseId(line, start2, end2);
        relation = parsed;
    }

    private long parseId(String line, int from, int to) {
        long value;
        try {
            value = Long.parseLong(line, from, to, 10);
        } catch (NumberFormatException e) {
            throw malformed(line, "user id does not fit in 64 bits");
        }
        if (value <= 0) {
            throw malformed(line, "user ids must be positive");
        }
        return value;
    }

    private EdgeListFormatException malformed(String line, String reason) {
        return new EdgeListFormatException(name, lineNumber, line, reason);
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
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < RELATIONS.length; i++) {
            if (i > 0) {
                sb.append(i == RELATIONS.length - 1 ? " or " : ", ");
            }
            sb.append(RELATIONS[i].wireName());
        }
        return sb.toString();
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
        BufferedInputStream buffered = new BufferedInputStream(in, BUFFER);
        buffered.mark(2);
        int b1 = buffered.read();
        int b2 = buffered.read();
        buffered.reset();
        boolean gzip = b1 == 0x1f && b2 == 0x8b; // RFC 1952 magic
        return gzip ? new GZIPInputStream(buffered, BUFFER) : buffered;
    }

    /** Counts bytes read from the underlying (possibly compressed) file, for progress. */
    private static final class CountingInputStream extends FilterInputStream {
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
