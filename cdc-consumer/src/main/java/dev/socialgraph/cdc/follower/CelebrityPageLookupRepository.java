package dev.socialgraph.cdc.follower;

import dev.socialgraph.store.CelebrityPage;
import dev.socialgraph.store.SqlArrays;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.postgresql.PGConnection;

/**
 * The reads the consumer needs to apply a batch to a celebrity without reading all of its pages (200M followers
 * are 2,000 pages of 100,000): the pages' headers, then in full only the pages the batch can touch. On the
 * caller's transaction, under the follower row's lock. Stateless and thread-safe.
 *
 * <p>The overlap test {@code follower_ids && ?} still reads every page of the followee inside PostgreSQL (there is
 * no GIN index on {@code follower_ids}), but ships and parses only the matching pages.
 */
final class CelebrityPageLookupRepository {

    private static final String HEADERS = """
            SELECT page_num, cardinality(follower_ids) AS size,
                   coalesce(follower_ids[1], 0) AS first_id, coalesce(followed_at[1], 0) AS first_followed_at
              FROM celebrity_followers_page
             WHERE followee_id = ?
             ORDER BY page_num
            """;

    private static final String TOUCHED = """
            SELECT page_num, follower_ids, followed_at
              FROM celebrity_followers_page
             WHERE followee_id = ? AND (page_num = ANY (?) OR follower_ids && ?)
            """;

    /** Every page's header, in page order. */
    List<PageHeader> headers(Connection connection, long followeeId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(HEADERS)) {
            ps.setLong(1, followeeId);
            List<PageHeader> headers = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    headers.add(new PageHeader(rs.getInt("page_num"), rs.getInt("size"), rs.getLong("first_id"),
                            rs.getLong("first_followed_at")));
                }
            }
            return headers;
        }
    }

    /** The pages numbered {@code pageNums} and the pages holding any of {@code followerIds}, by page number. */
    Map<Integer, CelebrityPage> touched(Connection connection, long followeeId, int[] pageNums, long[] followerIds)
            throws SQLException {
        PGConnection pg = connection.unwrap(PGConnection.class);
        try (PreparedStatement ps = connection.prepareStatement(TOUCHED)) {
            ps.setLong(1, followeeId);
            ps.setArray(2, pg.createArrayOf("int4", pageNums));
            ps.setArray(3, pg.createArrayOf("int8", followerIds));
            Map<Integer, CelebrityPage> pages = new HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int pageNum = rs.getInt("page_num");
                    pages.put(pageNum, new CelebrityPage(followeeId, pageNum, SqlArrays.longs(rs.getArray("follower_ids")),
                            SqlArrays.longs(rs.getArray("followed_at"))));
                }
            }
            return pages;
        }
    }
}
