package dev.socialgraph.store.follower;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.store.sql.Jdbc;
import dev.socialgraph.store.sql.Sql;
import dev.socialgraph.store.sql.SqlArrays;
import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.postgresql.PGConnection;

/**
 * JDBC access to {@code celebrity_followers_page} rows (DESIGN.md 2.2), on the caller's transaction.
 * Writers lock the followee's {@code follower_adjacency} row first ({@link FollowerRepository#lock}); that lock
 * serializes every change to the followee's pages. Stateless and thread-safe.
 *
 * <p>A writer that applies a few changes to a celebrity with many pages (200M followers are 2,000 pages of
 * 100,000) reads {@link #headers} and then in full only the pages it touches ({@link #byNumberOrFollower}), not
 * {@link #all}. The overlap test {@code follower_ids && ?} there still reads every page of the followee inside
 * PostgreSQL (there is no GIN index on {@code follower_ids}), but ships and parses only the matching pages.
 *
 * <p>A writer that rebuilds a whole database's pages at once (the bulk importer) stages them with {@link #replaceAll}
 * and merges them in one statement, writing only the pages that changed, in the layout {@link #upsert} writes.
 *
 * <p>One instance reads and writes one {@link Relation}'s pages; the no-argument constructor gives follows.
 */
public final class CelebrityPageRepository {

    private static final String COLUMNS = "followee_id, page_num, follower_ids, followed_at";

    private static final String ALL = """
            SELECT %s FROM celebrity_followers_page WHERE followee_id = ? AND relation = :relation ORDER BY page_num
            """.formatted(COLUMNS);

    private static final String LAST = """
            SELECT %s FROM celebrity_followers_page WHERE followee_id = ? AND relation = :relation ORDER BY page_num DESC LIMIT 1
            """.formatted(COLUMNS);

    private static final String CONTAINING = """
            SELECT %s FROM celebrity_followers_page
             WHERE followee_id = ? AND relation = :relation AND min_followed_at <= ? AND max_followed_at >= ?
             ORDER BY page_num
            """.formatted(COLUMNS);

    private static final String NEWEST_FIRST = """
            SELECT %s FROM celebrity_followers_page
             WHERE followee_id = ? AND relation = :relation AND min_followed_at <= ?
             ORDER BY page_num DESC LIMIT ?
            """.formatted(COLUMNS);

    private static final String HEADERS = """
            SELECT page_num, cardinality(follower_ids) AS size,
                   coalesce(follower_ids[1], 0) AS first_id, coalesce(followed_at[1], 0) AS first_followed_at
              FROM celebrity_followers_page
             WHERE followee_id = ? AND relation = :relation
             ORDER BY page_num
            """;

    private static final String BY_NUMBER_OR_FOLLOWER = """
            SELECT page_num, follower_ids, followed_at
              FROM celebrity_followers_page
             WHERE followee_id = ? AND relation = :relation AND (page_num = ANY (?) OR follower_ids && ?)
            """;

    private static final String UPSERT = """
            INSERT INTO celebrity_followers_page
                   (followee_id, relation, page_num, follower_ids, followed_at, min_followed_at, max_followed_at)
            VALUES (?, :relation, ?, ?, ?, ?, ?)
            ON CONFLICT (followee_id, relation, page_num) DO UPDATE
               SET follower_ids = EXCLUDED.follower_ids, followed_at = EXCLUDED.followed_at,
                   min_followed_at = EXCLUDED.min_followed_at, max_followed_at = EXCLUDED.max_followed_at
            """;

    private static final String DELETE = """
            DELETE FROM celebrity_followers_page WHERE followee_id = ? AND relation = :relation AND page_num = ?
            """;

    // The bulk replacement of every page of one relation in a database (the importer's), through a staging table.
    // The table is not per relation: one transaction may replace several relations' pages one after the other.

    private static final String STAGE = """
            CREATE TEMP TABLE IF NOT EXISTS staging_pages (
                followee_id BIGINT NOT NULL, page_num INT NOT NULL, follower_ids BIGINT[] NOT NULL,
                followed_at BIGINT[] NOT NULL, min_followed_at BIGINT, max_followed_at BIGINT,
                PRIMARY KEY (followee_id, page_num)) ON COMMIT DROP
            """;

    private static final String CLEAR_STAGED = "TRUNCATE staging_pages";

    private static final String COPY_STAGED = "COPY staging_pages FROM STDIN";

    private static final String DELETE_UNSTAGED = """
            DELETE FROM celebrity_followers_page p
             WHERE p.relation = :relation AND NOT EXISTS (SELECT 1 FROM staging_pages s
                                WHERE s.followee_id = p.followee_id AND s.page_num = p.page_num)
            """;

