package dev.socialgraph.check.store;

import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.check.relations.RelationReads;
import dev.socialgraph.common.adjacency.Page;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.CelebrityPage;
import dev.socialgraph.store.CelebrityPageRepository;
import dev.socialgraph.store.FollowerPages;
import dev.socialgraph.store.FollowerRepository;
import dev.socialgraph.store.FollowerRow;
import dev.socialgraph.store.FollowingRepository;
import dev.socialgraph.store.FollowingRow;
import dev.socialgraph.store.FollowingSliceRepository;
import dev.socialgraph.store.OutboxRepository;
import dev.socialgraph.store.ShardDataSources;
import dev.socialgraph.store.SqlErrors;
import dev.socialgraph.store.account.CountExclusionRepository;
import dev.socialgraph.store.account.Counted;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.stereotype.Component;

/**
 * Read-only access to both shard groups (DESIGN.md 2): the following row (source of truth for checks and
 * following lists) and the follower side (follower lists, celebrity pages, counts). Reads run with
 * auto-commit and take no locks. A database that cannot be reached raises {@link ShardUnavailableException};
 * every other database error is a bug and propagates as {@link IllegalStateException}.
 *
 * <p>Shards can move between databases while the service runs (docs/shard-moves.md). A user's rows are read with
 * {@link ShardDataSources#readUser}, which goes to the new owner once the old one says the shard moved in a map newer
 * than this instance's. {@link #followingRows} (suggestions) groups many users per database by the map of now
 * instead, and may read a moved user's frozen row on its old owner until the poller applies the newer map (one poll
 * interval). Scans (bloom filter start-up, counts, the outbox probe) read whole databases of the map of now.
 */
@Component
public class ShardReader implements FollowChecker.Shards, RelationReads.Shards {

    /** Rows per query of a full scan. */
    private static final int SCAN_BATCH = 500;

    private final ShardDataSources dataSources;
    private final FollowingRepository following;
    private final FollowerRepository followers;
    private final CelebrityPageRepository celebrityPages;
    private final FollowingSliceRepository slices = new FollowingSliceRepository();
    private final FollowerPages followerPages;
    private final FollowingRepository blocks = new FollowingRepository(Relation.BLOCK);
    private final FollowingRepository mutes = new FollowingRepository(Relation.MUTE);
    private final FollowerRepository blockedBy = new FollowerRepository(Relation.BLOCK);
    private final CelebrityPageRepository blockedByPages = new CelebrityPageRepository(Relation.BLOCK);
    private final OutboxRepository outbox;
    /** The inactive users taken out of a count (docs/account-lifecycle.md), where that count lives. */
    private final CountExclusionRepository exclusions = new CountExclusionRepository();

    ShardReader(ShardDataSources dataSources, FollowingRepository following, FollowerRepository followers,
                CelebrityPageRepository celebrityPages, OutboxRepository outbox) {
        this.outbox = outbox;
        this.dataSources = dataSources;
        this.following = following;
        this.followers = followers;
        this.celebrityPages = celebrityPages;
        this.followerPages = new FollowerPages(followers, celebrityPages);
    }

    /**
     * The following row of {@code followerId}; an empty row of version 0 when the user never followed anyone.
     *
     * @param followerId positive user id
     * @return the row as stored
     * @throws ShardUnavailableException when its database is down
     */
    @Override
    public FollowingRow following(long followerId) {
        return read(ShardGroup.FOLLOWING, followerId,
                c -> following.find(c, followerId).orElseGet(() -> FollowingRow.empty(followerId)));
    }

    /**
     * The following rows of many users, one query per physical database of the map of now; absent users get empty
     * rows. A user whose shard moved is read on its old owner until this instance applies the newer map.
     *
     * @param followerIds positive user ids, any order
     * @return rows in no particular order, one per distinct id
     * @throws ShardUnavailableException when one of the databases is down
     */
    public List<FollowingRow> followingRows(long[] followerIds) {
        Map<DataSource, long[]> byDatabase = new IdentityHashMap<>();
        Map<DataSource, Integer> counts = new IdentityHashMap<>();
        for (long id : followerIds) {
            DataSource ds = dataSources.forUser(ShardGroup.FOLLOWING, id);
            int n = counts.getOrDefault(ds, 0);
            long[] ids = byDatabase.computeIfAbsent(ds, k -> new long[followerIds.length]);
            ids[n] = id;
            counts.put(ds, n + 1);
        }
        List<FollowingRow> rows = new ArrayList<>(followerIds.length);
        for (Map.Entry<DataSource, long[]> e : byDatabase.entrySet()) {
            long[] ids = Arrays.copyOf(e.getValue(), counts.get(e.getKey()));
            rows.addAll(read(e.getKey(), ids[0], c -> following.findAll(c, ids)));
        }
        return rows;
    }

