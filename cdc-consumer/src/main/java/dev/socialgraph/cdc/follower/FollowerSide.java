package dev.socialgraph.cdc.follower;

import dev.socialgraph.cdc.CdcMetrics;
import dev.socialgraph.cdc.CdcProperties;
import dev.socialgraph.common.adjacency.TimeOrderedAdjacency;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.CelebrityPage;
import dev.socialgraph.store.CelebrityPageRepository;
import dev.socialgraph.store.FollowerRepository;
import dev.socialgraph.store.FollowerRow;
import dev.socialgraph.store.ShardDataSources;
import dev.socialgraph.store.SqlErrors;
import dev.socialgraph.store.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Applies follow events to the follower side (DESIGN.md 4): per batch, the events of each followee in one
 * transaction on the followee's follower database, with at most one write of its row (and of the pages it
 * changes). Idempotent: replaying any events already applied changes nothing and writes nothing.
 *
 * <p>Each followee commits on its own, so one database being down only holds back the followees routed there;
 * {@link #apply} still tries every other database's followees and then throws, so the caller retries the batch
 * (the committed followees are then no-ops) and commits no offsets until every event is in. After a database
 * is found unavailable (SQLState class 08, pool timeout) the batch's remaining followees there are skipped, so a
 * retry costs one connection timeout per database, not one per followee.
 */
@Component
public class FollowerSide {

    private static final Logger log = LoggerFactory.getLogger(FollowerSide.class);

    private final ShardDataSources dataSources;
    private final FollowerRepository rows;
    private final CelebrityPageRepository pages;
    private final CelebrityPageLookupRepository lookup = new CelebrityPageLookupRepository();
    private final CdcMetrics metrics;
    private final long celebrityThreshold;
    private final int pageSize;

    /** Wires the store; threshold and page size come from {@code properties}. */
    public FollowerSide(ShardDataSources dataSources, FollowerRepository rows, CelebrityPageRepository pages,
                        CdcMetrics metrics, CdcProperties properties) {
        this.dataSources = dataSources;
        this.rows = rows;
        this.pages = pages;
        this.metrics = metrics;
        this.celebrityThreshold = properties.celebrityThreshold();
        this.pageSize = properties.pageSize();
    }

    /**
     * Applies {@code events} (valid, in stream order) followee by followee.
     *
     * @throws FollowerSideException when some followee's transaction failed; the others are committed
     */
    public void apply(List<FollowEvent> events) {
        Map<Long, List<FollowEvent>> byFollowee = new LinkedHashMap<>();
        for (FollowEvent event : events) {
            byFollowee.computeIfAbsent(event.followeeId(), id -> new ArrayList<>()).add(event);
        }
        FollowerSideException failure = null;
        // A database that is unreachable fails each connection attempt only after the pool's connection timeout;
        // its other followees in this batch are skipped at once instead of waiting that long one by one.
        Map<DataSource, Integer> unavailable = new IdentityHashMap<>();
        for (Map.Entry<Long, List<FollowEvent>> entry : byFollowee.entrySet()) {
            long followeeId = entry.getKey();
            List<FollowEvent> ofFollowee = entry.getValue();
            DataSource database = dataSources.forUser(ShardGroup.FOLLOWER, followeeId);
            if (unavailable.computeIfPresent(database, (db, skipped) -> skipped + 1) != null) {
                continue;
            }
            try {
                FolloweeChanges.Result result = Transactions.inTransaction(database,
                        connection -> applyToFollowee(connection, followeeId, ofFollowee));
                ofFollowee.forEach(metrics::applied);
                if (result.changed()) {
                    metrics.rowRewritten();
                }
                if (result.migrated()) {
                    metrics.celebrityMigrated();
                    log.info("Followee {} reached {} followers: moved into {} celebrity pages", followeeId,
                            result.followerCount(), result.pageUpserts().size());
                }
            } catch (SQLException | RuntimeException e) {
                if (failure == null) {
                    failure = new FollowerSideException("follower side of " + byFollowee.size()
                            + " followees not fully applied; first failure at followee " + followeeId, e);
                } else {
                    failure.addSuppressed(e);
                }
                SqlErrors.Kind kind = e instanceof SQLException sql ? SqlErrors.classify(sql) : null;
                if (kind == SqlErrors.Kind.UNAVAILABLE) {
                    unavailable.put(database, 0);
                }
                log.warn("Applying {} events to followee {} failed ({}): {}", ofFollowee.size(), followeeId,
                        kind != null ? kind : e.getClass().getSimpleName(), e.getMessage());
            }
        }
        unavailable.forEach((database, skipped) -> {
            if (skipped > 0) {
                log.warn("Skipped {} more followees of this batch on a database that is unavailable", skipped);
            }
        });
        if (failure != null) {
            throw failure;
        }
    }

    private FolloweeChanges.Result applyToFollowee(Connection connection, long followeeId, List<FollowEvent> events) throws SQLException {
        FollowerRow row = rows.lockOrCreate(connection, followeeId);
        TimeOrderedAdjacency.requireWellFormed(row.followerIds(), row.followedAt());
        int n = events.size();
        long[] ids = new long[n];
        long[] times = new long[n];
        boolean[] follows = new boolean[n];
        for (int i = 0; i < n; i++) {
            FollowEvent event = events.get(i);
            ids[i] = event.followerId();
            times[i] = event.followedAt();
            follows[i] = event.isFollow();
        }
        List<PageHeader> headers = List.of();
        Map<Integer, CelebrityPage> loaded = Map.of();
        if (row.celebrity()) {
            // Only the pages this batch can touch, not all of a celebrity's pages.
            headers = lookup.headers(connection, followeeId);
            loaded = lookup.touched(connection, followeeId, FolloweeChanges.pagesToLoad(headers, ids, times, follows),
                    ids);
        }
        FolloweeChanges.Result result = FolloweeChanges.apply(row, headers, loaded, ids, times, follows,
                celebrityThreshold, pageSize);
        if (!result.changed()) {
            return result;
        }
        for (int pageNum : result.pageDeletes()) {
            pages.delete(connection, followeeId, pageNum);
        }
        for (CelebrityPage page : result.pageUpserts()) {
            pages.upsert(connection, page);
        }
        rows.writeNextVersion(connection, row, result.followerIds(), result.followedAt(), result.followerCount(),
                result.celebrity());
        return result;
    }
}
