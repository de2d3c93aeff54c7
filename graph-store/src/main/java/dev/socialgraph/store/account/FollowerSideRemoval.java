package dev.socialgraph.store.account;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageHeader;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FolloweeChanges;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.follower.FollowerSideWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The follower side of one relation as the account jobs use it, on the caller's transaction in the followee's
 * FOLLOWER shard: every follower of a user (row or celebrity pages), and the removal of one follower under the
 * follower row's lock, the way the event consumer removes one ({@link FolloweeChanges}, written by
 * {@link FollowerSideWriter#write}), without an event: an erased user's entries leave other users' follower sides
 * directly. Stateless and thread-safe.
 */
public final class FollowerSideRemoval {

    private static final long[] NONE = {};

    private final FollowerRepository rows;
    private final CelebrityPageRepository pages;
    private final FollowerSideWriter writer;

    /** @param relation follows or blocks (mutes keep no follower side) */
    public FollowerSideRemoval(Relation relation) {
        if (!relation.keepsReverse()) {
            throw new IllegalArgumentException(relation.wireName() + "s keep no follower side");
        }
        this.rows = new FollowerRepository(relation);
        this.pages = new CelebrityPageRepository(relation);
        this.writer = new FollowerSideWriter(rows, pages);
    }

    /**
     * Every follower of {@code followeeId} in its row or its celebrity pages, ascending and distinct; no lock.
     *
     * @return the ids, empty when the user has no follower row
     */
    public long[] followers(Connection connection, long followeeId) throws SQLException {
        FollowerRow row = rows.find(connection, followeeId).orElse(null);
        if (row == null) {
            return NONE;
        }
        long[] ids;
        if (row.celebrity()) {
            List<CelebrityPage> all = pages.all(connection, followeeId);
            int n = 0;
            for (CelebrityPage page : all) {
                n += page.followerIds().length;
            }
            ids = new long[n];
            int at = 0;
            for (CelebrityPage page : all) {
                System.arraycopy(page.followerIds(), 0, ids, at, page.followerIds().length);
                at += page.followerIds().length;
            }
        } else {
            ids = row.followerIds().clone();
        }
        Arrays.sort(ids);
        return ids;
    }

    /**
     * Removes {@code followerId} from {@code followeeId}'s follower row or celebrity page, if there: the row is
     * locked, written with {@code version + 1} and its count lowered; a page that becomes empty is deleted.
     *
     * @return whether it was there (and is removed now)
     */
    public boolean remove(Connection connection, long followeeId, long followerId) throws SQLException {
        FollowerRow row = rows.lock(connection, followeeId).orElse(null);
        if (row == null) {
            return false;
        }
        long[] ids = {followerId};
        List<CelebrityPageHeader> headers = List.of();
        Map<Integer, CelebrityPage> loaded = Map.of();
        long time;
        if (row.celebrity()) {
            headers = pages.headers(connection, followeeId);
            loaded = pages.byNumberOrFollower(connection, followeeId, new int[0], ids);
            time = timeOf(loaded.values(), followerId);
        } else {
            time = timeOf(row.followerIds(), row.followedAt(), followerId);
        }
        if (time == Long.MIN_VALUE) {
            return false;
        }
        // A removal never grows a row past the celebrity threshold nor a page past its size: no limits apply.
        FolloweeChanges.Result result = FolloweeChanges.apply(row, headers, loaded, ids, new long[] {time},
                new boolean[] {false}, Long.MAX_VALUE, Integer.MAX_VALUE);
        writer.write(connection, row, result);
        return result.changed();
    }

    private static long timeOf(Iterable<CelebrityPage> pages, long followerId) {
        for (CelebrityPage page : pages) {
            long time = timeOf(page.followerIds(), page.followedAt(), followerId);
            if (time != Long.MIN_VALUE) {
                return time;
            }
        }
        return Long.MIN_VALUE;
    }

    /** The entry's follow time, or {@link Long#MIN_VALUE} when absent; the ids are in arrival order, not sorted. */
    private static long timeOf(long[] ids, long[] times, long followerId) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == followerId) {
                return times[i];
            }
        }
        return Long.MIN_VALUE;
    }
}