    /**
     * The block or mute row of {@code userId}: whom the user blocks or mutes, sorted by id with aligned times.
     *
     * @param relation {@link Relation#BLOCK} or {@link Relation#MUTE}
     * @param userId   positive user id
     * @return the row; an empty row of version 0 when the user never blocked (muted) anyone
     * @throws ShardUnavailableException when its database is down
     */
    @Override
    public FollowingRow relationRow(Relation relation, long userId) {
        FollowingRepository rows = repository(relation);
        return read(ShardGroup.FOLLOWING, userId,
                c -> rows.find(c, userId).orElseGet(() -> FollowingRow.empty(userId)));
    }

    /**
     * Whether {@code sourceId} has {@code targetId} in its row of {@code relation}, answered inside PostgreSQL.
     *
     * @throws ShardUnavailableException when the source's database is down
     */
    @Override
    public boolean holds(Relation relation, long sourceId, long targetId) {
        FollowingRepository rows = repository(relation);
        return read(ShardGroup.FOLLOWING, sourceId, c -> rows.contains(c, sourceId, targetId));
    }

    /**
     * Which of {@code ids} block {@code userId}, from the user's blocked-by row and pages on its follower database
     * (the follower side of blocks, eventually consistent like followers).
     *
     * @param userId positive user id
     * @param ids    positive user ids, ascending, distinct
     * @return the blockers among {@code ids}, ascending
     * @throws ShardUnavailableException when its database is down
     */
    @Override
    public long[] blockedByAmong(long userId, long[] ids) {
        if (ids.length == 0) {
            return ids;
        }
        return read(ShardGroup.FOLLOWER, userId, c -> {
            FollowerRow row = blockedBy.find(c, userId).orElse(null);
            if (row == null || row.followerCount() == 0) {
                return new long[0];
            }
            if (!row.celebrity()) {
                long[] sorted = row.followerIds().clone();
                Arrays.sort(sorted);
                return AdjacencyArray.intersect(sorted, ids, ids.length);
            }
            long[] found = new long[0];
            for (CelebrityPage page : blockedByPages.byNumberOrFollower(c, userId, new int[0], ids).values()) {
                long[] sorted = page.followerIds().clone();
                Arrays.sort(sorted);
                long[] more = AdjacencyArray.intersect(sorted, ids, ids.length);
                long[] merged = Arrays.copyOf(found, found.length + more.length);
                System.arraycopy(more, 0, merged, found.length, more.length);
                found = merged;
            }
            Arrays.sort(found);
            return found;
        });
    }

    /**
     * The number of block and mute edges in the following group, to size the in-process filter of hidden pairs.
     *
     * @throws ShardUnavailableException when a database is down
     */
    public long relationEdgeCount() {
        long total = 0;
        for (DataSource ds : followingDatabases()) {
            total += read(ds, 0, blocks::edgeCount) + read(ds, 0, mutes::edgeCount);
        }
        return total;
    }

    /**
     * Streams every block or mute edge of the following group, source first, in batches of {@value #SCAN_BATCH}
     * rows per database.
     *
     * @param relation {@link Relation#BLOCK} or {@link Relation#MUTE}
     * @param sink     receives each (source, target)
     * @return the number of edges streamed
     * @throws ShardUnavailableException when a database is down
     */
    public long scanRelationEdges(Relation relation, EdgeSink sink) {
        return scan(repository(relation), sink);
    }

    private FollowingRepository repository(Relation relation) {
        return switch (relation) {
            case FOLLOW -> following;
            case BLOCK -> blocks;
            case MUTE -> mutes;
        };
    }

