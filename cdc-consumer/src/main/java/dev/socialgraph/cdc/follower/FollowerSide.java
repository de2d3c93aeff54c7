package dev.socialgraph.cdc.follower;

import dev.socialgraph.cdc.CdcMetrics;
import dev.socialgraph.cdc.CdcProperties;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FolloweeChanges;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerSideWriter;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardFence;
import dev.socialgraph.store.sql.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Applies follow events to the follower side (DESIGN.md 4): the events of one followee, or of several followees of
 * one database ({@link #applyTogether}), in one transaction on the followee's follower database, with at most one
 * write of each followee's row (and of the pages it changes). Idempotent: replaying any events already applied
 * changes nothing and writes nothing.
 *
 * <p>Blocks have a follower side too, kept the same way in rows of their own: the blocked user's blocked-by row and
 * pages ({@link Relation#keepsReverse()}), which the follow guard's {@code blockedBy} answers read; so do follow
 * requests, in the protected account's row of incoming requests. Mutes have none; their events are skipped here.
 *
 * <p>Removals never create a row: a batch of a followee without a follower row that only removes edges writes nothing.
 * The erasure of a user (docs/account-lifecycle.md) deletes the user's follower rows and sends an unfollow, unblock or
 * unmute of the user for each of their followers; applied after the deletion, those must not leave an empty row that
 * names the erased user. Every other event is applied as usual, those of an erased user included: the erasure walks the
 * follower side to find who follows the user, so a follow committed before the erasure must reach it.
 *
 * <p>Which followees wait for a database that is down, and which events are given up, is the caller's business
 * ({@code listener.DatabaseLanes}); this class only applies and reports errors as they are.
 *
 * <p>Shards can move between databases while the consumer runs (docs/shard-moves.md): each transaction is routed at
 * the moment it runs and enters the fence of the followee's shard ({@link ShardDataSources#inUserTransaction}), so an
 * event read before a move is applied on the new owner, and a move whose newer map is not known yet fails with
 * {@link dev.socialgraph.common.shard.ShardUnavailableException} (nothing written; retried like an outage).
 */
@Component
public class FollowerSide {

    private static final Logger log = LoggerFactory.getLogger(FollowerSide.class);

    private final ShardDataSources dataSources;
    private final FollowerSideWriter followers;
    private final FollowerSideWriter blockedBy = new FollowerSideWriter(Relation.BLOCK);
    private final FollowerSideWriter requestedBy = new FollowerSideWriter(Relation.REQUEST);
    private final CdcMetrics metrics;
    private final long celebrityThreshold;
    private final int pageSize;

    /** Wires the store; threshold and page size come from {@code properties}. */
    public FollowerSide(ShardDataSources dataSources, FollowerRepository rows, CelebrityPageRepository pages,
                        CdcMetrics metrics, CdcProperties properties) {
        this.dataSources = dataSources;
        this.followers = new FollowerSideWriter(rows, pages);
        this.metrics = metrics;
        this.celebrityThreshold = properties.celebrityThreshold();
        this.pageSize = properties.pageSize();
    }

    /**
     * The physical follower database of {@code followeeId} in the shard map of now; one instance per database, so it
     * can key maps by identity. A newer map may route the followee elsewhere by the time its events are applied:
     * {@link #apply} routes again.
     */
    public DataSource database(long followeeId) {
        return dataSources.forUser(ShardGroup.FOLLOWER, followeeId);
    }

    /**
     * Applies {@code events} of one followee (valid, in stream order) in one transaction, and counts them.
     *
     * @param followeeId the followee of every event
     * @param events     at least one event
     * @throws SQLException     as the database reported it (classify with {@code SqlErrors}); nothing was committed
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when the followee's shard moved and the map that
     *                          says where is not known yet; nothing was committed
     * @throws RuntimeException when the row or an event is refused by the adjacency rules; nothing was committed
     */
    public void apply(long followeeId, List<FollowEvent> events) throws SQLException {
        if (!keepsFollowerSide(events)) {
            events.forEach(metrics::applied); // mutes only: nothing to keep on the follower side
            return;
        }
        FolloweeChanges.Result result = dataSources.inUserTransaction(ShardGroup.FOLLOWER, followeeId,
                connection -> applyToFollowee(connection, followeeId, events));
        counted(followeeId, events, result);
    }

    /**
     * Applies the events of several followees whose rows live in {@code database}, all in one transaction: for each
     * followee what {@link #apply} does, and one commit (one WAL flush, one round trip) for all of them instead of one
     * per followee. A batch of many followees, each with a row of thousands of followers, spent most of its time in
     * those commits and in the round trips of one short transaction per followee. The shards' fences are entered in
     * ascending shard order, each once, and the rows locked in ascending followee id within a shard: a shard move
     * fences shards in ascending order too, and two consumers that briefly hold the same partition during a rebalance
     * lock the same rows in the same order, so neither ever waits in a cycle.
     *
     * @param database   the follower database the shard map of now routes every followee to ({@link #database})
     * @param byFollowee the events of each followee, valid and in stream order
     * @throws SQLException        as the database reported it (classify with {@code SqlErrors}); nothing was committed
     * @throws dev.socialgraph.store.shard.ShardMovedException when a followee's shard moved away from {@code database};
     *                             nothing was committed ({@link #apply}, one followee at a time, follows the move)
     * @throws RuntimeException    when a row or an event is refused by the adjacency rules; nothing was committed
     *                             ({@link #apply}, one followee at a time, finds which)
     */
    public void applyTogether(DataSource database, Map<Long, List<FollowEvent>> byFollowee) throws SQLException {
        ShardMap map = dataSources.shardMap();
        List<Long> order = byFollowee.entrySet().stream().filter(e -> keepsFollowerSide(e.getValue()))
                .map(Map.Entry::getKey)
                .sorted(Comparator.comparingInt((Long id) -> map.logicalShard(id)).thenComparing(Long::compare))
                .toList();
        List<FolloweeChanges.Result> results = order.isEmpty() ? List.of()
                : Transactions.inTransaction(database, connection -> {
                    List<FolloweeChanges.Result> applied = new ArrayList<>(order.size());
                    int fenced = -1;
                    for (long followeeId : order) {
                        int shard = map.logicalShard(followeeId);
                        if (shard != fenced) {
                            ShardFence.enter(connection, ShardGroup.FOLLOWER, shard);
                            fenced = shard;
                        }
                        applied.add(applyToFollowee(connection, followeeId, byFollowee.get(followeeId)));
                    }
                    return applied;
                });
        Map<Long, FolloweeChanges.Result> resultOf = new HashMap<>();
        for (int i = 0; i < order.size(); i++) {
            resultOf.put(order.get(i), results.get(i));
        }
        byFollowee.forEach((followeeId, events) -> counted(followeeId, events, resultOf.get(followeeId)));
    }

    /** Whether any of {@code events} changes the follower side: mutes keep none. */
    private static boolean keepsFollowerSide(List<FollowEvent> events) {
        return events.stream().anyMatch(e -> e.relation().keepsReverse());
    }

    /**
     * A followee's blocked-by row, its incoming requests, then its follower row, in the one transaction; the result of
     * the follows, or null when it had none.
     */
    private FolloweeChanges.Result applyToFollowee(Connection connection, long followeeId, List<FollowEvent> events)
            throws SQLException {
        List<FollowEvent> follows = events.stream().filter(e -> e.relation() == Relation.FOLLOW).toList();
        List<FollowEvent> blocks = events.stream().filter(e -> e.relation() == Relation.BLOCK).toList();
        List<FollowEvent> requests = events.stream().filter(e -> e.relation() == Relation.REQUEST).toList();
        if (!blocks.isEmpty()) {
            applyToFollowee(connection, blockedBy, followeeId, blocks);
        }
        if (!requests.isEmpty()) {
            applyToFollowee(connection, requestedBy, followeeId, requests);
        }
        return follows.isEmpty() ? null : applyToFollowee(connection, followers, followeeId, follows);
    }

    /** Counts a followee's events once their transaction committed. */
    private void counted(long followeeId, List<FollowEvent> events, FolloweeChanges.Result result) {
        events.forEach(metrics::applied);
        if (result == null) {
            return;
        }
        if (result.changed()) {
            metrics.rowRewritten();
        }
        if (result.migrated()) {
            metrics.celebrityMigrated();
            log.info("Followee {} reached {} followers: moved into {} celebrity pages", followeeId,
                    result.followerCount(), result.pageUpserts().size());
        }
    }

    private FolloweeChanges.Result applyToFollowee(Connection connection, FollowerSideWriter side, long followeeId,
                                                   List<FollowEvent> events) throws SQLException {
        int n = events.size();
        long[] ids = new long[n];
        long[] times = new long[n];
        boolean[] follows = new boolean[n];
        for (int i = 0; i < n; i++) {
            FollowEvent event = events.get(i);
            ids[i] = event.followerId();
            times[i] = event.followedAt();
            follows[i] = event.adds();
        }
        return side.apply(connection, followeeId, ids, times, follows, celebrityThreshold, pageSize);
    }
}
