package dev.socialgraph.reconciler.scan;

import com.google.common.util.concurrent.RateLimiter;
import dev.socialgraph.common.adjacency.TimeOrderedAdjacency;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.reconciler.repair.Divergence;
import dev.socialgraph.reconciler.repair.FollowerRepairs;
import dev.socialgraph.reconciler.repair.ReconcilerMetrics;
import dev.socialgraph.reconciler.repair.RepairResult;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.following.BlockedFollows;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One page of a full scan at a time, from a persisted {@link Position}; stateless between pages, so a scan
 * resumes from its last checkpoint after a restart.
 *
 * <p><b>Two streaming phases per relation</b> instead of collecting every expected edge in memory (memory per page,
 * not per graph; the price is that follower rows are read by key in the first phase and following rows by key in
 * the second). Follows, then blocks (whose follower side is the blocked user's blocked-by row), with the same code
 * and that relation's {@link FollowerRepairs} and repositories; mutes keep no follower side and are not scanned.
 * <ol>
 *   <li>{@link ScanPhase#FOLLOWING}, {@link ScanPhase#BLOCKING}: following rows of the requested logical shards,
 *       in follower-id order. Their settled edges (older than the repair threshold) are looked up on the follower
 *       side (the followee's row, or the celebrity page containing the follow time): an edge with no entry at its
 *       time is missing.</li>
 *   <li>{@link ScanPhase#FOLLOWER}, {@link ScanPhase#BLOCKED_BY}: every follower row, in followee-id order, with
 *       its celebrity pages. Entries of followers in the requested shards are looked up on the following side: an
 *       entry without a following edge at its time is stale. Ids seen twice are duplicates; a count unequal to the
 *       entries is wrong.</li>
 * </ol>
 * Detection reads without locks; every suspected followee goes to {@link FollowerRepairs#repair}, which decides
 * again under the follower row lock and skips edges still in flight.
 *
 * <p><b>Follows under a block</b> are looked for in {@link ScanPhase#BLOCKING}: for every settled block A→B of the
 * page, A's follow row and B's follow row are read (by key, batched per database) and a pair where either holds
 * the other goes to {@link BlockedFollows#enforce}, which decides again under the follow row's lock and removes the
 * follow as an unfollow with its outbox row. A block younger than the threshold is left to the cdc-consumer, which
 * enforces it when the block's event arrives; a block between users of whom one is deactivated or erased is left to
 * the account jobs (docs/account-lifecycle.md), as every repair of such a pair is ({@link FollowerRepairs}).
 *
 * <p><b>Shard moves</b> (docs/shard-moves.md) while a scan runs: each page reads the range of the map of now, without
 * a fence, so a page may read a shard on its old owner, whose rows are frozen since the move, and report a divergence
 * that is none. That is safe because nothing is written on what a page saw: {@link FollowerRepairs#repair} re-reads
 * both sides inside the followee's shard fence, following a move, and {@link BlockedFollows#enforce} re-reads the
 * follow under its row lock. Positions are range indexes of the map of now, so a move during a scan can make it read
 * some rows twice or, when the number of ranges shrinks, end a phase early: a scan across a move is not proof that
 * every row was compared; the next scan and the outbox sampler cover what it missed.
 *
 * <p>Celebrity followees are read page by page with all their pages in the follower phases: at 200M followers that
 * is 2,000 pages per followee per scan, acceptable at the scan rate limit but the place to optimise (a per-page pass
 * keyed by page) if scans of celebrities get slow.
 */
final class FullScan {

    private static final Logger log = LoggerFactory.getLogger(FullScan.class);

    /** Where the next page starts: phase, range within the phase's group, exclusive lower key bound. */
    record Position(ScanPhase phase, int rangeIndex, long cursor) {
    }

    /** Counters of one page, added to the scan's totals at the checkpoint. */
    static final class Delta {
        long rows;
        long repairs;
        long skippedInFlight;
        final Map<Divergence, Long> found = new EnumMap<>(Divergence.class);

        void add(RepairResult r) {
            r.found().forEach((k, n) -> found.merge(k, (long) n, Long::sum));
            if (r.repaired()) {
                repairs++;
            }
            skippedInFlight += r.skippedInFlight();
        }
    }

    /**
     * One relation's two phases and what they read and repair.
     *
     * @param repairs        the relation's repairs, with its repositories
     * @param followingPhase the phase walking its following rows
     * @param followerPhase  the phase walking its follower rows
     * @param next           the phase after both
     */
    private record Side(FollowerRepairs repairs, ScanPhase followingPhase, ScanPhase followerPhase, ScanPhase next) {

        Relation relation() {
            return repairs.relation();
        }

        FollowingRepository following() {
            return repairs.following();
        }

        FollowerRepository followers() {
            return repairs.followers();
        }

        CelebrityPageRepository pages() {
            return repairs.pages();
        }
    }

    /** A settled block met in {@link ScanPhase#BLOCKING}: {@code blockerId} blocks {@code blockedId} since then. */
    private record Block(long blockerId, long blockedId, long blockedAt) {
    }

    private final ShardDataSources dataSources;
    private final Side follows;
    private final Side blocks;
    private final BlockedFollows blockedFollows;
    private final ReconcilerMetrics metrics;
    private final RateLimiter rateLimiter;
    private final List<ScanListener> listeners;
    private final int pageSize;

    /**
     * @param follows        repairs of the followers side, with follows' repositories
     * @param blocks         repairs of the blocked-by side, with blocks' repositories
     * @param blockedFollows removes follows under a block
     * @param rateLimiter    permits are rows scanned (following and follower rows of every phase)
     * @param listeners      see every follow row of phase {@link ScanPhase#FOLLOWING}
     * @param pageSize       rows per page, {@code >= 1}
     * @throws IllegalArgumentException when {@code follows} or {@code blocks} repairs another relation
     */
    FullScan(ShardDataSources dataSources, FollowerRepairs follows, FollowerRepairs blocks,
             BlockedFollows blockedFollows, ReconcilerMetrics metrics, RateLimiter rateLimiter,
             List<ScanListener> listeners, int pageSize) {
        if (follows.relation() != Relation.FOLLOW || blocks.relation() != Relation.BLOCK) {
            throw new IllegalArgumentException("need the repairs of follows and of blocks, got "
                    + follows.relation().wireName() + " and " + blocks.relation().wireName());
        }
        this.dataSources = dataSources;
        this.follows = new Side(follows, ScanPhase.FOLLOWING, ScanPhase.FOLLOWER, ScanPhase.BLOCKING);
        this.blocks = new Side(blocks, ScanPhase.BLOCKING, ScanPhase.BLOCKED_BY, ScanPhase.DONE);
        this.blockedFollows = blockedFollows;
        this.metrics = metrics;
        this.rateLimiter = rateLimiter;
        this.listeners = List.copyOf(listeners);
        this.pageSize = pageSize;
    }

    /** The following ranges a scan of logical shards {@code first..last} walks in each following phase. */
    List<ShardRange> followingRanges(int first, int last) {
        return dataSources.shardMap().ranges(ShardGroup.FOLLOWING).stream()
                .filter(r -> r.lastShard() >= first && r.firstShard() <= last).toList();
    }

    /** Fraction done of a scan at {@code position}, 0..1, by ranges walked over all four phases. */
    double progress(int first, int last, Position position) {
        int a = followingRanges(first, last).size();
        int b = dataSources.shardMap().ranges(ShardGroup.FOLLOWER).size();
        int done = switch (position.phase()) {
            case FOLLOWING -> 0;
            case FOLLOWER -> a;
            case BLOCKING -> a + b;
            case BLOCKED_BY -> 2 * a + b;
            case DONE -> 2 * (a + b);
        };
        return (double) (done + position.rangeIndex()) / (2 * (a + b));
    }

    /**
     * Scans and repairs the page at {@code position}.
     *
     * @param delta receives the page's counters
     * @return the position of the next page ({@link ScanPhase#DONE} when the scan is complete)
     */
    Position step(int first, int last, Position position, Delta delta) throws SQLException {
        return switch (position.phase()) {
            case FOLLOWING -> stepFollowing(follows, first, last, position, delta);
            case FOLLOWER -> stepFollower(follows, first, last, position, delta);
            case BLOCKING -> stepFollowing(blocks, first, last, position, delta);
            case BLOCKED_BY -> stepFollower(blocks, first, last, position, delta);
            case DONE -> position;
        };
    }

    private Position stepFollowing(Side side, int first, int last, Position position, Delta delta)
            throws SQLException {
        List<ShardRange> ranges = followingRanges(first, last);
        if (position.rangeIndex() >= ranges.size()) {
            return new Position(side.followerPhase(), 0, 0);
        }
        ShardRange range = ranges.get(position.rangeIndex());
        List<FollowingRow> rows;
        try (Connection c = dataSources.forRange(range).getConnection()) {
            rows = side.following().scan(c, position.cursor(), pageSize);
        }
        if (rows.isEmpty()) {
            return new Position(side.followingPhase(), position.rangeIndex() + 1, 0);
        }
        throttle(ShardGroup.FOLLOWING, rows.size(), delta);
        ShardMap map = dataSources.shardMap();
        List<FollowingRow> inScope = rows.stream()
                .filter(r -> inShards(map, r.followerId(), first, last)).toList();
        if (side.relation() == Relation.FOLLOW) {
            for (ScanListener listener : listeners) {
                listener.onFollowingRows(range, inScope);
            }
        }

        // followee -> settled edges (followerId, followedAt) from this page
        Map<Long, List<long[]>> edges = new HashMap<>();
        for (FollowingRow r : inScope) {
            for (int i = 0; i < r.followingIds().length; i++) {
                if (side.repairs().isSettled(r.followedAt()[i])) {
                    edges.computeIfAbsent(r.followingIds()[i], k -> new ArrayList<>())
                            .add(new long[] {r.followerId(), r.followedAt()[i]});
                }
            }
        }
        for (Map.Entry<ShardRange, long[]> group : byRange(ShardGroup.FOLLOWER, edges.keySet()).entrySet()) {
            Map<Long, long[]> suspects = new LinkedHashMap<>();
            try (Connection c = dataSources.forRange(group.getKey()).getConnection()) {
                Map<Long, FollowerRow> rowsByFollowee = new HashMap<>();
                for (FollowerRow fr : side.followers().findAll(c, group.getValue())) {
                    rowsByFollowee.put(fr.followeeId(), fr);
                }
                for (long followee : group.getValue()) {
                    FollowerRow fr = rowsByFollowee.get(followee);
                    List<Long> missing = new ArrayList<>();
                    for (long[] edge : edges.get(followee)) {
                        if (!hasEntry(c, side.pages(), followee, fr, edge[0], edge[1])) {
                            missing.add(edge[0]);
                        }
                    }
                    if (!missing.isEmpty()) {
                        suspects.put(followee, missing.stream().mapToLong(Long::longValue).toArray());
                    }
                }
            }
            for (Map.Entry<Long, long[]> s : suspects.entrySet()) {
                delta.add(side.repairs().repair(s.getKey(), s.getValue()));
            }
        }
        if (side.relation() == Relation.BLOCK) {
            removeFollowsUnderBlocks(inScope, delta);
        }
        return new Position(side.followingPhase(), position.rangeIndex(), rows.getLast().followerId());
    }

    /**
     * Finds, for the settled blocks of {@code blockRows}, follows either way between blocker and blocked user, and
     * has {@link BlockedFollows} remove them. The follow rows are read without locks, by key, at most a page of
     * keys per query; {@code enforce} reads them again under the lock and decides.
     */
    private void removeFollowsUnderBlocks(List<FollowingRow> blockRows, Delta delta) throws SQLException {
        // user -> blocks whose follow from that user is looked for: the blocker's and the blocked user's
        Map<Long, List<Block>> byFollower = new HashMap<>();
        for (FollowingRow r : blockRows) {
            for (int i = 0; i < r.followingIds().length; i++) {
                // A younger block may not be enforced by the cdc-consumer yet: leave it in flight, like edges.
                if (blocks.repairs().isSettled(r.followedAt()[i])) {
                    Block block = new Block(r.followerId(), r.followingIds()[i], r.followedAt()[i]);
                    byFollower.computeIfAbsent(block.blockerId(), k -> new ArrayList<>()).add(block);
                    byFollower.computeIfAbsent(block.blockedId(), k -> new ArrayList<>()).add(block);
                }
            }
        }
        Set<Block> violated = new LinkedHashSet<>();
        for (Map.Entry<ShardRange, long[]> group : byRange(ShardGroup.FOLLOWING, byFollower.keySet()).entrySet()) {
            long[] ids = group.getValue();
            try (Connection c = dataSources.forRange(group.getKey()).getConnection()) {
                // Chunks of a page: a follow row holds up to 10,000 edges, and a page of blockers can name many users.
                for (int from = 0; from < ids.length; from += pageSize) {
                    long[] chunk = Arrays.copyOfRange(ids, from, Math.min(ids.length, from + pageSize));
                    for (FollowingRow f : follows.following().findAll(c, chunk)) {
                        for (Block block : byFollower.get(f.followerId())) {
                            long other = f.followerId() == block.blockerId() ? block.blockedId() : block.blockerId();
                            if (Arrays.binarySearch(f.followingIds(), other) >= 0) {
                                violated.add(block);
                            }
                        }
                    }
                }
            }
        }
        // A follow of a deactivated user is hidden with its count exclusion, which reactivation undoes; an erased
        // user's follows are the erase job's to delete. Either way the pair is the account job's, not ours.
        Set<Long> users = new HashSet<>();
        for (Block block : violated) {
            users.add(block.blockerId());
            users.add(block.blockedId());
        }
        Set<Long> inactive = violated.isEmpty() ? Set.of()
                : blocks.repairs().inactive(users.stream().mapToLong(Long::longValue).toArray());
        for (Block block : violated) {
            if (inactive.contains(block.blockerId()) || inactive.contains(block.blockedId())) {
                RepairResult skipped = RepairResult.skippedInactive(1);
                metrics.recordRepair(skipped);
                delta.add(skipped);
                continue;
            }
            int removed = blockedFollows.enforce(block.blockerId(), block.blockedId(), block.blockedAt());
            RepairResult result = RepairResult.followsUnderBlock(removed);
            metrics.recordRepair(result);
            delta.add(result);
            if (removed > 0) {
                log.info("Removed {} follow(s) between blocker {} and blocked user {}", removed, block.blockerId(),
                        block.blockedId());
            }
        }
    }

    private static boolean hasEntry(Connection c, CelebrityPageRepository pages, long followee, FollowerRow row,
                                    long followerId, long followedAt) throws SQLException {
        if (row == null) {
            return false;
        }
        if (!row.celebrity()) {
            return TimeOrderedAdjacency.contains(row.followerIds(), row.followedAt(), followerId, followedAt);
        }
        for (CelebrityPage page : pages.containing(c, followee, followedAt)) {
            if (TimeOrderedAdjacency.contains(page.followerIds(), page.followedAt(), followerId, followedAt)) {
                return true;
            }
        }
        return false;
    }

    private Position stepFollower(Side side, int first, int last, Position position, Delta delta)
            throws SQLException {
        List<ShardRange> ranges = dataSources.shardMap().ranges(ShardGroup.FOLLOWER);
        if (position.rangeIndex() >= ranges.size()) {
            return new Position(side.next(), 0, 0);
        }
        ShardRange range = ranges.get(position.rangeIndex());
        List<FollowerRow> rows;
        Map<Long, List<CelebrityPage>> pagesByFollowee = new HashMap<>();
        try (Connection c = dataSources.forRange(range).getConnection()) {
            rows = side.followers().scan(c, position.cursor(), pageSize);
            for (FollowerRow r : rows) {
                if (r.celebrity()) {
                    pagesByFollowee.put(r.followeeId(), side.pages().all(c, r.followeeId()));
                }
            }
        }
        if (rows.isEmpty()) {
            return new Position(side.followerPhase(), position.rangeIndex() + 1, 0);
        }
        throttle(ShardGroup.FOLLOWER, rows.size(), delta);
        ShardMap map = dataSources.shardMap();

        Set<Long> followerIds = new HashSet<>();
        for (FollowerRow r : rows) {
            forEachEntry(r, pagesByFollowee, (id, t) -> {
                if (inShards(map, id, first, last)) {
                    followerIds.add(id);
                }
            });
        }
        Map<Long, FollowingRow> truth = new HashMap<>();
        for (Map.Entry<ShardRange, long[]> group : byRange(ShardGroup.FOLLOWING, followerIds).entrySet()) {
            try (Connection c = dataSources.forRange(group.getKey()).getConnection()) {
                for (FollowingRow f : side.following().findAll(c, group.getValue())) {
                    truth.put(f.followerId(), f);
                }
            }
        }

        for (FollowerRow r : rows) {
            Set<Long> seen = new HashSet<>();
            Set<Long> suspects = new TreeSet<>();
            long[] size = {0};
            forEachEntry(r, pagesByFollowee, (id, t) -> {
                size[0]++;
                if (!seen.add(id)) {
                    suspects.add(id);
                }
                if (inShards(map, id, first, last) && !follows(truth.get(id), r.followeeId(), t)) {
                    suspects.add(id);
                }
            });
            if (!suspects.isEmpty() || size[0] != r.followerCount()) {
                delta.add(side.repairs().repair(r.followeeId(),
                        suspects.stream().mapToLong(Long::longValue).toArray()));
            }
        }
        return new Position(side.followerPhase(), position.rangeIndex(), rows.getLast().followeeId());
    }

    private void throttle(ShardGroup group, int rows, Delta delta) {
        rateLimiter.acquire(rows);
        delta.rows += rows;
        metrics.recordRowsScanned(group, rows);
    }

    @FunctionalInterface
    private interface EntryVisitor {
        void visit(long followerId, long followedAt);
    }

    private static void forEachEntry(FollowerRow row, Map<Long, List<CelebrityPage>> pagesByFollowee,
                                     EntryVisitor visitor) {
        for (int i = 0; i < row.followerIds().length; i++) {
            visitor.visit(row.followerIds()[i], row.followedAt()[i]);
        }
        for (CelebrityPage p : pagesByFollowee.getOrDefault(row.followeeId(), List.of())) {
            for (int i = 0; i < p.followerIds().length; i++) {
                visitor.visit(p.followerIds()[i], p.followedAt()[i]);
            }
        }
    }

    private static boolean follows(FollowingRow row, long followee, long followedAt) {
        if (row == null) {
            return false;
        }
        int at = Arrays.binarySearch(row.followingIds(), followee);
        return at >= 0 && row.followedAt()[at] == followedAt;
    }

    private static boolean inShards(ShardMap map, long userId, int first, int last) {
        int shard = map.logicalShard(userId);
        return shard >= first && shard <= last;
    }

    private Map<ShardRange, long[]> byRange(ShardGroup group, Set<Long> ids) {
        Map<ShardRange, List<Long>> grouped = new LinkedHashMap<>();
        for (long id : ids) {
            grouped.computeIfAbsent(dataSources.shardMap().route(group, id), r -> new ArrayList<>()).add(id);
        }
        Map<ShardRange, long[]> out = new LinkedHashMap<>();
        grouped.forEach((r, list) -> out.put(r, list.stream().mapToLong(Long::longValue).sorted().toArray()));
        return out;
    }
}