    /**
     * The follower row of {@code followeeId}; an empty row when nobody ever followed the user.
     *
     * @param followeeId positive user id
     * @return the row (for a celebrity its arrays are empty and the ids are in pages)
     * @throws ShardUnavailableException when its database is down
     */
    public FollowerRow followerRow(long followeeId) {
        return read(ShardGroup.FOLLOWER, followeeId,
                c -> followers.find(c, followeeId).orElseGet(() -> FollowerRow.empty(followeeId)));
    }

    /**
     * How many users {@code followerId} follows, from the count column of its following row, less the inactive
     * users taken out of it.
     *
     * @param followerId positive user id
     * @return {@code 0..10000}
     * @throws ShardUnavailableException when its database is down
     */
    public int followingCount(long followerId) {
        return read(ShardGroup.FOLLOWING, followerId, c -> (int) Math.max(0, following.count(c, followerId)
                - exclusions.offset(c, followerId, Counted.FOLLOWING)));
    }

    /**
     * How many users follow {@code followeeId}, from the count column of its follower row (eventually consistent),
     * less the inactive users taken out of it.
     *
     * @param followeeId positive user id
     * @return {@code >= 0}
     * @throws ShardUnavailableException when its database is down
     */
    public long followerCount(long followeeId) {
        return read(ShardGroup.FOLLOWER, followeeId, c -> Math.max(0, followers.count(c, followeeId)
                - exclusions.offset(c, followeeId, Counted.FOLLOWERS)));
    }

    /**
     * The age of the oldest unpublished outbox row over every following database (the feed-lag guard's outbox
     * probe), by each database's clock.
     *
     * @return ms, {@code >= 0}, or {@code -1} when no database has an unpublished row
     * @throws ShardUnavailableException when a following database is down (its relay's progress is then unknown)
     */
    public long oldestUnpublishedAgeMillis() {
        long oldest = -1;
        for (DataSource ds : followingDatabases()) {
            oldest = Math.max(oldest, read(ds, 0, outbox::oldestUnpublishedAgeMillis));
        }
        return oldest;
    }

    /**
     * One newest-first page of who follows {@code followeeId}, from the follower row or, for a celebrity, by
     * walking its pages from the newest down (DESIGN.md 2.2). Row and pages are read in one transaction.
     *
     * @param followeeId       positive user id
     * @param cursorFollowedAt position to continue after (ignored when {@code cursorId == Page.START})
     * @param cursorId         position to continue after, or {@link Page#START}
     * @param limit            page size, {@code >= 1}
     * @return the page
     * @throws ShardUnavailableException when its database is down
     */
    public Page followers(long followeeId, long cursorFollowedAt, long cursorId, int limit) {
        // newestFirst opens its REPEATABLE READ transaction on the connection and leaves it in auto-commit again.
        return read(ShardGroup.FOLLOWER, followeeId,
                c -> followerPages.newestFirst(c, followeeId, cursorFollowedAt, cursorId, limit));
    }

    /** Receives the edges of a scan. */
    @FunctionalInterface
    public interface EdgeSink {
        /**
         * One edge.
         *
         * @param follower positive
         * @param followee positive
         */
        void accept(long follower, long followee);
    }

    /**
     * The number of follow edges in the following group: the sum of {@code following_count} of every database.
     *
     * @return edges, {@code >= 0}
     * @throws ShardUnavailableException when a database is down
     */
    public long edgeCount() {
        long total = 0;
        for (DataSource ds : followingDatabases()) {
            total += read(ds, 0, following::edgeCount);
        }
        return total;
    }

    /**
     * Streams every follow edge of the following group, row by row in batches of {@value #SCAN_BATCH} rows per
     * database (for building the bloom filter).
     *
     * @param sink receives each edge
     * @return the number of edges streamed
     * @throws ShardUnavailableException when a database is down
     */
    public long scanEdges(EdgeSink sink) {
        return scan(following, sink);
    }

