package dev.socialgraph.tools.shards;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.shard.ShardDatabases;
import dev.socialgraph.store.shard.ShardDirectory;
import dev.socialgraph.store.shard.ShardFence;
import dev.socialgraph.store.shard.ShardMigrations;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a range of logical shards of one group to another database while the services run (docs/shard-moves.md):
 * copy rounds while writes go on, then a short fence on the old owner (final exact round, the range's outbox drained,
 * the move recorded, the next shard map published), then, once every reader routes by the new map, the range's rows
 * deleted from the old owner.
 *
 * <p>Every step before the publication can fail or be aborted without harm: the map still routes the range to the old
 * owner, whose rows were never touched, and a new run with the same arguments starts over (copy rounds only change
 * what differs). A run for a range that already lives in the target does nothing. Not thread-safe; one move at a time
 * per deployment (the directory's compare-and-set refuses a second publication of the same version).
 */
public final class ShardMover {

    private static final Logger log = LoggerFactory.getLogger(ShardMover.class);

    private static final Pattern SHARDS = Pattern.compile("(\\d{1,9})(?:-(\\d{1,9}))?");
    private static final Pattern DATABASE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    private static final String RANGE_BACKLOG = """
            SELECT count(*) FROM follow_outbox
            WHERE published_at IS NULL AND mod(follower_id, ?) BETWEEN ? AND ? AND id <= ?""";
    private static final String OUTBOX_MARK = "SELECT coalesce(max(id), 0) FROM follow_outbox";

    /**
     * How a move paces itself.
     *
     * @param maxRounds        copy rounds before the fence at most, {@code >= 1}
     * @param quietRows        a round that changes at most this many rows ends the rounds: the fenced round will be
     *                         about as small
     * @param batchSize        rows fetched and written per statement, {@code >= 1}
     * @param fenceLockTimeout longest wait for the fence's locks (writers in flight), PostgreSQL {@code lock_timeout};
     *                         past it the move is aborted before anything switched
     * @param drainTimeout     longest wait under the fence for the range's outbox rows to be published
     * @param backlogWait      longest wait before the fence for the range's outbox backlog to be published once (a
     *                         relay that does not publish aborts the move here, not under the fence)
     * @param readerWindow     readers that reported within this window count as alive (the services report every
     *                         poll interval)
     * @param readerWait       longest wait for every live reader to apply the new map before the clean-up
     * @param cleanup          whether to delete the range's rows from the old owner once every reader switched
     */
    public record Settings(int maxRounds, long quietRows, int batchSize, Duration fenceLockTimeout,
                           Duration drainTimeout, Duration backlogWait, Duration readerWindow, Duration readerWait,
                           boolean cleanup) {

        public Settings {
            if (maxRounds < 1 || quietRows < 0 || batchSize < 1) {
                throw new IllegalArgumentException("maxRounds and batchSize must be >= 1 and quietRows >= 0, were "
                        + maxRounds + ", " + batchSize + ", " + quietRows);
            }
            for (Duration d : List.of(fenceLockTimeout, drainTimeout, backlogWait, readerWindow, readerWait)) {
                if (d.isNegative() || d.isZero()) {
                    throw new IllegalArgumentException("every wait must be positive, was " + d);
                }
            }
        }

        /**
         * Five rounds at most, quiet below 100 rows, batches of 500; a fence lock wait of 2 s and a drain of 2 s, so
         * a held-back writer waits well under the services' 3 to 5 s statement timeout; backlog wait 10 s; readers
         * alive within 10 s, waited for 30 s; clean-up on.
         */
        public static Settings defaults() {
            return new Settings(5, 100, 500, Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(10),
                    Duration.ofSeconds(10), Duration.ofSeconds(30), true);
        }

        /** @return these settings with the clean-up on or off */
        public Settings withCleanup(boolean on) {
            return new Settings(maxRounds, quietRows, batchSize, fenceLockTimeout, drainTimeout, backlogWait,
                    readerWindow, readerWait, on);
        }

        /** @return these settings with another wait for the readers */
        public Settings withReaderWait(Duration wait) {
            return new Settings(maxRounds, quietRows, batchSize, fenceLockTimeout, drainTimeout, backlogWait,
                    readerWindow, wait, cleanup);
        }
    }

    /**
     * A move: logical shards {@code first..last} of {@code group} to the database {@code database} at {@code jdbcUrl}.
     *
     * @param createDatabase create the target database when missing (local and test topologies)
     */
    public record Request(ShardGroup group, int first, int last, String database, String jdbcUrl,
                          boolean createDatabase) {

        public Request {
            Objects.requireNonNull(group, "group");
            if (first < 0 || last < first) {
                throw new IllegalArgumentException("shards " + first + ".." + last + " are not a range");
            }
            if (database == null || !DATABASE_NAME.matcher(database).matches()) {
                throw new IllegalArgumentException("target database name must be a lower-case identifier"
                        + " ([a-z_][a-z0-9_]*), was '" + database + "'");
            }
            if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql://")) {
                throw new IllegalArgumentException("target must be a jdbc:postgresql://host/database URL, was "
                        + jdbcUrl);
            }
        }
    }

    private final ShardDirectory directory;
    private final String username;
    private final String password;
    private final Settings settings;

    /**
     * @param directory the deployment's shard directory (installed)
     * @param username  user of the shard databases (the services' {@code graph.shards.username})
     * @param password  its password, may be empty
     * @param settings  pacing
     */
    public ShardMover(ShardDirectory directory, String username, String password, Settings settings) {
        this.directory = Objects.requireNonNull(directory, "directory");
        this.username = Objects.requireNonNull(username, "username");
        this.password = password == null ? "" : password;
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /**
     * Parses a shard group as the command line names it.
     *
     * @param name {@code following} or {@code follower}, any case
     * @return the group
     * @throws IllegalArgumentException naming the accepted values
     */
    public static ShardGroup parseGroup(String name) {
        for (ShardGroup group : ShardGroup.values()) {
            if (group.name().equalsIgnoreCase(name)) {
                return group;
            }
        }
        throw new IllegalArgumentException("shard group must be following or follower, was '" + name + "'");
    }

    /**
     * Parses a range of logical shards: {@code 128-191}, or {@code 7} for one shard.
     *
     * @param text          the range
     * @param logicalShards the deployment's logical shard count
     * @return {@code {first, last}}, inclusive
     * @throws IllegalArgumentException when it is not a range within {@code 0..logicalShards-1}
     */
    public static int[] parseShards(String text, int logicalShards) {
        Matcher m = SHARDS.matcher(text == null ? "" : text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("shards must be FIRST-LAST or one shard, e.g. 128-191, was '" + text
                    + "'");
        }
        int first = Integer.parseInt(m.group(1));
        int last = m.group(2) == null ? first : Integer.parseInt(m.group(2));
        if (last < first || last >= logicalShards) {
            throw new IllegalArgumentException("shards " + first + "-" + last + " are not a range within 0-"
                    + (logicalShards - 1));
        }
        return new int[] {first, last};
    }

    /**
     * The range a move takes its shards from, checked against the map.
     *
     * @param map     the newest shard map
     * @param request the move
     * @return the one range of the request's group holding every requested shard, or empty when every requested shard
     *     already lives in the target
     * @throws ShardMoveException when the shards are outside the map, span several databases, or the target's name
     *                            or URL belongs to another database of the map
     */
    static Optional<ShardRange> source(ShardMap map, Request request) {
        if (request.last() >= map.logicalShardCount()) {
            throw new ShardMoveException("shards " + request.first() + ".." + request.last() + " are not within 0.."
                    + (map.logicalShardCount() - 1));
        }
        for (Map.Entry<String, String> db : map.databases().entrySet()) {
            boolean sameUrl = db.getKey().equals(request.jdbcUrl());
            boolean sameName = db.getValue().equals(request.database());
            if (sameUrl != sameName) {
                throw new ShardMoveException("target " + request.database() + " at " + request.jdbcUrl()
                        + " clashes with database " + db.getValue() + " at " + db.getKey()
                        + " of the shard map: a name names one database");
            }
        }
        ShardGroup group = request.group();
        ShardRange range = map.rangeOfShard(group, request.first());
        ShardRange lastRange = map.rangeOfShard(group, request.last());
        if (!range.equals(lastRange)) {
            if (range.jdbcUrl().equals(request.jdbcUrl()) && lastRange.jdbcUrl().equals(request.jdbcUrl())
                    && allIn(map, request)) {
                return Optional.empty();
            }
            throw new ShardMoveException(group.name().toLowerCase(Locale.ROOT) + " shards " + request.first() + ".."
                    + request.last() + " span several ranges (" + range + ", " + lastRange + ", ...): move the"
                    + " shards of one database at a time");
        }
        if (range.jdbcUrl().equals(request.jdbcUrl())) {
            return Optional.empty();
        }
        return Optional.of(range);
    }

    private static boolean allIn(ShardMap map, Request request) {
        for (int s = request.first(); s <= request.last(); s++) {
            if (!map.rangeOfShard(request.group(), s).jdbcUrl().equals(request.jdbcUrl())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Moves the shards (docs/shard-moves.md, steps a to h).
     *
     * @param request what to move where
     * @return what was done
     * @throws ShardMoveException when the move is refused or aborted before the map switched (the message says
     *                            why); the range stays where it was
     * @throws SQLException       on a database error before the switch; the range stays where it was, a new run
     *                            starts over
     */
    public MoveSummary move(Request request) throws SQLException {
        long start = System.nanoTime();
        ShardGroup group = request.group();
        int first = request.first();
        int last = request.last();
        String what = group.name().toLowerCase(Locale.ROOT) + " shards " + first + ".." + last;

        // a. The newest map, the source range, the target's schema.
        ShardDirectory.Versioned latest = directory.latest();
        if (latest == null) {
            throw new ShardMoveException("the shard directory is empty: start the services with"
                    + " graph.shards.directory.jdbc-url first (they publish their configured map as version 1)");
        }
        Optional<ShardRange> found = source(latest.map(), request);
        if (found.isEmpty()) {
            log.info("{} already live in {} (shard map version {}): nothing to do", what, request.database(),
                    latest.version());
            return new MoveSummary(group, first, last, request.database(), request.database(), latest.version(),
                    latest.version(), List.of(), null, 0, 0, List.of(), -1, millisSince(start));
        }
        ShardRange range = found.get();
        Database source = new Database(range.database(), range.jdbcUrl(), username, password);
        Database target = new Database(request.database(), request.jdbcUrl(), username, password);
        long nextVersion = latest.version() + 1;
        ShardMap next = latest.map().reassign(group, first, last, target.name(), target.jdbcUrl());
        log.info("Moving {} from {} to {}: shard map version {} -> {}", what, source, target, latest.version(),
                nextVersion);

        long t = System.nanoTime();
        if (request.createDatabase()) {
            ShardDatabases.createMissing(Map.of(target.jdbcUrl(), ShardDatabases.databaseName(target.jdbcUrl())),
                    username, password);
        }
        int migrations = ShardMigrations.migrate(target.dataSource());
        requireFenceTable(source);
        clearUnpublishedMoves(source, group, first, last, latest.version());
        RangeCopier copier = new RangeCopier(source, target, group, latest.map().logicalShardCount(), first, last,
                settings.batchSize());
        copier.prepare();
        log.info("Step a: target {} ready ({} migration(s) applied), schemas agree, in {} ms", target, migrations,
                millisSince(t));

        // b. Copy rounds while writes go on, until one is quiet.
        List<MoveSummary.Round> rounds = new ArrayList<>();
        for (int i = 1; i <= settings.maxRounds(); i++) {
            MoveSummary.Round round = round(copier);
            rounds.add(round);
            log.info("Step b: copy round {}: {} rows copied, {} deleted, in {} ms", i, round.upserted(),
                    round.deleted(), round.millis());
            if (round.changed() <= settings.quietRows()) {
                break;
            }
        }
        if (group == ShardGroup.FOLLOWING) {
            t = System.nanoTime();
            // Writes go on here, so the range is rarely without an unpublished row at any one instant: wait for the
            // rows written before this point, which proves the relay publishes and leaves step e a short drain.
            long backlog = awaitBacklog(source, latest.map().logicalShardCount(), first, last, outboxMark(source),
                    settings.backlogWait());
            if (backlog > 0) {
                throw new ShardMoveException("step b: " + backlog + " outbox rows of " + what + " in " + source
                        + " still unpublished after " + settings.backlogWait().toMillis() + " ms: is its outbox relay"
                        + " running? Nothing was switched; run again once it publishes");
            }
            log.info("Step b: the range's outbox backlog in {} published, in {} ms", source, millisSince(t));
        }

        // c. to g. The fence, on a session of its own: closing it releases every lock, whatever happens.
        MoveSummary.Round finalRound;
        long fenceStart;
        long fenceMillis;
        long drainMillis = 0;
        try (Connection session = source.connect()) {
            try (Statement st = session.createStatement()) {
                st.execute("SET lock_timeout = " + settings.fenceLockTimeout().toMillis());
            }
            fenceStart = System.nanoTime();
            try {
                ShardFence.fence(session, group, first, last);
            } catch (SQLException e) {
                throw new ShardMoveException("step c: the fence of " + what + " in " + source + " was not granted"
                        + " within " + settings.fenceLockTimeout().toMillis() + " ms (" + e.getMessage() + "): a write"
                        + " transaction held it; nothing was switched, run again", e);
            }
            log.info("Step c: fenced {} in {} after {} ms", what, source, millisSince(fenceStart));
            try {
                // d. The exact round: nothing in the range changes now.
                finalRound = round(copier);
                log.info("Step d: final round under the fence: {} rows copied, {} deleted, in {} ms",
                        finalRound.upserted(), finalRound.deleted(), finalRound.millis());

                // e. Events of the range leave the source before the target can write any.
                if (group == ShardGroup.FOLLOWING) {
                    t = System.nanoTime();
                    long backlog = awaitBacklog(source, latest.map().logicalShardCount(), first, last,
                            Long.MAX_VALUE, settings.drainTimeout());
                    drainMillis = millisSince(t);
                    if (backlog > 0) {
                        throw new ShardMoveException("step e: " + backlog + " outbox rows of " + what + " in "
                                + source + " still unpublished after " + drainMillis + " ms under the fence;"
                                + " nothing was switched, run again once its relay publishes");
                    }
                    log.info("Step e: the range's outbox in {} drained in {} ms", source, drainMillis);
                }

                // f. Record the move in both owners, then publish; undo the record if another publication won.
                t = System.nanoTime();
                try (Connection c = target.connect()) {
                    ShardFence.clearMoved(c, group, first, last);
                }
                ShardFence.markMoved(session, group, first, last, nextVersion, target.name(),
                        System.currentTimeMillis());
                publish(session, latest.version(), next, group, first, last, what);
                log.info("Step f: {} marked moved in {}, shard map version {} published, in {} ms", what, source,
                        nextVersion, millisSince(t));

                // g. Writers held back find the record and go to the target.
                try {
                    ShardFence.unfence(session, group, first, last);
                } catch (SQLException e) {
                    log.warn("Unfencing failed ({}): closing the session releases the fence", e.toString());
                }
                fenceMillis = millisSince(fenceStart);
            } catch (SQLException | RuntimeException e) {
                log.warn("Fence of {} released after {} ms: move aborted ({})", what, millisSince(fenceStart),
                        e.getMessage());
                throw e;
            }
        }
        log.info("Step g: fence released; writers of {} were held back for {} ms", what, fenceMillis);

        // h. Every reader on the new map, then the old owner's rows go.
        t = System.nanoTime();
        List<ShardDirectory.Reader> stragglers = awaitReaders(nextVersion, settings.readerWait());
        long cleaned = -1;
        if (!stragglers.isEmpty()) {
            log.warn("Step h: readers still on an older shard map after {} ms: {}; the rows of {} stay in {} (run"
                    + " 'shards cleanup' later)", millisSince(t), stragglers, what, source);
        } else {
            log.info("Step h: every reader applied version {} in {} ms", nextVersion, millisSince(t));
            if (settings.cleanup()) {
                t = System.nanoTime();
                cleaned = deleteRange(source, group, latest.map().logicalShardCount(), first, last);
                log.info("Step h: {} rows of {} deleted from {} in {} ms", cleaned, what, source, millisSince(t));
            }
        }
        MoveSummary summary = new MoveSummary(group, first, last, source.name(), target.name(), latest.version(),
                nextVersion, rounds, finalRound, fenceMillis, drainMillis, stragglers, cleaned, millisSince(start));
        log.info("Moved {} from {} to {} in {} ms, fence {} ms", what, source, target, summary.totalMillis(),
                fenceMillis);
        return summary;
    }

    /**
     * Deletes the rows of shards {@code first..last} from a database that gave them away: for an old owner whose
     * clean-up a move skipped. Refused unless the database recorded the move of every shard of the range, the newest
     * map routes none of them there, and every reader alive within the window applied the moves' map version.
     *
     * @param group    the group
     * @param first    first logical shard, inclusive
     * @param last     last logical shard, inclusive
     * @param database the old owner's name
     * @param jdbcUrl  its JDBC URL
     * @return rows deleted
     * @throws ShardMoveException when refused, saying why
     * @throws SQLException       on a database error
     */
    public long cleanup(ShardGroup group, int first, int last, String database, String jdbcUrl) throws SQLException {
        ShardDirectory.Versioned latest = directory.latest();
        if (latest == null) {
            throw new ShardMoveException("the shard directory is empty");
        }
        String what = group.name().toLowerCase(Locale.ROOT) + " shards " + first + ".." + last;
        for (int s = first; s <= last; s++) {
            if (latest.map().rangeOfShard(group, s).jdbcUrl().equals(jdbcUrl)) {
                throw new ShardMoveException("shard " + s + " lives in " + database + " (shard map version "
                        + latest.version() + "): refusing to delete its rows");
            }
        }
        Database db = new Database(database, jdbcUrl, username, password);
        long movedIn = 0;
        try (Connection c = db.connect()) {
            for (int s = first; s <= last; s++) {
                long v = ShardFence.movedIn(c, group, s);
                if (v == 0) {
                    throw new ShardMoveException(database + " has no record of moving shard " + s + " away:"
                            + " refusing to delete its rows");
                }
                movedIn = Math.max(movedIn, v);
            }
        }
        List<ShardDirectory.Reader> behind = readersBehind(movedIn);
        if (!behind.isEmpty()) {
            throw new ShardMoveException("readers still route by a shard map older than version " + movedIn + ": "
                    + behind + "; the rows of " + what + " in " + database + " stay until they switch");
        }
        long rows = deleteRange(db, group, latest.map().logicalShardCount(), first, last);
        log.info("{} rows of {} deleted from {}", rows, what, database);
        return rows;
    }

    private MoveSummary.Round round(RangeCopier copier) throws SQLException {
        long t = System.nanoTime();
        long upserted = 0;
        long deleted = 0;
        for (RangeCopier.TableRound r : copier.round()) {
            upserted += r.upserted();
            deleted += r.deleted();
        }
        return new MoveSummary.Round(upserted, deleted, millisSince(t));
    }

    /**
     * Publishes the next map from the fence's session. A lost compare-and-set undoes the move's record and aborts; an
     * error whose outcome cannot be read back leaves the record (writers of the range are refused, none goes to the
     * wrong owner) and tells the operator to run again, which finishes or undoes the move.
     */
    private void publish(Connection session, long expected, ShardMap next, ShardGroup group, int first, int last,
                         String what) throws SQLException {
        boolean won;
        try {
            won = directory.publish(expected, next);
        } catch (SQLException e) {
            ShardDirectory.Versioned now;
            try {
                now = directory.latest();
            } catch (SQLException unreadable) {
                e.addSuppressed(unreadable);
                throw new ShardMoveException("step f: publishing the shard map of " + what + " failed and the"
                        + " directory cannot be read back; the old owner refuses writes of the range until the same"
                        + " move runs again (it finishes or undoes it)", e);
            }
            if (now != null && now.version() == expected + 1 && now.map().equals(next)) {
                return; // the insert committed; only its answer was lost
            }
            won = false;
        }
        if (!won) {
            ShardFence.clearMoved(session, group, first, last);
            throw new ShardMoveException("step f: another shard map version " + (expected + 1) + " was published"
                    + " meanwhile (a concurrent move?); the move of " + what + " was undone, nothing switched");
        }
    }

    /** Refuses a source without the fence's table: its services would not know the range moved. */
    private static void requireFenceTable(Database source) throws SQLException {
        try (Connection c = source.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT to_regclass('shard_moves') IS NOT NULL")) {
            rs.next();
            if (!rs.getBoolean(1)) {
                throw new ShardMoveException(source + " has no shard_moves table (shard schema V4): upgrade the"
                        + " services, which migrate it, before moving shards");
            }
        }
    }

    /**
     * A move that recorded itself in the source but never published its map (it died in step f) left records that
     * refuse the range's writers: the range still lives here, so they are deleted. A record of a published version
     * while the map routes the range here cannot come from a move and stops this one.
     */
    private static void clearUnpublishedMoves(Database source, ShardGroup group, int first, int last, long latest)
            throws SQLException {
        try (Connection c = source.connect()) {
            boolean unpublished = false;
            for (int s = first; s <= last; s++) {
                long v = ShardFence.movedIn(c, group, s);
                if (v > latest) {
                    unpublished = true;
                } else if (v > 0) {
                    throw new ShardMoveException(source + " records shard " + s + " as moved away in shard map"
                            + " version " + v + ", but version " + latest + " routes it there: inspect shard_moves"
                            + " before moving");
                }
            }
            if (unpublished) {
                int cleared = ShardFence.clearMoved(c, group, first, last);
                log.warn("Step a: {} record(s) of an earlier move that never published its map deleted from {}",
                        cleared, source);
            }
        }
    }

    /** The highest outbox id written so far in {@code source}, 0 when its outbox is empty. */
    private static long outboxMark(Database source) throws SQLException {
        try (Connection c = source.connect(); PreparedStatement ps = c.prepareStatement(OUTBOX_MARK);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Waits until no outbox row of the range with an id up to {@code upTo} is unpublished; returns the count left at
     * the deadline, 0 when none.
     */
    private static long awaitBacklog(Database source, int logicalShards, int first, int last, long upTo,
                                     Duration wait) throws SQLException {
        long deadline = System.nanoTime() + wait.toNanos();
        try (Connection c = source.connect(); PreparedStatement ps = c.prepareStatement(RANGE_BACKLOG)) {
            ps.setInt(1, logicalShards);
            ps.setInt(2, first);
            ps.setInt(3, last);
            ps.setLong(4, upTo);
            while (true) {
                long backlog;
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    backlog = rs.getLong(1);
                }
                if (backlog == 0 || System.nanoTime() >= deadline) {
                    return backlog;
                }
                pause(10);
            }
        }
    }

    /** Waits until every live reader applied {@code version}; returns those that had not at the deadline. */
    private List<ShardDirectory.Reader> awaitReaders(long version, Duration wait) throws SQLException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            List<ShardDirectory.Reader> behind = readersBehind(version);
            if (behind.isEmpty() || System.nanoTime() >= deadline) {
                return behind;
            }
            pause(100);
        }
    }

    private List<ShardDirectory.Reader> readersBehind(long version) throws SQLException {
        List<ShardDirectory.Reader> behind = new ArrayList<>();
        for (ShardDirectory.Reader r : directory.readers(System.currentTimeMillis()
                - settings.readerWindow().toMillis())) {
            if (r.version() < version) {
                behind.add(r);
            }
        }
        return behind;
    }

    /** Deletes the range's rows of the group's tables, one statement per table and shard; not the outbox. */
    private static long deleteRange(Database db, ShardGroup group, int logicalShards, int first, int last)
            throws SQLException {
        long rows = 0;
        try (Connection c = db.connect()) {
            for (RangeCopier.Table table : RangeCopier.tables(group)) {
                try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table.name() + " WHERE mod("
                        + table.keys().get(0) + ", ?) = ?")) {
                    for (int s = first; s <= last; s++) {
                        ps.setInt(1, logicalShards);
                        ps.setInt(2, s);
                        rows += ps.executeUpdate();
                    }
                }
            }
        }
        return rows;
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ShardMoveException("interrupted", e);
        }
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
