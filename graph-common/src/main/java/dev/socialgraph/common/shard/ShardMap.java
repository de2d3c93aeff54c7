package dev.socialgraph.common.shard;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Routes a user id to the physical database that holds its row, per shard group (DESIGN.md 2.1).
 *
 * <p>A user's logical shard is {@code floorMod(userId, logicalShardCount)}; the map assigns contiguous
 * ranges of logical shards to physical databases, separately for {@link ShardGroup#FOLLOWING} (keyed by
 * follower id) and {@link ShardGroup#FOLLOWER} (keyed by followee id). Construction validates that the
 * ranges of each group cover {@code 0..logicalShardCount-1} exactly once, so a misconfigured map stops
 * start-up instead of sending a user's writes to two databases over time.
 *
 * <p>Routing is a lookup in a dense {@code int -> range} table: no allocation, no search per call.
 * Instances are immutable and thread-safe.
 */
public final class ShardMap {

    private final int logicalShardCount;
    private final Map<ShardGroup, ShardRange[]> byShard = new EnumMap<>(ShardGroup.class);
    private final Map<ShardGroup, List<ShardRange>> ranges = new EnumMap<>(ShardGroup.class);

    private ShardMap(int logicalShardCount, List<ShardRange> all) {
        this.logicalShardCount = logicalShardCount;
        for (ShardGroup group : ShardGroup.values()) {
            List<ShardRange> mine = new ArrayList<>();
            for (ShardRange r : all) {
                if (r.group() == group) {
                    mine.add(r);
                }
            }
            mine.sort(Comparator.comparingInt(ShardRange::firstShard));
            ShardRange[] table = new ShardRange[logicalShardCount];
            for (ShardRange r : mine) {
                if (r.lastShard() >= logicalShardCount) {
                    throw new IllegalArgumentException("shard map " + group + ": range " + r.firstShard() + ".." + r.lastShard()
                            + " of " + r.database() + " goes past the last logical shard " + (logicalShardCount - 1));
                }
                for (int s = r.firstShard(); s <= r.lastShard(); s++) {
                    if (table[s] != null) {
                        throw new IllegalArgumentException("shard map " + group + ": logical shard " + s
                                + " is assigned twice (overlap of " + table[s].database() + " [" + table[s].firstShard() + ".."
                                + table[s].lastShard() + "] and " + r.database() + " [" + r.firstShard() + ".." + r.lastShard() + "])");
                    }
                    table[s] = r;
                }
            }
            int gapStart = -1;
            for (int s = 0; s <= logicalShardCount; s++) {
                boolean missing = s < logicalShardCount && table[s] == null;
                if (missing && gapStart < 0) {
                    gapStart = s;
                } else if (!missing && gapStart >= 0) {
                    throw new IllegalArgumentException("shard map " + group + ": logical shards " + gapStart + ".." + (s - 1)
                            + " are not assigned to any database (gap); ranges must cover 0.." + (logicalShardCount - 1)
                            + " exactly once");
                }
            }
            byShard.put(group, table);
            ranges.put(group, Collections.unmodifiableList(mine));
        }
    }

    /**
     * Builds and validates a shard map.
     *
     * @param logicalShardCount number of logical shards, {@code >= 1} (256 by default; fixed for a deployment's life)
     * @param ranges            every range of both groups
     * @return the validated map
     * @throws IllegalArgumentException naming the group and shards of the first gap or overlap, or a range past
     *                                  the last logical shard, or when the count is not positive
     */
    public static ShardMap of(int logicalShardCount, List<ShardRange> ranges) {
        if (logicalShardCount < 1) {
            throw new IllegalArgumentException("logicalShardCount must be >= 1, was " + logicalShardCount);
        }
        return new ShardMap(logicalShardCount, List.copyOf(ranges));
    }

    /** Number of logical shards. */
    public int logicalShardCount() {
        return logicalShardCount;
    }

    /**
     * Logical shard of a user: {@code floorMod(userId, logicalShardCount)}.
     *
     * @param userId a user id; routing is total (also for ids the API would reject), validation is the caller's job
     * @return the logical shard, {@code 0..logicalShardCount-1}
     */
    public int logicalShard(long userId) {
        return logicalShard(userId, logicalShardCount);
    }

    /**
     * The one definition of a user's logical shard, {@code floorMod(userId, logicalShardCount)} (DESIGN.md 2.1): the
     * shard map, the shard-affine routing of the gateway and {@code graph-client}, and a check instance's ownership all
     * compute it here.
     *
     * @param userId            any id; routing is total (also for ids the API would reject), validation is the
     *                          caller's job
     * @param logicalShardCount the deployment's {@code graph.shards.logical-shard-count}, at least 1
     * @return the logical shard, {@code 0..logicalShardCount-1}
     */
    public static int logicalShard(long userId, int logicalShardCount) {
        return (int) Math.floorMod(userId, (long) logicalShardCount);
    }

    /**
     * The range (and so the physical database) holding {@code userId}'s row in {@code group}: the follower id for
     * {@link ShardGroup#FOLLOWING}, the followee id for {@link ShardGroup#FOLLOWER}.
     */
    public ShardRange route(ShardGroup group, long userId) {
        return byShard.get(group)[logicalShard(userId)];
    }

    /** The range of {@code group} that holds logical shard {@code shard}; {@code shard} must be in range. */
    public ShardRange rangeOfShard(ShardGroup group, int shard) {
        if (shard < 0 || shard >= logicalShardCount) {
            throw new IllegalArgumentException("logical shard " + shard + " is outside 0.." + (logicalShardCount - 1));
        }
        return byShard.get(group)[shard];
    }

    /** The ranges of {@code group}, ordered by first shard. */
    public List<ShardRange> ranges(ShardGroup group) {
        return ranges.get(group);
    }

    /**
     * Every distinct physical database of both groups, by JDBC URL, in map order (following group first).
     * Two ranges may share a database; each database appears once. Used to run migrations and open one pool
     * per database.
     *
     * @return JDBC URL to database name
     */
    public Map<String, String> databases() {
        Map<String, String> out = new LinkedHashMap<>();
        for (ShardGroup group : ShardGroup.values()) {
            for (ShardRange r : ranges.get(group)) {
                out.putIfAbsent(r.jdbcUrl(), r.database());
            }
        }
        return out;
    }

    /**
     * The map with logical shards {@code first..last} of {@code group} moved to another database: the ranges they
     * were in are cut around them, and neighbouring ranges of the same database are joined again (so a move there
     * and back gives the original map). The other group is unchanged.
     *
     * @param group    the group whose shards move
     * @param first    first logical shard, inclusive
     * @param last     last logical shard, inclusive
     * @param database the new owner's short name
     * @param jdbcUrl  the new owner's JDBC URL
     * @return the new map
     * @throws IllegalArgumentException when the shards are outside {@code 0..logicalShardCount-1} or
     *                                  {@code last < first}
     */
    public ShardMap reassign(ShardGroup group, int first, int last, String database, String jdbcUrl) {
        if (first < 0 || last >= logicalShardCount || last < first) {
            throw new IllegalArgumentException("shards " + first + ".." + last + " are not a range within 0.."
                    + (logicalShardCount - 1));
        }
        List<ShardRange> all = new ArrayList<>();
        for (ShardGroup g : ShardGroup.values()) {
            if (g != group) {
                all.addAll(ranges.get(g));
            }
        }
        ShardRange[] table = byShard.get(group).clone();
        ShardRange moved = new ShardRange(group, first, last, database, jdbcUrl);
        for (int s = first; s <= last; s++) {
            table[s] = moved;
        }
        int start = 0;
        for (int s = 1; s <= logicalShardCount; s++) {
            if (s == logicalShardCount || !table[s].jdbcUrl().equals(table[start].jdbcUrl())) {
                all.add(new ShardRange(group, start, s - 1, table[start].database(), table[start].jdbcUrl()));
                start = s;
            }
        }
        return new ShardMap(logicalShardCount, all);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ShardMap other && other.logicalShardCount == logicalShardCount
                && other.ranges.equals(ranges);
    }

    @Override
    public int hashCode() {
        return 31 * logicalShardCount + ranges.hashCode();
    }

    @Override
    public String toString() {
        return "ShardMap{" + logicalShardCount + " logical shards, " + ranges + "}";
    }
}
