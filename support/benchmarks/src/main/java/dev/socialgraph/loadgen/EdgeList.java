package dev.socialgraph.loadgen;

import dev.socialgraph.common.edges.EdgeListFormatException;
import dev.socialgraph.common.edges.EdgeListParser;
import dev.socialgraph.common.relation.Relation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;

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

    /** User numbers by follower count descending, ties by user number; computed on first use. */
    private int[] byFollowers;
    /** Follower count (in-degree) of each user number; computed with {@link #byFollowers}. */
    private int[] followerCounts;

    private EdgeList(long[] users, int[] offsets, long[] followees) {
        this.users = users;
        this.offsets = offsets;
        this.followees = followees;
    }

    /**
     * Reads an edge list file of follows through graph-common's {@link EdgeListParser} (the datasets' format: plain
     * or gzip, {@code #} and {@code %} comments, {@code follower<TAB>followee}, an optional {@code follow} column).
     *
     * @throws EdgeListFormatException  naming the file and line when a line is malformed
     * @throws IllegalArgumentException naming the file and line of a block or mute: the importer would drop the
     *                                  follows such a line forbids, and the peers would hold edges the fleet does not
     * @throws UncheckedIOException     when the file cannot be read
     */
    static EdgeList read(Path file) {
        try (EdgeListParser edges = EdgeListParser.open(file)) {
            LongBuffer from = new LongBuffer();
            LongBuffer to = new LongBuffer();
            while (edges.next()) {
                if (edges.relation() != Relation.FOLLOW) {
                    throw new IllegalArgumentException(file + ":" + edges.lineNumber() + ": a "
                            + edges.relation().wireName() + " line; the benchmark's graph holds follows only");
                }
                from.add(edges.source());
                to.add(edges.target());
            }
            return of(from.toArray(), to.toArray());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
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

    /** How many users follow user number {@code u} (its in-degree in this graph). */
    synchronized int followerCount(int u) {
        rankByFollowers();
        return followerCounts[u];
    }

    /**
     * The {@code n} most followed users: user numbers by follower count (in-degree) descending, ties by user number
     * ascending, so the choice is the same on every run. The ranking is computed once (a binary search per edge:
     * ego-Twitter's 1.8 million in about 0.2 s) and kept.
     *
     * @param n how many, 0 ≤ n ≤ {@link #userCount()}
     * @return a fresh array of {@code n} user numbers, most followed first
     */
    synchronized int[] mostFollowed(int n) {
        if (n < 0 || n > users.length) {
            throw new IllegalArgumentException("n must be 0.." + users.length + ", was " + n);
        }
        rankByFollowers();
        return Arrays.copyOf(byFollowers, n);
    }

    private void rankByFollowers() {
        if (byFollowers != null) {
            return;
        }
        int[] in = new int[users.length];
        for (long followee : followees) {
            in[Arrays.binarySearch(users, followee)]++;
        }
        // Sort (−count, user) pairs packed into longs: primitive, no boxed comparator over 80,000 users.
        long[] keys = new long[users.length];
        for (int u = 0; u < users.length; u++) {
            keys[u] = ((long) (Integer.MAX_VALUE - in[u]) << 32) | u;
        }
        Arrays.sort(keys);
        int[] ranked = new int[users.length];
        for (int i = 0; i < keys.length; i++) {
            ranked[i] = (int) keys[i];
        }
        followerCounts = in;
        byFollowers = ranked;
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