    private long scan(FollowingRepository repository, EdgeSink sink) {
        long edges = 0;
        for (DataSource ds : followingDatabases()) {
            long after = 0;
            while (true) {
                long from = after;
                List<FollowingRow> rows = read(ds, from, c -> repository.scan(c, from, SCAN_BATCH));
                for (FollowingRow row : rows) {
                    long[] ids = row.followingIds();
                    for (long id : ids) {
                        sink.accept(row.followerId(), id);
                    }
                    edges += ids.length;
                    after = row.followerId();
                }
                if (rows.size() < SCAN_BATCH) {
                    break;
                }
            }
        }
        return edges;
    }

    /**
     * The number of follow edges of the followers in {@code ownedShards} (an instance that owns a slice of the
     * logical shards); only databases holding one of them are asked.
     *
     * @param ownedShards logical shards, ascending, each in {@code 0..logicalShardCount-1}
     * @return edges, {@code >= 0}
     * @throws ShardUnavailableException when one of those databases is down
     */
    public long edgeCount(int[] ownedShards) {
        int count = dataSources.shardMap().logicalShardCount();
        long total = 0;
        for (Map.Entry<DataSource, int[]> e : followingDatabases(ownedShards).entrySet()) {
            total += read(e.getKey(), 0, c -> slices.edgeCount(c, count, e.getValue()));
        }
        return total;
    }

    /**
     * Streams the follow edges of the followers in {@code ownedShards}, in batches of {@value #SCAN_BATCH} rows per
     * database; databases without an owned shard are not read, and the others return only owned followers' rows.
     *
     * @param ownedShards logical shards, ascending, each in {@code 0..logicalShardCount-1}
     * @param sink        receives each edge
     * @return the number of edges streamed
     * @throws ShardUnavailableException when one of those databases is down
     */
    public long scanEdges(int[] ownedShards, EdgeSink sink) {
        int count = dataSources.shardMap().logicalShardCount();
        long edges = 0;
        for (Map.Entry<DataSource, int[]> e : followingDatabases(ownedShards).entrySet()) {
            int[] shards = e.getValue();
            long after = 0;
            while (true) {
                long from = after;
                List<FollowingSliceRepository.Row> rows = read(e.getKey(), from,
                        c -> slices.scan(c, count, shards, from, SCAN_BATCH));
                for (FollowingSliceRepository.Row row : rows) {
                    for (long id : row.followingIds()) {
                        sink.accept(row.followerId(), id);
                    }
                    edges += row.followingIds().length;
                    after = row.followerId();
                }
                if (rows.size() < SCAN_BATCH) {
                    break;
                }
            }
        }
        return edges;
    }

    /** The following databases holding one of {@code shards}, each with the ones of {@code shards} it holds. */
    private Map<DataSource, int[]> followingDatabases(int[] shards) {
        Map<DataSource, int[]> byDatabase = new LinkedHashMap<>();
        for (int shard : shards) {
            DataSource ds = dataSources.forRange(dataSources.shardMap().rangeOfShard(ShardGroup.FOLLOWING, shard));
            int[] held = byDatabase.getOrDefault(ds, new int[0]);
            int[] grown = Arrays.copyOf(held, held.length + 1);
            grown[held.length] = shard;
            byDatabase.put(ds, grown);
        }
        return byDatabase;
    }

    /** Each physical database of the following group once. */
    private List<DataSource> followingDatabases() {
        Map<DataSource, Boolean> seen = new IdentityHashMap<>();
        List<DataSource> out = new ArrayList<>();
        for (ShardRange range : dataSources.shardMap().ranges(ShardGroup.FOLLOWING)) {
            DataSource ds = dataSources.forRange(range);
            if (seen.put(ds, Boolean.TRUE) == null) {
                out.add(ds);
            }
        }
        return out;
    }

    /** Reads {@code userId}'s rows of {@code group} where its shard lives, following a move. */
    private <T> T read(ShardGroup group, long userId, Read<T> work) {
        try {
            return dataSources.readUser(group, userId, work::run);
        } catch (SQLException e) {
            throw failure(userId, e);
        }
    }

    private static <T> T read(DataSource ds, long userId, Read<T> work) {
        try (Connection c = ds.getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw failure(userId, e);
        }
    }

    private static RuntimeException failure(long userId, SQLException e) {
        return SqlErrors.translate(e, "shard database of user " + userId, "shard read for user " + userId);
    }

    @FunctionalInterface
    private interface Read<T> {
        T run(Connection connection) throws SQLException;
    }
}
