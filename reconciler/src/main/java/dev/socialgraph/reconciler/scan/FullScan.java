package dev.socialgraph.reconciler.scan;

import dev.socialgraph.common.adjacency.TimeOrderedAdjacency;
import com.google.common.util.concurrent.RateLimiter;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.reconciler.ReconcilerMetrics;
import dev.socialgraph.reconciler.repair.Divergence;
import dev.socialgraph.reconciler.repair.FollowerRepairs;
import dev.socialgraph.reconciler.repair.RepairResult;
import dev.socialgraph.store.CelebrityPage;
import dev.socialgraph.store.CelebrityPageRepository;
import dev.socialgraph.store.FollowerRepository;
import dev.socialgraph.store.FollowerRow;
import dev.socialgraph.store.FollowingRepository;
import dev.socialgraph.store.FollowingRow;
import dev.socialgraph.store.ShardDataSources;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One page of a full scan at a time, from a persisted {@link Position}; stateless between pages, so a scan
 * resumes from its last checkpoint after a restart.
 *
 * <p><b>Two streaming phases</b> instead of collecting every expected edge in memory (memory per page, not per
 * graph; the price is that follower rows are read by key in phase 1 and following rows by key in phase 2):
 * <ol>
 *   <li>{@link ScanPhase#FOLLOWING}: following rows of the requested logical shards, in follower-id order. Their
 *       settled edges (older than the repair threshold) are looked up on the follower side (the followee's row,
 *       or the celebrity page containing the follow time): an edge with no entry at its time is missing.</li>
 *   <li>{@link ScanPhase#FOLLOWER}: every follower row, in followee-id order, with its celebrity pages. Entries
 *       of followers in the requested shards are looked up on the following side: an entry without a following
 *       edge at its time is stale. Ids seen twice are duplicates; a count unequal to the entries is wrong.</li>
 * </ol>
 * Detection reads without locks; every suspected followee goes to {@link FollowerRepairs#repair}, which decides
 * again under the follower row lock and skips edges still in flight.
 *
 * <p>Celebrity followees are read page by page with all their pages in phase 2: at 200M followers that is 2,000
 * pages per followee per scan, acceptable at the scan rate limit but the place to optimise (a per-page pass keyed by
 * page) if scans of celebrities get slow.
 */
final class FullScan {

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

    private final ShardDataSources dataSources;
    private final FollowingRepository following;
    private final FollowerRepository followers;
    private final CelebrityPageRepository pages;
    private final FollowerRepairs repairs;
    private final ReconcilerMetrics metrics;
    private final RateLimiter rateLimiter;
    private final List<ScanListener> listeners;
    private final int pageSize;

    FullScan(ShardDataSources dataSources, FollowingRepository following, FollowerRepository followers,
             CelebrityPageRepository pages, FollowerRepairs repairs, ReconcilerMetrics metrics,
             RateLimiter rateLimiter, List<ScanListener> listeners, int pageSize) {
        this.dataSources = dataSources;
        this.following = following;
        this.followers = followers;
        this.pages = pages;
        this.repairs = repairs;
        this.metrics = metrics;
        this.rateLimiter = rateLimiter;
        this.listeners = List.copyOf(listeners);
        this.pageSize = pageSize;
    }

    /** The following ranges a scan of logical shards {@code first..last} walks in phase 1. */
    List<ShardRange> followingRanges(int first, int last) {
        return dataSources.shardMap().ranges(ShardGroup.FOLLOWING).stream()
                .filter(r -> r.lastShard() >= first && r.firstShard() <= last).toList();
    }

    /** Fraction done of a scan at {@code position}, by ranges walked. */
    double progress(int first, int last, Position position) {
        int a = followingRanges(first, last).size();
        int total = a + dataSources.shardMap().ranges(ShardGroup.FOLLOWER).size();
        return switch (position.phase()) {
            case FOLLOWING -> (double) position.rangeIndex() / total;
            case FOLLOWER -> (double) (a + position.rangeIndex()) / total;
            case DONE -> 1.0;
        };
    }

    /**
     * Scans and repairs the page at {@code position}.
     *
     * @param delta receives the page's counters
     * @return the position of the next page ({@link ScanPhase#DONE} when the scan is complete)
     */
    Position step(int first, int last, Position position, Delta delta) throws SQLException {
        return switch (position.phase()) {
            case FOLLOWING -> stepFollowing(first, last, position, delta);
            case FOLLOWER -> stepFollower(first, last, position, delta);
            case DONE -> position;
        };
    }

    private Position stepFollowing(int first, int last, Position position, Delta delta) throws SQLException {
        List<ShardRange> ranges = followingRanges(first, last);
        if (position.rangeIndex() >= ranges.size()) {
            return new Position(ScanPhase.FOLLOWER, 0, 0);
        }
        ShardRange range = ranges.get(position.rangeIndex());
        List<FollowingRow> rows;
        try (Connection c = dataSources.forRange(range).getConnection()) {
            rows = following.scan(c, position.cursor(), pageSize);
        }
        if (rows.isEmpty()) {
            return new Position(ScanPhase.FOLLOWING, position.rangeIndex() + 1, 0);
        }
        throttle(ShardGroup.FOLLOWING, rows.size(), delta);
        ShardMap map = dataSources.shardMap();
        List<FollowingRow> inScope = rows.stream()
                .filter(r -> inShards(map, r.followerId(), first, last)).toList();
        for (ScanListener listener : listeners) {
            listener.onFollowingRows(range, inScope);
        }

        // followee -> settled edges (followerId, followedAt) from this page
        Map<Long, List<long[]>> edges = new HashMap<>();
        for (FollowingRow r : inScope) {
            for (int i = 0; i < r.followingIds().length; i++) {
                if (repairs.isSettled(r.followedAt()[i])) {
                    edges.computeIfAbsent(r.followingIds()[i], k -> new ArrayList<>())
                            .add(new long[] {r.followerId(), r.followedAt()[i]});
                }
            }
        }
        for (Map.Entry<ShardRange, long[]> group : byRange(ShardGroup.FOLLOWER, edges.keySet()).entrySet()) {
            Map<Long, long[]> suspects = new LinkedHashMap<>();
            try (Connection c = dataSources.forRange(group.getKey()).getConnection()) {
                Map<Long, FollowerRow> rowsByFollowee = new HashMap<>();
                for (FollowerRow fr : followers.findAll(c, group.getValue())) {
                    rowsByFollowee.put(fr.followeeId(), fr);
                }
                for (long followee : group.getValue()) {
                    FollowerRow fr = rowsByFollowee.get(followee);
                    List<Long> missing = new ArrayList<>();
                    for (long[] edge : edges.get(followee)) {
                        if (!hasEntry(c, followee, fr, edge[0], edge[1])) {
                            missing.add(edge[0]);
                        }
                    }
                    if (!missing.isEmpty()) {
                        suspects.put(followee, missing.stream().mapToLong(Long::longValue).toArray());
                    }
                }
            }
            for (Map.Entry<Long, long[]> s : suspects.entrySet()) {
                delta.add(repairs.repair(s.getKey(), s.getValue()));
            }
        }
        return new Position(ScanPhase.FOLLOWING, position.rangeIndex(), rows.getLast().followerId());
    }

    private boolean hasEntry(Connection c, long followee, FollowerRow row, long followerId, long followedAt)
            throws SQLException {
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

    private Position stepFollower(int first, int last, Position position, Delta delta) throws SQLException {
        List<ShardRange> ranges = dataSources.shardMap().ranges(ShardGroup.FOLLOWER);
        if (position.rangeIndex() >= ranges.size()) {
            return new Position(ScanPhase.DONE, 0, 0);
        }
        ShardRange range = ranges.get(position.rangeIndex());
        List<FollowerRow> rows;
        Map<Long, List<CelebrityPage>> pagesByFollowee = new HashMap<>();
        try (Connection c = dataSources.forRange(range).getConnection()) {
            rows = followers.scan(c, position.cursor(), pageSize);
            for (FollowerRow r : rows) {
                if (r.celebrity()) {
                    pagesByFollowee.put(r.followeeId(), pages.all(c, r.followeeId()));
                }
            }
        }
        if (rows.isEmpty()) {
            return new Position(ScanPhase.FOLLOWER, position.rangeIndex() + 1, 0);
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
                for (FollowingRow f : following.findAll(c, group.getValue())) {
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
                delta.add(repairs.repair(r.followeeId(),
                        suspects.stream().mapToLong(Long::longValue).toArray()));
            }
        }
        return new Position(ScanPhase.FOLLOWER, position.rangeIndex(), rows.getLast().followeeId());
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
