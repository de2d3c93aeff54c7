package dev.socialgraph.tools.shards;

import dev.socialgraph.common.shard.ShardGroup;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * One copy round of a shard move (docs/shard-moves.md, steps b and d): makes the target's rows of a range of logical
 * shards equal to the source's, table by table, changing only what differs.
 *
 * <p>Per table, both databases are scanned in primary-key order for the range's rows as {@code (key, fingerprint)}
 * (the row's {@code version}; for celebrity pages, which have none, an MD5 of the page's other columns), and the two
 * streams are merged: a key the target lacks or holds with another fingerprint is copied (the whole row, fetched from
 * the source in batches and upserted as text with a cast per column, so arrays and timestamps copy exactly), a key
 * only the target holds is deleted. Memory is one batch of keys, whatever the range's size. The source's rows carry
 * their versions to the target, so versions stay continuous across the move.
 *
 * <p>Without the fence a round is a consistent copy per row, not per range (rows change while it runs); under the
 * fence nothing in the range changes, so the round leaves the target exact. The range predicate is
 * {@code mod(user, logicalShards) BETWEEN first AND last} (user ids are positive): a sequential scan of the source
 * table per round.
 */
final class RangeCopier {

    /** A table of a shard group: {@code keys} is its primary key, the first being the user id that routes it. */
    record Table(String name, List<String> keys, boolean versioned) {
    }

    /** Rows a round changed in one table. */
    record TableRound(String table, long upserted, long deleted) {
        long changed() {
            return upserted + deleted;
        }
    }

    private static final String COLUMNS = """
            SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
             WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum""";

    private final Database source;
    private final Database target;
    private final int logicalShards;
    private final int first;
    private final int last;
    private final int batchSize;
    private final List<Table> tables;
    /** Per table: column name to SQL type, in the source's column order; set by {@link #prepare()}. */
    private final Map<String, Map<String, String>> columns = new LinkedHashMap<>();

    RangeCopier(Database source, Database target, ShardGroup group, int logicalShards, int first,
                int last, int batchSize) {
        this.source = source;
        this.target = target;
        this.logicalShards = logicalShards;
        this.first = first;
        this.last = last;
        this.batchSize = batchSize;
        this.tables = tables(group);
    }

    /**
     * The tables whose rows a group's users own. The outbox is not among them: its rows are published history of the
     * database they were written in (docs/shard-moves.md, step e). A user's account state and jobs live in their
     * following shard, the exclusions from a count where that count lives (docs/account-lifecycle.md).
     */
    static List<Table> tables(ShardGroup group) {
        Table exclusions = new Table("count_exclusions", List.of("user_id", "counted", "other_id"), false);
        Table offsets = new Table("count_offsets", List.of("user_id", "counted"), false);
        return switch (group) {
            case FOLLOWING -> List.of(new Table("following_adjacency", List.of("follower_id", "relation"), true),
                    new Table("account_states", List.of("user_id"), true),
                    new Table("account_jobs", List.of("user_id", "version"), false), exclusions, offsets);
            case FOLLOWER -> List.of(new Table("follower_adjacency", List.of("followee_id", "relation"), true),
                    new Table("celebrity_followers_page", List.of("followee_id", "relation", "page_num"), false),
                    exclusions, offsets);
        };
    }

    /**
     * Reads every table's columns in both databases and checks that they agree.
     *
     * @throws ShardMoveException when a table is missing or its columns differ (schemas of different versions)
     * @throws SQLException       on a database error
     */
    void prepare() throws SQLException {
        for (Table table : tables) {
            Map<String, String> inSource = columnsOf(source, table.name());
            Map<String, String> inTarget = columnsOf(target, table.name());
            if (inSource.isEmpty() || !inSource.equals(inTarget)) {
                throw new ShardMoveException("table " + table.name() + " differs between " + source.name() + " "
                        + inSource + " and " + target.name() + " " + inTarget
                        + ": migrate both to the same shard schema version first");
            }
            columns.put(table.name(), inSource);
        }
    }

