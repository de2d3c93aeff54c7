package dev.socialgraph.store.follower;

import dev.socialgraph.common.adjacency.TimeOrderedAdjacency;
import dev.socialgraph.common.relation.Relation;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * The live write of one followee's follower side, on the caller's transaction in the followee's FOLLOWER shard: lock
 * the follower row, read only the celebrity pages a batch can touch, compute the new state with
 * {@link FolloweeChanges} (and so {@link CelebrityPageLayout}), and write the pages and the row. The cdc-consumer
 * applies its events this way, and the account jobs write their removals with {@link #write}; the bulk importer,
 * which rebuilds whole databases, writes the same layout with {@link CelebrityPageRepository#replaceAll}.
 *
 * <p>One instance writes one relation's follower side (followers for follows, blocked-by for blocks). Stateless and
 * thread-safe.
 */
public final class FollowerSideWriter {

    private static final long[] NONE = {};

    private final FollowerRepository rows;
    private final CelebrityPageRepository pages;

    /**
     * @param rows  the relation's follower rows
     * @param pages the same relation's celebrity pages
     */
    public FollowerSideWriter(FollowerRepository rows, CelebrityPageRepository pages) {
        this.rows = rows;
        this.pages = pages;
    }

    /** @param relation follows or blocks (mutes keep no follower side, and their rows would never be read) */
    public FollowerSideWriter(Relation relation) {
        this(new FollowerRepository(relation), new CelebrityPageRepository(relation));
    }

    /**
     * Applies a batch of changes of {@code followeeId}'s followers in order, with at most one write of its row and of
     * each page it changes; idempotent (a change already applied changes nothing and writes nothing). A batch that only
     * removes and finds no row creates none.
     *
     * @param opIds      follower of each change, positive user ids
     * @param opTimes    aligned follow times, epoch ms (for a removal: of the follow it removes)
     * @param opIsFollow aligned: an addition, or a removal
     * @param threshold  follower count at which a plain row moves into pages ({@link CelebrityPageLayout#reachesThreshold})
     * @param pageSize   entries per celebrity page
     * @return what was computed and written; not {@link FolloweeChanges.Result#changed()} when nothing was written
     * @throws SQLException             as the database reported it
     * @throws IllegalArgumentException when the stored row is malformed (nothing written)
     * @throws IllegalStateException    when the stored pages are (a follower on two pages; nothing written)
     */
    public FolloweeChanges.Result apply(Connection connection, long followeeId, long[] opIds, long[] opTimes,
                                        boolean[] opIsFollow, long threshold, int pageSize) throws SQLException {
        boolean removalsOnly = true;
        for (boolean follow : opIsFollow) {
            removalsOnly &= !follow;
        }
        FollowerRow row = removalsOnly ? rows.lock(connection, followeeId).orElse(null)
                : rows.lockOrCreate(connection, followeeId);
        if (row == null) {
            return new FolloweeChanges.Result(false, NONE, NONE, 0, false, false, List.of(), List.of());
        }
        TimeOrderedAdjacency.requireWellFormed(row.followerIds(), row.followedAt());
        List<CelebrityPageHeader> headers = List.of();
        Map<Integer, CelebrityPage> loaded = Map.of();
        if (row.celebrity()) {
            // Only the pages this batch can touch, not all of a celebrity's pages.
            headers = pages.headers(connection, followeeId);
            loaded = pages.byNumberOrFollower(connection, followeeId,
                    FolloweeChanges.pagesToLoad(headers, opIds, opTimes, opIsFollow), opIds);
        }
        FolloweeChanges.Result result = FolloweeChanges.apply(row, headers, loaded, opIds, opTimes, opIsFollow,
                threshold, pageSize);
        write(connection, row, result);
        return result;
    }

    /**
     * Writes a result {@link FolloweeChanges} computed from {@code row} and its pages, read under the row's lock (held
     * still): the pages it deletes, the pages it writes, then the row at {@code version + 1}. Nothing when the result
     * is unchanged.
     *
     * @throws IllegalStateException when the row's version moved meanwhile (the caller did not hold its lock)
     */
    public void write(Connection connection, FollowerRow row, FolloweeChanges.Result result) throws SQLException {
        if (!result.changed()) {
            return;
        }
        for (int pageNum : result.pageDeletes()) {
            pages.delete(connection, row.followeeId(), pageNum);
        }
        for (CelebrityPage page : result.pageUpserts()) {
            pages.upsert(connection, page);
        }
        rows.writeNextVersion(connection, row, result.followerIds(), result.followedAt(), result.followerCount(),
                result.celebrity());
    }
}