    private static final String MERGE_STAGED = """
            INSERT INTO celebrity_followers_page AS t
                   (followee_id, relation, page_num, follower_ids, followed_at, min_followed_at, max_followed_at)
            SELECT followee_id, :relation, page_num, follower_ids, followed_at, min_followed_at, max_followed_at
              FROM staging_pages
            ON CONFLICT (followee_id, relation, page_num) DO UPDATE
               SET follower_ids = EXCLUDED.follower_ids, followed_at = EXCLUDED.followed_at,
                   min_followed_at = EXCLUDED.min_followed_at, max_followed_at = EXCLUDED.max_followed_at
             WHERE (t.follower_ids, t.followed_at) IS DISTINCT FROM (EXCLUDED.follower_ids, EXCLUDED.followed_at)
            """;

    private final Relation relation;
    private final String allSql;
    private final String lastSql;
    private final String containingSql;
    private final String newestFirstSql;
    private final String headersSql;
    private final String byNumberOrFollowerSql;
    private final String upsertSql;
    private final String deleteSql;
    private final String deleteUnstagedSql;
    private final String mergeStagedSql;

    /** Follows' pages. */
    public CelebrityPageRepository() {
        this(Relation.FOLLOW);
    }

    /**
     * Pages of one relation.
     *
     * @param relation follows or blocks
     */
    public CelebrityPageRepository(Relation relation) {
        this.relation = relation;
        this.allSql = Sql.forRelation(ALL, relation);
        this.lastSql = Sql.forRelation(LAST, relation);
        this.containingSql = Sql.forRelation(CONTAINING, relation);
        this.newestFirstSql = Sql.forRelation(NEWEST_FIRST, relation);
        this.headersSql = Sql.forRelation(HEADERS, relation);
        this.byNumberOrFollowerSql = Sql.forRelation(BY_NUMBER_OR_FOLLOWER, relation);
        this.upsertSql = Sql.forRelation(UPSERT, relation);
        this.deleteSql = Sql.forRelation(DELETE, relation);
        this.deleteUnstagedSql = Sql.forRelation(DELETE_UNSTAGED, relation);
        this.mergeStagedSql = Sql.forRelation(MERGE_STAGED, relation);
    }

    /** The relation this repository's pages belong to. */
    public Relation relation() {
        return relation;
    }