    private static Map<String, String> columnsOf(Database db, String table) throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement(COLUMNS)) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        return out;
    }

    /**
     * Runs one round over every table.
     *
     * @return rows changed in the target per table, in table order
     * @throws SQLException on a database error; the target keeps what was copied so far (the next round goes on)
     */
    List<TableRound> round() throws SQLException {
        List<TableRound> out = new ArrayList<>();
        for (Table table : tables) {
            out.add(round(table));
        }
        return out;
    }

    private TableRound round(Table table) throws SQLException {
        Map<String, String> cols = Objects.requireNonNull(columns.get(table.name()), "prepare() first");
        String scan = scanSql(table, cols);
        int keyCount = table.keys().size();
        List<long[]> toCopy = new ArrayList<>();
        List<long[]> toDelete = new ArrayList<>();
        long upserted = 0;
        long deleted = 0;
        try (Connection sourceScan = source.connect(); Connection targetScan = target.connect();
             Connection sourceRead = source.connect(); Connection targetWrite = target.connect()) {
            // Cursors (fetch size) need a transaction in pgjdbc; a scan is one statement, so one snapshot per side.
            sourceScan.setAutoCommit(false);
            targetScan.setAutoCommit(false);
            try (PreparedStatement s = sourceScan.prepareStatement(scan);
                 PreparedStatement t = targetScan.prepareStatement(scan)) {
                for (PreparedStatement ps : List.of(s, t)) {
                    ps.setFetchSize(batchSize * 4);
                    ps.setInt(1, logicalShards);
                    ps.setInt(2, first);
                    ps.setInt(3, last);
                }
                try (ResultSet sr = s.executeQuery(); ResultSet tr = t.executeQuery()) {
                    long[] sk = next(sr, keyCount);
                    long[] tk = next(tr, keyCount);
                    while (sk != null || tk != null) {
                        int cmp = sk == null ? 1 : tk == null ? -1 : compare(sk, tk);
                        if (cmp < 0) {
                            toCopy.add(sk);
                            sk = next(sr, keyCount);
                        } else if (cmp > 0) {
                            toDelete.add(tk);
                            tk = next(tr, keyCount);
                        } else {
                            if (!Objects.equals(sr.getString(keyCount + 1), tr.getString(keyCount + 1))) {
                                toCopy.add(sk);
                            }
                            sk = next(sr, keyCount);
                            tk = next(tr, keyCount);
                        }
                        if (toCopy.size() >= batchSize) {
                            upserted += copy(table, cols, toCopy, sourceRead, targetWrite);
                            toCopy.clear();
                        }
                        if (toDelete.size() >= batchSize) {
                            deleted += delete(table, cols, toDelete, targetWrite);
                            toDelete.clear();
                        }
                    }
                }
            } finally {
                sourceScan.rollback();
                targetScan.rollback();
            }
            upserted += copy(table, cols, toCopy, sourceRead, targetWrite);
            deleted += delete(table, cols, toDelete, targetWrite);
        }
        return new TableRound(table.name(), upserted, deleted);
    }

    private static long[] next(ResultSet rs, int keyCount) throws SQLException {
        if (!rs.next()) {
            return null;
        }
        long[] key = new long[keyCount];
        for (int i = 0; i < keyCount; i++) {
            key[i] = rs.getLong(i + 1);
        }
        return key;
    }

    static int compare(long[] a, long[] b) {
        for (int i = 0; i < a.length; i++) {
            int c = Long.compare(a[i], b[i]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private String scanSql(Table table, Map<String, String> cols) {
        String keys = quoted(table.keys());
        String fingerprint;
        if (table.versioned()) {
            fingerprint = "version::text";
        } else {
            List<String> rest = new ArrayList<>(cols.keySet());
            rest.removeAll(table.keys());
            fingerprint = "md5(ROW(" + quoted(rest) + ")::text)";
        }
        return "SELECT " + keys + ", " + fingerprint + " FROM " + table.name() + " WHERE mod("
                + quote(table.keys().get(0)) + ", ?) BETWEEN ? AND ? ORDER BY " + keys;
    }

    /** Fetches the source's rows of {@code keys} and upserts them into the target; a row gone meanwhile is skipped. */
    private long copy(Table table, Map<String, String> cols, List<long[]> keys, Connection sourceRead,
                      Connection targetWrite) throws SQLException {
        if (keys.isEmpty()) {
            return 0;
        }
        List<String> names = new ArrayList<>(cols.keySet());
        StringJoiner select = new StringJoiner(", ");
        names.forEach(n -> select.add(quote(n) + "::text"));
        String fetch = "SELECT " + select + " FROM " + table.name() + " WHERE (" + quoted(table.keys()) + ") IN ("
                + unnest(table, cols) + ")";
        StringJoiner values = new StringJoiner(", ");
        StringJoiner updates = new StringJoiner(", ");
        for (String n : names) {
            values.add("?::" + cols.get(n));
            if (!table.keys().contains(n)) {
                updates.add(quote(n) + " = EXCLUDED." + quote(n));
            }
        }
        String upsert = "INSERT INTO " + table.name() + " (" + quoted(names) + ") VALUES (" + values
                + ") ON CONFLICT (" + quoted(table.keys()) + ")"
                + (updates.length() == 0 ? " DO NOTHING" : " DO UPDATE SET " + updates); // a row of keys only
        long rows = 0;
        boolean autoCommit = targetWrite.getAutoCommit();
        targetWrite.setAutoCommit(false);
        try (PreparedStatement f = sourceRead.prepareStatement(fetch);
             PreparedStatement u = targetWrite.prepareStatement(upsert)) {
            bindKeys(f, table, keys);
            try (ResultSet rs = f.executeQuery()) {
                while (rs.next()) {
                    for (int i = 1; i <= names.size(); i++) {
                        u.setString(i, rs.getString(i));
                    }
                    u.addBatch();
                    rows++;
                }
            }
            u.executeBatch();
            targetWrite.commit();
        } catch (SQLException | RuntimeException e) {
            targetWrite.rollback();
            throw e;
        } finally {
            targetWrite.setAutoCommit(autoCommit);
        }
        return rows;
    }

    private long delete(Table table, Map<String, String> cols, List<long[]> keys, Connection targetWrite)
            throws SQLException {
        if (keys.isEmpty()) {
            return 0;
        }
        String sql = "DELETE FROM " + table.name() + " WHERE (" + quoted(table.keys()) + ") IN (" + unnest(table, cols)
                + ")";
        try (PreparedStatement ps = targetWrite.prepareStatement(sql)) {
            bindKeys(ps, table, keys);
            return ps.executeUpdate();
        }
    }

    /** {@code SELECT * FROM unnest(?::bigint[], ?::smallint[], ..)}: one array parameter per key column. */
    private static String unnest(Table table, Map<String, String> cols) {
        StringJoiner arrays = new StringJoiner(", ");
        table.keys().forEach(k -> arrays.add("?::" + cols.get(k) + "[]"));
        return "SELECT * FROM unnest(" + arrays + ")";
    }

    private static void bindKeys(PreparedStatement ps, Table table, List<long[]> keys) throws SQLException {
        for (int k = 0; k < table.keys().size(); k++) {
            StringBuilder array = new StringBuilder(keys.size() * 8).append('{');
            for (int i = 0; i < keys.size(); i++) {
                if (i > 0) {
                    array.append(',');
                }
                array.append(keys.get(i)[k]);
            }
            ps.setString(k + 1, array.append('}').toString());
        }
    }

    private static String quoted(List<String> names) {
        StringJoiner out = new StringJoiner(", ");
        names.forEach(n -> out.add(quote(n)));
        return out.toString();
    }

    private static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }
}
