package dev.socialgraph.common.shard;

import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which check-service instance owns a logical shard (shard-affine reads): rendezvous, or
 * highest-random-weight, hashing (D. G. Thaler and C. V. Ravishankar, "Using name-based mappings to increase hit
 * rates", IEEE/ACM Transactions on Networking 6(1), 1998; technical report 1996). Every instance gets a
 * pseudo-random weight per shard, {@code weight(shard, id) = mix(hash(id) ^ mix(shard))}, and the instance of the
 * highest weight owns the shard. So the gateway and each check instance, given the same instance ids, agree on
 * the owner without talking to each other; shards spread evenly; and removing an instance moves only the shards
 * it owned (each to the instance with the next-highest weight), adding one takes about {@code 1/n} of the shards
 * from the others and moves nothing else.
 *
 * <p>The hash is deterministic across JVMs, versions and platforms (never {@link String#hashCode} mixed with a
 * per-run seed): FNV-1a 64 over the id's UTF-8 bytes (Fowler, Noll, Vo; IETF draft-eastlake-fnv) followed by
 * SplitMix64's finalizer (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014),
 * the 64-bit mix that also scrambles the shard number. FNV alone avalanches poorly on short ids that differ in
 * their last character ({@code check-0}, {@code check-1}); the finalizer fixes that. Weights are compared as
 * unsigned numbers; on the (2<sup>-64</sup>) chance of a tie the lexicographically smaller id wins, so the owner
 * does not depend on the order of the list.
 *
 * <p>Changing the hash re-assigns shards on a rolling deploy (the gateway and the check instances would briefly
 * disagree: checks stay correct, only slower), so the unit test pins an owner table.
 *
 * <p>Stateless and thread-safe; a call is {@code O(instances)} and allocates only while validating the ids.
 */
public final class ShardAffinity {

    private static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private ShardAffinity() {
    }

    /**
     * The instance that owns {@code logicalShard}.
     *
     * @param logicalShard a logical shard, {@code >= 0} (as {@link ShardMap#logicalShard})
     * @param instanceIds  the ids of every instance, non-empty, each non-blank, no duplicates; order does not matter
     * @return the owner, one of {@code instanceIds}
     * @throws IllegalArgumentException when {@code logicalShard} is negative or the ids are empty, blank or repeated
     */
    public static String owner(int logicalShard, List<String> instanceIds) {
        if (logicalShard < 0) {
            throw new IllegalArgumentException("logical shard must be >= 0, was " + logicalShard);
        }
        validate(instanceIds);
        long[] hashes = hashes(instanceIds);
        return instanceIds.get(ownerIndex(logicalShard, hashes, instanceIds));
    }

    /**
     * The logical shards {@code instanceId} owns among {@code instanceIds}.
     *
     * @param instanceId        one of {@code instanceIds}
     * @param instanceIds       the ids of every instance, as for {@link #owner}
     * @param logicalShardCount number of logical shards, {@code >= 1} (256 by default)
     * @return a new set with bit {@code s} set when the instance owns logical shard {@code s}, {@code s} in
     *         {@code 0..logicalShardCount-1}; across all instances the sets partition the shards
     * @throws IllegalArgumentException when {@code instanceId} is not in {@code instanceIds}, the ids are invalid
     *                                  (see {@link #owner}) or the count is not positive
     */
    public static BitSet ownedShards(String instanceId, List<String> instanceIds, int logicalShardCount) {
        if (logicalShardCount < 1) {
            throw new IllegalArgumentException("logicalShardCount must be >= 1, was " + logicalShardCount);
        }
        validate(instanceIds);
        int self = instanceIds.indexOf(instanceId);
        if (self < 0) {
            throw new IllegalArgumentException("instance id '" + instanceId + "' is not one of " + instanceIds);
        }
        long[] hashes = hashes(instanceIds);
        BitSet owned = new BitSet(logicalShardCount);
        for (int shard = 0; shard < logicalShardCount; shard++) {
            if (ownerIndex(shard, hashes, instanceIds) == self) {
                owned.set(shard);
            }
        }
        return owned;
    }

    /**
     * Every instance in rendezvous order for {@code logicalShard}: the owner first, then the instance that would own
     * the shard if the owner left, and so on (fail-over of the backend client). The first entry is always
     * {@link #owner}'s choice, and dropping an instance from the list keeps the relative order of the others.
     *
     * @param logicalShard a logical shard, {@code >= 0}
     * @param instanceIds  the ids of every instance, as for {@link #owner}
     * @return a new array of {@code instanceIds.size()} distinct indexes into {@code instanceIds}, highest weight first
     * @throws IllegalArgumentException as {@link #owner}
     */
    public static int[] ranking(int logicalShard, List<String> instanceIds) {
        if (logicalShard < 0) {
            throw new IllegalArgumentException("logical shard must be >= 0, was " + logicalShard);
        }
        validate(instanceIds);
        return ranking(logicalShard, hashes(instanceIds), instanceIds);
    }

    /** The hashes of {@code instanceIds}, in list order; the ids must be valid. */
    static long[] hashes(List<String> instanceIds) {
        long[] hashes = new long[instanceIds.size()];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = hash(instanceIds.get(i));
        }
        return hashes;
    }

    /**
     * Indexes of {@code ids} by descending weight for {@code shard}, ties broken as in {@link #ownerIndex}. An
     * insertion sort: instance lists are short (a handful to a few dozen), and it allocates only the result.
     */
    static int[] ranking(int shard, long[] hashes, List<String> ids) {
        long shardMix = mix(shard);
        int n = hashes.length;
        int[] order = new int[n];
        long[] weights = new long[n];
        for (int i = 0; i < n; i++) {
            long w = mix(hashes[i] ^ shardMix);
            int j = i;
            while (j > 0 && before(w, i, weights[j - 1], order[j - 1], ids)) {
                order[j] = order[j - 1];
                weights[j] = weights[j - 1];
                j--;
            }
            order[j] = i;
            weights[j] = w;
        }
        return order;
    }

    /** Whether instance {@code a} of weight {@code wa} ranks above instance {@code b} of weight {@code wb}. */
    private static boolean before(long wa, int a, long wb, int b, List<String> ids) {
        int c = Long.compareUnsigned(wa, wb);
        return c > 0 || (c == 0 && ids.get(a).compareTo(ids.get(b)) < 0);
    }

    /**
     * Checks a list of instance ids.
     *
     * @param instanceIds the ids
     * @throws IllegalArgumentException when the list is null or empty, an id is null or blank, or an id repeats
     */
    public static void validate(List<String> instanceIds) {
        if (instanceIds == null || instanceIds.isEmpty()) {
            throw new IllegalArgumentException("instance ids must not be empty");
        }
        Set<String> seen = new HashSet<>();
        for (String id : instanceIds) {
            if (id == null || id.isBlank()) {
                throw new IllegalArgumentException("instance ids must not be blank: " + instanceIds);
            }
            if (!seen.add(id)) {
                throw new IllegalArgumentException("instance id '" + id + "' appears twice in " + instanceIds);
            }
        }
    }

    private static int ownerIndex(int shard, long[] hashes, List<String> ids) {
        long shardMix = mix(shard);
        int best = 0;
        long bestWeight = mix(hashes[0] ^ shardMix);
        for (int i = 1; i < hashes.length; i++) {
            long w = mix(hashes[i] ^ shardMix);
            if (before(w, i, bestWeight, best, ids)) {
                best = i;
                bestWeight = w;
            }
        }
        return best;
    }

    /** FNV-1a 64 of the UTF-8 bytes, then mixed. */
    static long hash(String id) {
        long h = FNV_OFFSET_BASIS;
        for (byte b : id.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= FNV_PRIME;
        }
        return mix(h);
    }

    /** SplitMix64's output function (a variant of MurmurHash3's fmix64 with better constants). */
    static long mix(long z) {
        z += 0x9e3779b97f4a7c15L;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
