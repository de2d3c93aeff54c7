package dev.socialgraph.common.shard;

import java.util.List;

/**
 * The check-service instance for a request about a user, for one fixed list of instances (issues 5 and 13): the
 * owner of the user's logical shard, {@code floorMod(userId, logicalShardCount)}, by {@link ShardAffinity}'s
 * rendezvous hashing, then the next instances in rendezvous order for fail-over. The gateway's load balancer and the
 * backend client ({@code graph-client}) both route through this class, so they send every user to the same instance.
 *
 * <p>Layout: the rendezvous order of every shard is computed once, at construction, into one flat {@code int[]} of
 * {@code logicalShardCount × instances} instance indexes ({@code 256 × 4 × 4} bytes = 4 KiB for four instances);
 * a lookup is an array read, with no allocation and no hashing per call.
 *
 * <p>Immutable and thread-safe. A new instance list needs a new router.
 */
public final class ShardAffineRouter {

    private final List<String> instanceIds;
    private final int logicalShardCount;
    private final int instances;
    /** {@code order[shard * instances + rank]}: the index of the instance of that rank for that shard. */
    private final int[] order;

    /**
     * Computes the rendezvous order of every logical shard.
     *
     * @param instanceIds       the ids of every instance ({@code graph.check.affinity.instance-id}s), non-empty,
     *                          each non-blank, no duplicates; order does not matter for the choice, and indexes
     *                          returned by this router point into this list
     * @param logicalShardCount the deployment's logical shard count, {@code >= 1} (256 by default)
     * @throws IllegalArgumentException when the ids are empty, blank or repeated, or the count is not positive
     */
    public ShardAffineRouter(List<String> instanceIds, int logicalShardCount) {
        if (logicalShardCount < 1) {
            throw new IllegalArgumentException("logicalShardCount must be >= 1, was " + logicalShardCount);
        }
        ShardAffinity.validate(instanceIds);
        this.instanceIds = List.copyOf(instanceIds);
        this.logicalShardCount = logicalShardCount;
        this.instances = this.instanceIds.size();
        long[] hashes = ShardAffinity.hashes(this.instanceIds);
        this.order = new int[Math.multiplyExact(logicalShardCount, instances)];
        for (int shard = 0; shard < logicalShardCount; shard++) {
            System.arraycopy(ShardAffinity.ranking(shard, hashes, this.instanceIds), 0, order, shard * instances,
                    instances);
        }
    }

    /** The instance ids, in the order given to the constructor. */
    public List<String> instanceIds() {
        return instanceIds;
    }

    /** The number of instances, {@code >= 1}. */
    public int instanceCount() {
        return instances;
    }

    /** The logical shard count this router was built for. */
    public int logicalShardCount() {
        return logicalShardCount;
    }

    /**
     * The logical shard of a user, {@code floorMod(userId, logicalShardCount)}, as {@link ShardMap#logicalShard}.
     *
     * @param userId any id; routing is total, validation is the caller's job
     * @return {@code 0..logicalShardCount-1}
     */
    public int logicalShard(long userId) {
        return ShardMap.logicalShard(userId, logicalShardCount);
    }

    /**
     * The instance that owns {@code userId}'s logical shard: the same as
     * {@code ShardAffinity.owner(logicalShard(userId), instanceIds())}.
     *
     * @param userId any id
     * @return an index into {@link #instanceIds()}
     */
    public int owner(long userId) {
        return order[logicalShard(userId) * instances];
    }

    /**
     * The instance to try on attempt {@code attempt} of a request about {@code userId}: attempt 0 is the
     * {@link #owner}, attempt 1 the instance that takes the shard over when the owner leaves, and so on; past the
     * last instance the order starts again from the owner.
     *
     * @param userId  any id
     * @param attempt {@code >= 0}
     * @return an index into {@link #instanceIds()}
     * @throws IllegalArgumentException when {@code attempt} is negative
     */
    public int candidate(long userId, int attempt) {
        if (attempt < 0) {
            throw new IllegalArgumentException("attempt must be >= 0, was " + attempt);
        }
        return order[logicalShard(userId) * instances + attempt % instances];
    }

    @Override
    public String toString() {
        return "ShardAffineRouter{" + instanceIds + ", " + logicalShardCount + " logical shards}";
    }
}
