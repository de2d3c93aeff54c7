package dev.socialgraph.loadgen;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;

/**
 * The benchmark's graph in memory, in compressed sparse row form: {@code users} holds every distinct id (as follower
 * or followee) ascending, and user {@code users[u]} follows {@code followees[offsets[u] .. offsets[u + 1])}, ascending.
 * Self-loops and duplicate lines are dropped, as the importer drops them, so the fleet and the peers hold exactly the
 * same edges. Memory: 8 bytes per edge plus 12 per user (ego-Twitter: 14 MB).
 */
final class EdgeList {

    private final long[] users;
    private final int[] offsets;
    private final long[] followees;

    private EdgeList(long[] users, int[] offsets, long[] followees) {
        this.users = users;
        this.offsets = offsets;
        this.followees = followees;
    }

    /**
     * Reads an edge list file: {@code follower<TAB>followee} or space-separated, lines starting with {@code #} or
     * {@code %} skipped, gzip when the name ends in {@code .gz}.
     *
     * @throws IllegalArgumentException naming the line when a line is not two positive decimal ids
     */
    static EdgeList read(Path file) {
        try (InputStream raw = Files.newInputStream(file);
             InputStream in = file.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
             BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII), 1 << 16)) {
            LongBuffer from = new LongBuffer();
            LongBuffer to = new LongBuffer();
            String line;
            long number = 0;
            while ((line = reader.readLine()) != null) {
                number++;
                if (line.isEmpty() || line.charAt(0) == '#' || line.charAt(0) == '%') {
                    continue;
                }
                int split = indexOfBlank(line);
                try {
                    long follower = Long.parseLong(line.substring(0, split).trim());
                    long followee = Long.parseLong(line.substring(split + 1).trim());
                    if (follower <= 0 || followee <= 0) {
                        throw new NumberFormatException("ids must be positive");
                    }
                    from.add(follower);
                    to.add(followee);
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException(file + " line " + number + ": not two positive ids: " + line, e);
                }
            }
            return of(from.toArray(), to.toArray());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static int indexOfBlank(String line) {
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\t' || c == ' ') {
                return i;
            }
        }
        return -1; // substring(0, -1) throws: reported as a malformed line
    }

    /** Builds the graph from aligned arrays of (follower, followee); drops self-loops and duplicates. */
    static EdgeList of(long[] from, long[] to) {
        if (from.length != to.length) {
            throw new IllegalArgumentException("from and to differ in length");
        }
        long[] all = new long[from.length * 2];
        System.arraycopy(from, 0, all, 0, from.length);
        System.arraycopy(to, 0, all, from.length, to.length);
        Arrays.sort(all);
        int distinct = 0;
        for (int i = 0; i < all.length; i++) {
            if (i == 0 || all[i] != all[i - 1]) {
                all[distinct++] = all[i];
            }
        }
        long[] users = Arrays.copyOf(all, distinct);
        // Counting sort by follower index, then sort and deduplicate each row.
        int[] counts = new int[users.length + 1];
        int[] index = new int[from.length];
        for (int i = 0; i < from.length; i++) {
            index[i] = Arrays.binarySearch(users, from[i]);
            if (from[i] != to[i]) {
                counts[index[i] + 1]++;
            }
        }
        for (int u = 0; u < users.length; u++) {
            counts[u + 1] += counts[u];
        }
        long[] rows = new long[counts[users.length]];
        int[] next = Arrays.copyOf(counts, users.length);
        for (int i = 0; i < from.length; i++) {
            if (from[i] != to[i]) {
                rows[next[index[i]]++] = to[i];
            }
        }
        int[] offsets = new int[users.length + 1];
        int kept = 0;
        for (int u = 0; u < users.length; u++) {
            Arrays.sort(rows, counts[u], counts[u + 1]);
            offsets[u] = kept;
            for (int i = counts[u]; i < counts[u + 1]; i++) {
                if (i == counts[u] || rows[i] != rows[i - 1]) {
                    rows[kept++] = rows[i];
                }
            }
        }
        offsets[users.length] = kept;
        return new EdgeList(users, offsets, Arrays.copyOf(rows, kept));
    }

    /** Distinct edges (self-loops and duplicates dropped). */
    int edgeCount() {
        return followees.length;
    }

    /** Distinct users, followers and followees together. */
    int userCount() {
        return users.length;
    }

    /** The id of user number {@code u}, 0 ≤ u < {@link #userCount()}, ascending in u. */
    long user(int u) {
        return users[u];
    }

    /** The followee of edge number {@code e}, 0 ≤ e < {@link #edgeCount()}; edges are grouped by follower. */
    long followee(int e) {
        return followees[e];
    }

    /** The follower of edge number {@code e}: a binary search over the row offsets. */
    long follower(int e) {
        int u = Arrays.binarySearch(offsets, e);
        if (u < 0) {
            u = -u - 2;
        } else {
            while (u + 1 < offsets.length && offsets[u + 1] == e) {
                u++; // skip users with empty rows that start at the same offset
            }
        }
        return users[u];
    }

    /** Edge numbers {@code [first, last)} of user number {@code u}'s row. */
    int rowStart(int u) {
        return offsets[u];
    }

    /** See {@link #rowStart(int)}. */
    int rowEnd(int u) {
        return offsets[u + 1];
    }

    /** Whether {@code follower} follows {@code followee} in this graph (binary searches). */
    boolean contains(long follower, long followee) {
        int u = Arrays.binarySearch(users, follower);
        return u >= 0 && Arrays.binarySearch(followees, offsets[u], offsets[u + 1], followee) >= 0;
    }

    /** A growable primitive array: the file is read once, without boxing 3.5 million longs. */
    private static final class LongBuffer {
        private long[] values = new long[1 << 16];
        private int size;

        void add(long value) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }

        long[] toArray() {
            return Arrays.copyOf(values, size);
        }
    }
}
