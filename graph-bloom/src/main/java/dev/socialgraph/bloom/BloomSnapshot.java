package dev.socialgraph.bloom;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A bloom filter of every follow edge whose follower is in logical shards {@code firstShard..lastShard}, as of the
 * Kafka positions {@code nextOffsets}: replaying {@code topic} from those offsets adds every edge committed after
 * the snapshot was started (DESIGN.md 5 step 1).
 *
 * @param logicalShards count of logical shards of the deployment (256)
 * @param firstShard    first logical shard covered, {@code 0..lastShard}
 * @param lastShard     last logical shard covered, {@code firstShard..logicalShards-1}
 * @param edgeCount     edges put into the filter by the builder
 * @param createdAt     when the build started, epoch milliseconds
 * @param topic         the event topic the offsets belong to
 * @param nextOffsets   partition → next offset to read when replaying (an unmodifiable, sorted copy is kept)
 * @param filter        the filter
 */
public record BloomSnapshot(int logicalShards, int firstShard, int lastShard, long edgeCount, long createdAt,
                            String topic, Map<Integer, Long> nextOffsets, EdgeFilter filter) {

    /** Validates the fields; throws {@link IllegalArgumentException} naming the first bad one. */
    public BloomSnapshot {
        if (logicalShards < 1 || logicalShards > 65535) {
            throw new IllegalArgumentException("logicalShards must be 1..65535, was " + logicalShards);
        }
        if (firstShard < 0 || firstShard > lastShard || lastShard >= logicalShards) {
            throw new IllegalArgumentException("bad shard range " + firstShard + ".." + lastShard + " of "
                    + logicalShards);
        }
        if (edgeCount < 0) {
            throw new IllegalArgumentException("edgeCount must be >= 0, was " + edgeCount);
        }
        Objects.requireNonNull(topic, "topic");
        if (topic.isEmpty() || topic.length() > 249) {
            throw new IllegalArgumentException("topic must be 1..249 characters");
        }
        Objects.requireNonNull(filter, "filter");
        nextOffsets = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(nextOffsets));
        nextOffsets.forEach((p, o) -> {
            if (p < 0 || o < 0) {
                throw new IllegalArgumentException("bad offset " + p + " -> " + o);
            }
        });
    }

    /**
     * Whether this snapshot holds every edge of the followers in {@code first..last} of {@code shards}.
     *
     * @param shards logical shard count of the reader
     * @param first  first logical shard needed
     * @param last   last logical shard needed
     * @return same shard count and a range that contains {@code first..last}
     */
    public boolean covers(int shards, int first, int last) {
        return logicalShards == shards && firstShard <= first && last <= lastShard;
    }
}