    /** Every page of {@code followeeId}, oldest (page 0) first; empty when it has none. */
    public List<CelebrityPage> all(Connection connection, long followeeId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(allSql)) {
            ps.setLong(1, followeeId);
            return Jdbc.many(ps, CelebrityPageRepository::map);
        }
    }

    /** The newest page (highest number), where new followers are appended. */
    public Optional<CelebrityPage> last(Connection connection, long followeeId) throws SQLException {
        return Jdbc.one(connection, lastSql, followeeId, CelebrityPageRepository::map);
    }

    /**
     * The pages whose time range includes {@code followedAt}: usually one; two or more when equal timestamps
     * straddle a page boundary (ties are ordered by id). An unfollow event finds its entry this way.
     *
     * @param followedAt epoch-ms follow time of the edge
     * @return matching pages in page order, possibly empty
     */
    public List<CelebrityPage> containing(Connection connection, long followeeId, long followedAt) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(containingSql)) {
            ps.setLong(1, followeeId);
            ps.setLong(2, followedAt);
            ps.setLong(3, followedAt);
            return Jdbc.many(ps, CelebrityPageRepository::map);
        }
    }

    /**
     * Pages for a newest-first walk that starts at {@code atOrBeforeFollowedAt}: pages whose earliest entry is not
     * later than it, newest page first.
     *
     * @param atOrBeforeFollowedAt epoch-ms position of the walk ({@link Long#MAX_VALUE} for the first page)
     * @param maxPages             how many pages to read at most, {@code >= 1}
     */
    public List<CelebrityPage> newestFirst(Connection connection, long followeeId, long atOrBeforeFollowedAt,
                                           int maxPages) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(newestFirstSql)) {
            ps.setLong(1, followeeId);
            ps.setLong(2, atOrBeforeFollowedAt);
            ps.setInt(3, maxPages);
            return Jdbc.many(ps, CelebrityPageRepository::map);
        }
    }

    /**
     * Every page's header (number, size, first entry) without its arrays, in page order; empty when
     * {@code followeeId} has no pages. Empty pages have first id and time 0.
     */
    public List<CelebrityPageHeader> headers(Connection connection, long followeeId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(headersSql)) {
            ps.setLong(1, followeeId);
            List<CelebrityPageHeader> headers = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    headers.add(new CelebrityPageHeader(rs.getInt("page_num"), rs.getInt("size"),
                            rs.getLong("first_id"), rs.getLong("first_followed_at")));
                }
            }
            return headers;
        }
    }

    /**
     * The pages of {@code followeeId} numbered one of {@code pageNums} and the pages holding any of
     * {@code followerIds}: what a batch of changes can touch.
     *
     * @param pageNums    page numbers, any order; may be empty
     * @param followerIds positive user ids, any order; may be empty
     * @return the pages found, by page number
     */
    public Map<Integer, CelebrityPage> byNumberOrFollower(Connection connection, long followeeId, int[] pageNums,
                                                          long[] followerIds) throws SQLException {
        PGConnection pg = connection.unwrap(PGConnection.class);
        try (PreparedStatement ps = connection.prepareStatement(byNumberOrFollowerSql)) {
            ps.setLong(1, followeeId);
            ps.setArray(2, pg.createArrayOf("int4", pageNums));
            ps.setArray(3, pg.createArrayOf("int8", followerIds));
            Map<Integer, CelebrityPage> pages = new HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int pageNum = rs.getInt("page_num");
                    pages.put(pageNum, new CelebrityPage(followeeId, pageNum, SqlArrays.longs(rs, "follower_ids"),
                            SqlArrays.longs(rs, "followed_at")));
                }
            }
            return pages;
        }
    }

    /** Inserts or replaces a page. The caller holds the followee's follower-row lock. */
    public void upsert(Connection connection, CelebrityPage page) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(upsertSql)) {
            ps.setLong(1, page.followeeId());
            ps.setInt(2, page.pageNum());
            ps.setArray(3, SqlArrays.bigintArray(connection, page.followerIds()));
            ps.setArray(4, SqlArrays.bigintArray(connection, page.followedAt()));
            if (page.followedAt().length == 0) {
                ps.setNull(5, java.sql.Types.BIGINT);
                ps.setNull(6, java.sql.Types.BIGINT);
            } else {
                ps.setLong(5, page.minFollowedAt());
                ps.setLong(6, page.maxFollowedAt());
            }
            ps.executeUpdate();
        }
    }

    /** Deletes a page; returns whether it existed. The caller holds the followee's follower-row lock. */
    public boolean delete(Connection connection, long followeeId, int pageNum) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(deleteSql)) {
            ps.setLong(1, followeeId);
            ps.setInt(2, pageNum);
            return ps.executeUpdate() == 1;
        }
    }

    /**
     * Starts replacing every page of this relation in the connection's database, for a writer that rebuilds the whole
     * follower side at once (the bulk importer): the pages {@link Replacement#add}ed are the database's pages of this
     * relation after {@link Replacement#finish()}, in the same row layout {@link #upsert} writes. On the caller's
     * transaction, which must not have a {@code COPY} in progress now; pages may be added while one is (they are held
     * in memory until {@code finish}). The caller holds whatever keeps the followees' pages from changing meanwhile (the
     * importer: nothing else writes during an import).
     *
     * @return the replacement, to be finished in the same transaction
     */
    public Replacement replaceAll(Connection connection) throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.execute(STAGE);
            st.execute(CLEAR_STAGED);
        }
        return new Replacement(connection);
    }

    /**
     * A replacement of every page of one relation in one database, started by {@link #replaceAll}. Not thread-safe.
     */
    public final class Replacement {

        private final Connection connection;
        private final StringBuilder lines = new StringBuilder();
        private long pages;

        private Replacement(Connection connection) {
            this.connection = connection;
        }

        /**
         * Adds a page of the new state (at most one page per followee and number). Pages of a followee come from
         * {@link CelebrityPageLayout}, as for every other writer.
         *
         * @param page a page of this relation, with at least one entry
         * @throws IllegalArgumentException for an empty page (a replacement writes no empty page)
         */
        public void add(CelebrityPage page) {
            long[] ids = page.followerIds();
            if (ids.length == 0) {
                throw new IllegalArgumentException("page " + page.pageNum() + " of " + page.followeeId()
                        + " is empty: a replacement writes no empty page");
            }
            lines.append(page.followeeId()).append('\t').append(page.pageNum()).append('\t');
            appendArray(lines, ids);
            lines.append('\t');
            appendArray(lines, page.followedAt());
            lines.append('\t').append(page.minFollowedAt()).append('\t').append(page.maxFollowedAt()).append('\n');
            pages++;
        }

        /** Pages added so far. */
        public long pages() {
            return pages;
        }

        /**
         * Makes the added pages this relation's pages in the database: a stored page that was not added is deleted, an
         * added page is inserted or, when its entries differ from the stored page's, rewritten; an unchanged page is
         * not written.
         *
         * @return pages deleted, inserted or rewritten
         */
        public long finish() throws SQLException {
            if (!lines.isEmpty()) {
                try {
                    connection.unwrap(PGConnection.class).getCopyAPI().copyIn(COPY_STAGED,
                            new StringReader(lines.toString()));
                } catch (IOException e) {
                    throw new SQLException("the staged pages could not be read", e); // only the reader fails so: never
                }
                lines.setLength(0);
            }
            try (Statement st = connection.createStatement()) {
                return st.executeUpdate(deleteUnstagedSql) + (long) st.executeUpdate(mergeStagedSql);
            }
        }
    }

    private static void appendArray(StringBuilder sb, long[] values) {
        sb.append('{');
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(values[i]);
        }
        sb.append('}');
    }

    private static CelebrityPage map(ResultSet rs) throws SQLException {
        return new CelebrityPage(rs.getLong("followee_id"), rs.getInt("page_num"),
                SqlArrays.longs(rs, "follower_ids"), SqlArrays.longs(rs, "followed_at"));
    }
}
