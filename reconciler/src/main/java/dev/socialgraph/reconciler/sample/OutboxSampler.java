package dev.socialgraph.reconciler.sample;

import dev.socialgraph.common.adjacency.TimeOrderedAdjacency;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.reconciler.repair.FollowerRepairs;
import dev.socialgraph.reconciler.repair.ReconcilerMetrics;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.outbox.OutboxEntry;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recent-edge sampling: follows each following database's outbox ({@link OutboxRepository#after}) and checks
 * every pair, once its row is older than the repair threshold and published, on the follower side; a pair that
 * disagrees with the following row goes to {@link FollowerRepairs#repair}. Catches a lost or misapplied event
 * within about {@code threshold + interval}, long before the next full scan. Follow and unfollow rows are checked
 * on the followers side, block and unblock rows on the blocked-by side, each with its relation's repairs; mute rows
 * are passed over (a mute has no reverse side). Follows under a block are left to full scans.
 *
 * <p>The position per database (the last outbox id checked) is saved after every round in the reconciler's database
 * ({@link OutboxPositionRepository}) and read from there on the first round, so a restart resumes where the last
 * instance stopped instead of re-reading the whole retained outbox (7 days: tens of millions of rows per database at
 * the design's write rate). A database never sampled starts at the beginning of its (pruned) outbox. Reading stops
 * at the first row that is younger than the threshold or not yet published (Kafka down): its event is in flight,
 * and later rows are checked once it has settled.
 *
 * <p>Shard moves (docs/shard-moves.md): a round reads the outbox of every following database of the map of now and
 * of every one seen since this instance started, so a database that left the map is still read: rows written there
 * before the move are published by its relay afterwards and checked here like any. The pair's rows are read where
 * the shard lives ({@link ShardDataSources#readUser}), and a disagreement is judged again by
 * {@link FollowerRepairs#repair} inside the followee's shard fence. Thread-safe; one round at a time.
 */
public final class OutboxSampler {

    private static final Logger log = LoggerFactory.getLogger(OutboxSampler.class);

    private final ShardDataSources dataSources;
    private final OutboxRepository outbox;
    private final FollowerRepairs follows;
    private final FollowerRepairs blocks;
    private final FollowerRepairs requests;
    private final ReconcilerMetrics metrics;
    private final int batchSize;
    private final int maxPerRound;
    private final Clock clock;
    private final OutboxPositionRepository saved;
    private final Map<String, Long> positions = new ConcurrentHashMap<>();
    /** Every following database seen, by JDBC URL (ranges of one database share its outbox); guarded by this. */
    private final Map<String, ShardRange> databases = new LinkedHashMap<>();

    /**
     * @param follows     repairs of the followers side, for follow and unfollow rows
     * @param blocks      repairs of the blocked-by side, for block and unblock rows (and, made from them, of the
     *                    incoming requests, for request and unrequest rows)
     * @param batchSize   outbox rows read per query, {@code >= 1}
     * @param maxPerRound outbox rows read per following database per round at most, {@code >= 1}
     * @throws IllegalArgumentException when {@code follows} or {@code blocks} repairs another relation
     */
    public OutboxSampler(ShardDataSources dataSources, OutboxRepository outbox, FollowerRepairs follows,
                         FollowerRepairs blocks, ReconcilerMetrics metrics, int batchSize, int maxPerRound,
                         Clock clock, OutboxPositionRepository saved) {
        if (follows.relation() != Relation.FOLLOW || blocks.relation() != Relation.BLOCK) {
            throw new IllegalArgumentException("need the repairs of follows and of blocks, got "
                    + follows.relation().wireName() + " and " + blocks.relation().wireName());
        }
        this.dataSources = dataSources;
        this.outbox = outbox;
        this.follows = follows;
        this.blocks = blocks;
        this.requests = blocks.of(Relation.REQUEST);
        this.metrics = metrics;
        this.batchSize = batchSize;
        this.maxPerRound = maxPerRound;
        this.clock = clock;
        this.saved = saved;
    }

    /**
     * One round: per following database (of the map of now, and those that left it since this instance started),
     * batches until a row in flight, the end of the outbox, or {@code maxPerRound} rows. (One batch per round capped
     * the sampler at {@code batchSize / interval} writes per database, 50/s with the defaults: a busier outbox left
     * it ever further behind, until retention pruned rows it had not reached.)
     *
     * @return the number of pairs checked (mute rows passed over are not)
     */
    public synchronized int sampleOnce() {
        int checked = 0;
        for (ShardRange range : dataSources.shardMap().ranges(ShardGroup.FOLLOWING)) {
            databases.putIfAbsent(range.jdbcUrl(), range);
        }
        for (ShardRange range : databases.values()) {
            try {
                checked += sample(range);
            } catch (SQLException | RuntimeException e) {
                log.warn("Sampling the outbox of {} failed; retried next round", range.database(), e);
            }
        }
        metrics.recordSampled(checked);
        return checked;
    }

    /** The last outbox id checked in {@code database} by this instance or, before its first round, by the last one. */
    public long position(String database) throws SQLException {
        Long position = positions.get(database);
        if (position == null) {
            // Not cached on failure: a database that cannot be read must not restart from the beginning.
            position = saved.find(database).orElse(0L);
            positions.put(database, position);
        }
        return position;
    }

    /** One round of one database; saves the position it reached, also when a batch failed. */
    private int sample(ShardRange range) throws SQLException {
        long start = position(range.database());
        try {
            return sampleBatches(range);
        } finally {
            long reached = positions.get(range.database());
            if (reached != start) {
                saved.save(range.database(), reached);
            }
        }
    }

    private int sampleBatches(ShardRange range) throws SQLException {
        Duration threshold = follows.threshold();
        int read = 0;
        int checked = 0;
        while (read < maxPerRound) {
            long after = position(range.database());
            int want = Math.min(batchSize, maxPerRound - read);
            List<OutboxEntry> entries;
            try (Connection c = dataSources.forRange(range).getConnection()) {
                entries = outbox.after(c, after, want);
            }
            for (OutboxEntry e : entries) {
                boolean settled = e.publishedAt() != null
                        && !e.createdAt().isAfter(clock.instant().minus(threshold));
                if (!settled) {
                    return checked;
                }
                FollowerRepairs repairs = e.isAccount() ? null : repairsOf(e.relation()); // no follower side
                if (repairs != null) {
                    if (disagrees(repairs, e)) {
                        repairs.repair(e.followeeId(), new long[] {e.followerId()});
                    }
                    checked++;
                }
                read++;
                positions.put(range.database(), e.id());
            }
            if (entries.size() < want) {
                return checked; // the end of the outbox
            }
        }
        return checked;
    }

    /** The repairs of {@code relation}'s follower side; {@code null} for mutes, which have none. */
    private FollowerRepairs repairsOf(Relation relation) {
        return switch (relation) {
            case FOLLOW -> follows;
            case BLOCK -> blocks;
            case REQUEST -> requests;
            case MUTE -> null;
        };
    }

    /**
     * Whether the follower side disagrees with the following row for the entry's pair (unlocked reads), in the
     * relation of {@code repairs}.
     */
    private boolean disagrees(FollowerRepairs repairs, OutboxEntry e) throws SQLException {
        Optional<FollowingRow> followingRow = dataSources.readUser(ShardGroup.FOLLOWING, e.followerId(),
                c -> repairs.following().find(c, e.followerId()));
        long edgeTime = Long.MIN_VALUE;
        if (followingRow.isPresent()) {
            int at = Arrays.binarySearch(followingRow.get().followingIds(), e.followeeId());
            if (at >= 0) {
                edgeTime = followingRow.get().followedAt()[at];
            }
        }
        long edge = edgeTime;
        return dataSources.readUser(ShardGroup.FOLLOWER, e.followeeId(),
                c -> followerSideDisagrees(c, repairs, e, edge));
    }

    /** Whether the followee's row or pages disagree with the edge at {@code edgeTime} ({@code MIN_VALUE}: none). */
    private static boolean followerSideDisagrees(Connection c, FollowerRepairs repairs, OutboxEntry e, long edgeTime)
            throws SQLException {
        Optional<FollowerRow> row = repairs.followers().find(c, e.followeeId());
        if (row.isEmpty()) {
            return edgeTime != Long.MIN_VALUE;
        }
        if (!row.get().celebrity()) {
            int at = TimeOrderedAdjacency.indexOf(row.get().followerIds(), e.followerId());
            long entryTime = at < 0 ? Long.MIN_VALUE : row.get().followedAt()[at];
            return entryTime != edgeTime;
        }
        // Celebrity: look where the edge (or the event's follow) would be.
        CelebrityPageRepository pages = repairs.pages();
        boolean atEdge = edgeTime != Long.MIN_VALUE
                && inPages(c, pages, e.followeeId(), e.followerId(), edgeTime);
        boolean atEvent = e.followedAt() != edgeTime
                && inPages(c, pages, e.followeeId(), e.followerId(), e.followedAt());
        return (edgeTime != Long.MIN_VALUE && !atEdge) || atEvent;
    }

    private static boolean inPages(Connection c, CelebrityPageRepository pages, long followee, long follower,
                                   long followedAt) throws SQLException {
        for (CelebrityPage p : pages.containing(c, followee, followedAt)) {
            for (int i = 0; i < p.followerIds().length; i++) {
                if (p.followerIds()[i] == follower && p.followedAt()[i] == followedAt) {
                    return true;
                }
            }
        }
        return false;
    }
}
