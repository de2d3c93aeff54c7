package dev.socialgraph.tools.importer;

import dev.socialgraph.common.edges.EdgeListParser;
import dev.socialgraph.bloom.BloomSnapshot;
import dev.socialgraph.bloom.EdgeFilter;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageLayout;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.Sql;
import dev.socialgraph.tools.edges.EdgeList;
import dev.socialgraph.tools.edges.EdgeListReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * Builds both shard groups directly from an edge list of follows, blocks and mutes, without replaying events (the
 * bulk importer): read and validate the whole file first (a malformed line stops the import before anything is
 * written), sort each relation's edges by source and by target (radix sort), build every row's arrays, and per
 * physical database {@code COPY} the rows into temporary staging tables and merge them into the live tables, every
 * relation of that database in <b>one transaction</b>, so a database shows either the old graph or the new one,
 * never half of it.
 *
 * <p>Semantics, per relation ({@link Relation}; the file's third column, see {@link EdgeListReader}):
 * <ul>
 *   <li>Follows are always replaced: after an import the stored follows equal the file's (minus self-loops,
 *       duplicates and the follows a block forbids). An empty file empties every follow; a file with block or mute
 *       lines but no follow line is refused ({@link ImportException}), since it would remove every follow, which is
 *       far likelier a mistake than the intent.</li>
 *   <li>Blocks and mutes are replaced the same way when the file has at least one line of that relation, and left
 *       as they are otherwise, so importing a follows-only dataset keeps the blocks and mutes users made.</li>
 *   <li>No follow is stored between two users while a block stands between them, either direction (the service's
 *       invariant, see {@code BlockedFollows} of graph-store): such follows are dropped and counted
 *       ({@link ImportSummary#followsForbiddenByBlock()}). The blocks that stand are the file's when it replaces
 *       them, else the stored ones, read before the sort.</li>
 *   <li>Each relation is capped per source user: follows at {@link Settings#followingCap()}, blocks and mutes at
 *       {@link Relation#cap()}; a user above a cap fails the import before anything is written.</li>
 *   <li>Following-side rows are written for every relation; the reverse side (followers, blocked-by) for those that
 *       keep one ({@link Relation#keepsReverse()}), with celebrity pages at the same threshold.</li>
 * </ul>
 * Rows that changed get {@code version + 1}; rows of a replaced relation absent from the file are emptied with
 * {@code version + 1}, never deleted, because versions must only grow (the Redis cache guard of DESIGN.md 2.3
 * relies on it). Re-importing the same file changes nothing: the times are deterministic
 * ({@link EdgeListReader#BASE_FOLLOWED_AT} + edge index) and unchanged rows are not rewritten.
 *
 * <p>No outbox rows or events are produced. Given {@link SnapshotSettings}, the import also writes a bloom
 * snapshot of the follows of every logical shard for the check service, built from the edges already in memory (no
 * database scan). Its Kafka offsets are the event topic's end offsets read <em>before</em> the first database
 * commits (the argument of the reconciler's {@code SnapshotBuilder}): any write committed after the import has its
 * event at or after them, so the check service's replay from them adds it. Writes the import overwrote may still be
 * replayed into the filter; a bloom filter may say "maybe" too often, never too rarely.
 */
public final class BulkImporter {

    /** Receives progress, for a progress bar; every method may be a no-op. */
    public interface Listener {
        /** A phase starts; {@code total} is its unit count (bytes or rows), or -1 when unknown. */
        default void phase(String name, long total) {
        }

        /** Units done so far in the current phase. */
        default void progress(long done) {
        }
    }

    /**
     * Import settings.
     *
     * @param followingCap        maximum followings per user (10,000); a user above it fails the import (blocks and
     *                            mutes are capped at {@link Relation#cap()})
     * @param celebrityThreshold  followers at or above which a followee's followers go to celebrity pages
     * @param pageSize            followers per celebrity page
     */
    public record Settings(int followingCap, long celebrityThreshold, int pageSize) {
        public Settings {
            if (followingCap < 1 || celebrityThreshold < 1 || pageSize < 1) {
                throw new IllegalArgumentException("followingCap, celebrityThreshold and pageSize must be >= 1");
            }
        }

        /** DESIGN.md defaults: cap 10,000; celebrity threshold 1,000,000; pages of 100,000. */
        public static Settings defaults() {
            return new Settings(10_000, 1_000_000, 100_000);
        }
    }

    private final ShardDataSources dataSources;
    private final Settings settings;
    private final Listener listener;

    /** An importer writing to the databases of {@code dataSources} (schema already migrated). */
    public BulkImporter(ShardDataSources dataSources, Settings settings, Listener listener) {
        this.dataSources = dataSources;
        this.settings = settings;
        this.listener = listener;
    }

    /**
     * Imports {@code file} without writing a bloom snapshot.
     *
     * @param file an edge list (see {@link EdgeListReader})
     * @return what the import did; no snapshot
     * @throws dev.socialgraph.common.edges.EdgeListFormatException on a malformed line; nothing was written
     * @throws ImportException when the graph breaks a rule (a user above a relation's cap); nothing was written
     * @throws SQLException    when a database fails; databases merged before it keep the new graph, the failing one
     *                         and those after it keep the old one (re-run the import to finish: it is idempotent)
     * @throws IOException     when the file cannot be read; nothing was written
     */
    public ImportSummary importFile(Path file) throws IOException, SQLException {
        return importFile(file, null);
    }

    /**
     * Imports {@code file}, then writes a bloom snapshot of every logical shard ({@code 0..logicalShards-1}) into
     * {@code snapshot.store()}, recording the event topic's end offsets read before the first commit.
     *
     * @param file     an edge list (see {@link EdgeListReader})
     * @param snapshot where and how to write the snapshot; {@code null}: no snapshot, as {@link #importFile(Path)}
     * @return what the import did, with the snapshot written
     * @throws dev.socialgraph.common.edges.EdgeListFormatException on a malformed line; nothing was written
     * @throws ImportException         when the graph breaks a rule, or the topic's offsets cannot be read (Kafka
     *                                 unreachable); nothing was written
     * @throws SQLException            when a database fails (see {@link #importFile(Path)}); no snapshot
     * @throws SnapshotWriteException  when the graph was imported but the snapshot could not be written
     * @throws IOException             when the file cannot be read; nothing was written
     */
    public ImportSummary importFile(Path file, SnapshotSettings snapshot) throws IOException, SQLException {
        Map<String, Duration> phases = new LinkedHashMap<>();
        long t0 = System.nanoTime();
        listener.phase("read", Files.size(file));
        EnumMap<Relation, EdgeList> edges = EdgeListReader.readRelations(file, listener::progress);
        EnumMap<Relation, Tally> tallies = new EnumMap<>(Relation.class);
        EnumSet<Relation> replaced = EnumSet.noneOf(Relation.class);
        for (Relation relation : EdgeListParser.relations()) {
            tallies.put(relation, new Tally(edges.get(relation).size()));
            // Follows are always the file's; blocks and mutes only when the file speaks of them at all.
            if (relation == Relation.FOLLOW || edges.get(relation).size() > 0) {
                replaced.add(relation);
            }
        }
        long t1 = mark(phases, "read", t0);
        if (edges.get(Relation.FOLLOW).size() == 0
                && (edges.get(Relation.BLOCK).size() > 0 || edges.get(Relation.MUTE).size() > 0)) {
            throw new ImportException("the file has block or mute lines but no follow line: an import replaces the "
                    + "stored follows with the file's, so it would remove every follow; add the follows to the file");
        }

        EdgeList follows = edges.get(Relation.FOLLOW);
        EdgeList blocks = edges.get(Relation.BLOCK);
        if (!replaced.contains(Relation.BLOCK) && follows.size() > 0) {
            listener.phase("stored blocks", -1);
            blocks = storedBlocks(); // they stay, so they forbid the file's follows as the file's blocks would
            t1 = mark(phases, "stored blocks", t1);
        }

        listener.phase("sort", -1);
        for (Relation relation : replaced) {
            EdgeList list = edges.get(relation);
            list.sortByFollower();
            long[] skipped = list.removeSelfLoopsAndDuplicates();
            tallies.get(relation).selfLoops = skipped[0];
            tallies.get(relation).duplicates = skipped[1];
        }
        long forbidden = 0;
        if (blocks.size() > 0) {
            EdgeList standing = blocks; // sorted by blocker, as containsSorted needs
            forbidden = follows.removeIf((a, b) -> standing.containsSorted(a, b) || standing.containsSorted(b, a));
        }
        for (Relation relation : replaced) {
            checkCap(edges.get(relation), relation);
        }
        long users = countUsers(edges.values());
        long t2 = mark(phases, "sort", t1);

        // Before the first commit below: replay from these offsets covers every write committed after the import.
        Map<Integer, Long> offsets = null;
        long createdAt = 0;
        if (snapshot != null) {
            listener.phase("event offsets", -1);
            createdAt = System.currentTimeMillis();
            offsets = snapshot.offsets().endOffsets();
            t2 = mark(phases, "event offsets", t2);
        }

        writeFollowing(edges, replaced, tallies);
        long t3 = mark(phases, "following shards", t2);

        EnumSet<Relation> reversed = EnumSet.noneOf(Relation.class);
        for (Relation relation : replaced) {
            if (relation.keepsReverse()) {
                edges.get(relation).sortByFollowee();
                reversed.add(relation);
            }
        }
        writeFollower(edges, reversed, tallies);
        long t4 = mark(phases, "follower shards", t3);

        Optional<ImportSummary.Snapshot> written = Optional.empty();
        if (snapshot != null) {
            written = Optional.of(writeSnapshot(follows, snapshot, offsets, createdAt));
            mark(phases, "bloom snapshot", t4);
        }
        EnumMap<Relation, ImportSummary.RelationCounts> counts = new EnumMap<>(Relation.class);
        for (Relation relation : EdgeListParser.relations()) {
            counts.put(relation, replaced.contains(relation)
                    ? tallies.get(relation).counts(edges.get(relation).size())
                    : ImportSummary.RelationCounts.keptAsStored());
        }
        return new ImportSummary(counts, forbidden, users, phases, written);
    }

    /** What the import did with one relation, filled in as it goes. */
    private static final class Tally {
        final long linesRead;
        long selfLoops;
        long duplicates;
        long followingRows;
        long followingChanged;
        long followerRows;
        long followerChanged;
        long celebrities;
        long pages;

        Tally(long linesRead) {
            this.linesRead = linesRead;
        }

        ImportSummary.RelationCounts counts(long edgesImported) {
            return new ImportSummary.RelationCounts(linesRead, selfLoops, duplicates, true, edgesImported,
                    followingRows, followingChanged, followerRows, followerChanged, celebrities, pages);
        }
    }

    /** Puts every imported follow into a filter sized like the reconciler's and writes it with the offsets. */
    private ImportSummary.Snapshot writeSnapshot(EdgeList edges, SnapshotSettings settings,
                                                 Map<Integer, Long> offsets, long createdAt)
            throws SnapshotWriteException {
        int n = edges.size();
        listener.phase("bloom snapshot", n);
        long expected = EdgeFilter.expectedEdges(n, settings.growth(), settings.minimumExpectedEdges());
        EdgeFilter filter = EdgeFilter.create(expected, settings.fpp());
        for (int i = 0; i < n; i++) {
            filter.put(edges.follower(i), edges.followee(i));
            if ((i & 0xFFFF) == 0) {
                listener.progress(i);
            }
        }
        listener.progress(n);
        int shards = dataSources.shardMap().logicalShardCount();
        BloomSnapshot snapshot = new BloomSnapshot(shards, 0, shards - 1, n, createdAt,
                settings.offsets().topic(), offsets, filter);
        try {
            Path file = settings.store().write(snapshot);
            return new ImportSummary.Snapshot(file, Files.size(file), n, expected, settings.fpp(), 0, shards - 1,
                    snapshot.topic(), snapshot.nextOffsets());
        } catch (IOException e) {
            throw new SnapshotWriteException(settings.store().directory(), e);
        }
    }

    private long mark(Map<String, Duration> phases, String name, long since) {
        long now = System.nanoTime();
        phases.put(name, Duration.ofNanos(now - since));
        return now;
    }

    /** Fails on the first source above {@code relation}'s cap; {@code edges} sorted by source. */
    private void checkCap(EdgeList edges, Relation relation) {
        int cap = relation == Relation.FOLLOW ? settings.followingCap() : relation.cap();
        int n = edges.size();
        for (int i = 0; i < n; ) {
            int j = i;
            while (j < n && edges.follower(j) == edges.follower(i)) {
                j++;
            }
            if (j - i > cap) {
                String name = relation == Relation.FOLLOW ? "following" : relation.wireName();
                throw new ImportException("user " + edges.follower(i) + " " + relation.wireName() + "s " + (j - i)
                        + " users, above the " + name + " cap of " + cap);
            }
            i = j;
        }
    }

    private static long countUsers(Collection<EdgeList> lists) {
        long total = 0;
        for (EdgeList edges : lists) {
            total += edges.size();
        }
        long[] all = new long[Math.toIntExact(2 * total)];
        int k = 0;
        for (EdgeList edges : lists) {
            for (int i = 0; i < edges.size(); i++) {
                all[k++] = edges.follower(i);
                all[k++] = edges.followee(i);
            }
        }
        Arrays.parallelSort(all);
        long users = 0;
        for (int i = 0; i < all.length; i++) {
            if (i == 0 || all[i] != all[i - 1]) {
                users++;
            }
        }
        return users;
    }

    // ---- stored blocks ----------------------------------------------------------------------------------------

    /**
     * The blocks stored on every following database, sorted by blocker; their times are not read (0). Blocks are
     * few beside follows, and {@code relation <> 0} rows have their own index.
     */
    private EdgeList storedBlocks() throws SQLException {
        FollowingRepository blockRows = new FollowingRepository(Relation.BLOCK);
        EdgeList blocks = new EdgeList(1024);
        for (ShardRange range : dataSources.shardMap().ranges(ShardGroup.FOLLOWING)) {
            try (Connection c = dataSources.forRange(range).getConnection()) {
                long after = 0;
                List<FollowingRow> rows;
                do {
                    rows = blockRows.scan(c, after, 1_000);
                    for (FollowingRow row : rows) {
                        for (long blocked : row.followingIds()) {
                            blocks.add(row.followerId(), blocked, 0);
                        }
                        after = row.followerId();
                    }
                } while (rows.size() == 1_000);
            }
        }
        blocks.sortByFollower();
        return blocks;
    }

    // ---- following group ------------------------------------------------------------------------------------
    // Statements of one relation: ":relation" becomes its code (Sql.forRelation), as in graph-store's repositories.

    private static final String STAGE_FOLLOWING = """
            CREATE TEMP TABLE staging_following (
                follower_id BIGINT PRIMARY KEY, following_ids BIGINT[] NOT NULL, followed_at BIGINT[] NOT NULL,
                following_count INT NOT NULL) ON COMMIT DROP
            """;

    private static final String MERGE_FOLLOWING = """
            INSERT INTO following_adjacency AS t
                   (follower_id, relation, following_ids, followed_at, following_count, version)
            SELECT follower_id, :relation, following_ids, followed_at, following_count, 1 FROM staging_following
            ON CONFLICT (follower_id, relation) DO UPDATE
               SET following_ids = EXCLUDED.following_ids, followed_at = EXCLUDED.followed_at,
                   following_count = EXCLUDED.following_count, version = t.version + 1, updated_at = now()
             WHERE (t.following_ids, t.followed_at) IS DISTINCT FROM (EXCLUDED.following_ids, EXCLUDED.followed_at)
            """;

    private static final String EMPTY_ABSENT_FOLLOWING = """
            UPDATE following_adjacency t
               SET following_ids = '{}', followed_at = '{}', following_count = 0, version = t.version + 1,
                   updated_at = now()
             WHERE t.relation = :relation AND t.following_count > 0
               AND NOT EXISTS (SELECT 1 FROM staging_following s WHERE s.follower_id = t.follower_id)
            """;

    /**
     * Per following database, one transaction: for each relation of {@code relations}, stage its rows (the staging
     * table emptied between relations) and merge them. Adds rows written and changed to the tallies.
     */
    private void writeFollowing(Map<Relation, EdgeList> edges, Set<Relation> relations,
                                Map<Relation, Tally> tallies) throws SQLException {
        ShardMap map = dataSources.shardMap();
        for (ShardRange range : map.ranges(ShardGroup.FOLLOWING)) {
            listener.phase("following " + range.database(), -1);
            try (Connection c = dataSources.forRange(range).getConnection()) {
                c.setAutoCommit(false);
                try {
                    execute(c, STAGE_FOLLOWING);
                    long done = 0;
                    boolean first = true;
                    for (Relation relation : relations) {
                        if (!first) {
                            execute(c, "TRUNCATE staging_following");
                        }
                        first = false;
                        long here = copyFollowing(c, range, edges.get(relation), done);
                        done += here;
                        Tally tally = tallies.get(relation);
                        tally.followingRows += here;
                        tally.followingChanged += executeUpdate(c, Sql.forRelation(MERGE_FOLLOWING, relation))
                                + executeUpdate(c, Sql.forRelation(EMPTY_ABSENT_FOLLOWING, relation));
                    }
                    c.commit();
                } catch (SQLException | RuntimeException e) {
                    rollback(c, e);
                    throw e;
                }
            }
        }
    }

    /** COPYs the source rows of {@code edges} (sorted by source) in {@code range}; returns how many. */
    private long copyFollowing(Connection c, ShardRange range, EdgeList edges, long done) throws SQLException {
        ShardMap map = dataSources.shardMap();
        CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY staging_following FROM STDIN");
        StringBuilder line = new StringBuilder(256);
        int n = edges.size();
        long here = 0;
        for (int i = 0; i < n; ) {
            long follower = edges.follower(i);
            int j = i;
            while (j < n && edges.follower(j) == follower) {
                j++;
            }
            if (range.contains(map.logicalShard(follower))) {
                line.setLength(0);
                line.append(follower).append('\t');
                appendArray(line, edges, i, j, true);
                line.append('\t');
                appendTimes(line, edges, i, j);
                line.append('\t').append(j - i).append('\n');
                writeLine(copy, line);
                if ((++here & 0x3FF) == 0) {
                    listener.progress(done + here);
                }
            }
            i = j;
        }
        copy.endCopy();
        return here;
    }

    // ---- follower group -------------------------------------------------------------------------------------

    private static final String STAGE_FOLLOWER = """
            CREATE TEMP TABLE staging_follower (
                followee_id BIGINT PRIMARY KEY, follower_ids BIGINT[] NOT NULL, followed_at BIGINT[] NOT NULL,
                follower_count BIGINT NOT NULL, celebrity BOOLEAN NOT NULL) ON COMMIT DROP
            """;

    private static final String MERGE_FOLLOWER = """
            INSERT INTO follower_adjacency AS t
                   (followee_id, relation, follower_ids, followed_at, follower_count, celebrity, version)
            SELECT followee_id, :relation, follower_ids, followed_at, follower_count, celebrity, 1 FROM staging_follower
            ON CONFLICT (followee_id, relation) DO UPDATE
               SET follower_ids = EXCLUDED.follower_ids, followed_at = EXCLUDED.followed_at,
                   follower_count = EXCLUDED.follower_count, celebrity = EXCLUDED.celebrity,
                   version = t.version + 1, updated_at = now()
             WHERE (t.follower_ids, t.followed_at, t.follower_count, t.celebrity)
                   IS DISTINCT FROM (EXCLUDED.follower_ids, EXCLUDED.followed_at, EXCLUDED.follower_count, EXCLUDED.celebrity)
            """;

    private static final String EMPTY_ABSENT_FOLLOWER = """
            UPDATE follower_adjacency t
               SET follower_ids = '{}', followed_at = '{}', follower_count = 0, celebrity = false,
                   version = t.version + 1, updated_at = now()
             WHERE t.relation = :relation AND (t.follower_count > 0 OR t.celebrity)
               AND NOT EXISTS (SELECT 1 FROM staging_follower s WHERE s.followee_id = t.followee_id)
            """;

    /**
     * Per follower database, one transaction: for each relation of {@code relations} (those keeping a reverse
     * side, each sorted by target), stage its rows and celebrity pages (the staging tables emptied between
     * relations) and merge them. Adds rows written and changed, celebrities and pages to the tallies.
     */
    private void writeFollower(Map<Relation, EdgeList> edges, Set<Relation> relations,
                               Map<Relation, Tally> tallies) throws SQLException {
        ShardMap map = dataSources.shardMap();
        for (ShardRange range : map.ranges(ShardGroup.FOLLOWER)) {
            listener.phase("follower " + range.database(), -1);
            try (Connection c = dataSources.forRange(range).getConnection()) {
                c.setAutoCommit(false);
                try {
                    execute(c, STAGE_FOLLOWER);
                    long done = 0;
                    boolean first = true;
                    for (Relation relation : relations) {
                        if (!first) {
                            execute(c, "TRUNCATE staging_follower");
                        }
                        first = false;
                        Tally tally = tallies.get(relation);
                        // graph-store's replacement of the relation's pages: its staging, merge and page layout.
                        CelebrityPageRepository.Replacement pages = new CelebrityPageRepository(relation).replaceAll(c);
                        long here = copyFollower(c, range, edges.get(relation), tally, pages, done);
                        done += here;
                        tally.followerRows += here;
                        tally.followerChanged += executeUpdate(c, Sql.forRelation(MERGE_FOLLOWER, relation))
                                + executeUpdate(c, Sql.forRelation(EMPTY_ABSENT_FOLLOWER, relation));
                        pages.finish();
                    }
                    c.commit();
                } catch (SQLException | RuntimeException e) {
                    rollback(c, e);
                    throw e;
                }
            }
        }
    }

    /**
     * COPYs the target rows of {@code edges} (sorted by target) in {@code range}, and adds to {@code pages} the
     * celebrity pages of the targets that reach the threshold, cut as the cdc-consumer cuts a row reaching it
     * ({@link CelebrityPageLayout}); returns how many rows, and counts celebrities and pages in {@code tally}.
     */
    private long copyFollower(Connection c, ShardRange range, EdgeList edges, Tally tally,
                              CelebrityPageRepository.Replacement pages, long done) throws SQLException {
        ShardMap map = dataSources.shardMap();
        CopyIn rowCopy = c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY staging_follower FROM STDIN");
        StringBuilder line = new StringBuilder(256);
        int n = edges.size();
        long here = 0;
        for (int i = 0; i < n; ) {
            long followee = edges.followee(i);
            int j = i;
            while (j < n && edges.followee(j) == followee) {
                j++;
            }
            if (range.contains(map.logicalShard(followee))) {
                int count = j - i;
                boolean celebrity = CelebrityPageLayout.reachesThreshold(count, settings.celebrityThreshold());
                line.setLength(0);
                line.append(followee).append('\t');
                if (celebrity) {
                    line.append("{}\t{}");
                    tally.celebrities++;
                    for (CelebrityPage page : CelebrityPageLayout.cut(followee, 0, edges.followers(i, j),
                            edges.followedAt(i, j), settings.pageSize())) {
                        pages.add(page);
                        tally.pages++;
                    }
                } else {
                    appendArray(line, edges, i, j, false);
                    line.append('\t');
                    appendTimes(line, edges, i, j);
                }
                line.append('\t').append(count).append('\t').append(celebrity ? 't' : 'f').append('\n');
                writeLine(rowCopy, line);
                if ((++here & 0x3FF) == 0) {
                    listener.progress(done + here);
                }
            }
            i = j;
        }
        rowCopy.endCopy();
        return here;
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    /** Appends a PostgreSQL array literal of the followees (following side) or followers (follower side). */
    private static void appendArray(StringBuilder sb, EdgeList edges, int from, int to, boolean followees) {
        sb.append('{');
        for (int k = from; k < to; k++) {
            if (k > from) {
                sb.append(',');
            }
            sb.append(followees ? edges.followee(k) : edges.follower(k));
        }
        sb.append('}');
    }

    private static void appendTimes(StringBuilder sb, EdgeList edges, int from, int to) {
        sb.append('{');
        for (int k = from; k < to; k++) {
            if (k > from) {
                sb.append(',');
            }
            sb.append(edges.followedAt(k));
        }
        sb.append('}');
    }

    private static void writeLine(CopyIn copy, StringBuilder line) throws SQLException {
        byte[] bytes = line.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        copy.writeToCopy(bytes, 0, bytes.length);
    }

    /** Rolls back; a COPY still in progress is abandoned by closing the connection's transaction. */
    private static void rollback(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private static long executeUpdate(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            return st.executeUpdate(sql);
        }
    }
}
