package dev.socialgraph.tools.edges;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongConsumer;
import java.util.zip.GZIPInputStream;

/**
 * Reads a directed edge list in the format of the project's datasets (SNAP): one edge per line,
 * {@code follower<TAB>followee} (one or more spaces also separate), lines starting with {@code #} or {@code %}
 * are comments, blank lines are skipped, CRLF is accepted; gzip is detected by its magic bytes, not the name.
 *
 * <p>Edges carry no time in these files, so each gets a synthetic, deterministic follow time:
 * {@link #BASE_FOLLOWED_AT} plus its 0-based edge index in the file, in milliseconds. File order is therefore
 * arrival order, and re-reading the same file gives the same times (a re-import changes nothing).
 */
public final class EdgeListReader {

    /** 2020-01-01T00:00:00Z in epoch ms: the follow time of a file's first edge. */
    public static final long BASE_FOLLOWED_AT = 1_577_836_800_000L;

    private EdgeListReader() {
    }

    /**
     * Reads every edge of {@code file} in file order (self-loops and duplicates included; see
     * {@link EdgeList#removeSelfLoopsAndDuplicates()}).
     *
     * @param progress called now and then with the number of (compressed) bytes read so far; may be a no-op
     * @throws EdgeListFormatException at the first malformed line, naming file, line number and line
     * @throws IOException             when the file cannot be read
     */
    public static EdgeList read(Path file, LongConsumer progress) throws IOException {
        long size = Files.size(file);
        EdgeList edges = new EdgeList((int) Math.min(Integer.MAX_VALUE - 8, Math.max(1024, size / 8)));
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
                if (end1 == start || start2 == end1 || end2 == start2 || skipBlanks(line, end2) != line.length()) {
                    throw new EdgeListFormatException(file.toString(), lineNumber, line,
                            "expected two decimal user ids separated by a tab or spaces");
                }
                long follower = parseId(file, lineNumber, line, start, end1);
                long followee = parseId(file, lineNumber, line, start2, end2);
                edges.add(follower, followee, BASE_FOLLOWED_AT + index++);
            }
            progress.accept(size);
        }
        return edges;
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
