package dev.socialgraph.check.bloom;

import dev.socialgraph.common.relation.Relation;

/**
 * The scans of the following databases that build the in-process filters at start-up ({@link BloomStartup}): the
 * follow edges for the bloom filter, every one or only those of the owned logical shards' followers, and the blocks
 * and mutes for the filter of hidden pairs. Whole databases are read by the shard map of now, in batches of rows.
 * An adapter in {@code check.store} in production.
 */
public interface ShardScans {

    /**
     * The number of follow edges in the following group: the sum of {@code following_count} of every database.
     *
     * @return edges, {@code >= 0}
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when a database is down
     */
    long edgeCount();

    /**
     * The number of follow edges of the followers in {@code ownedShards}; only databases holding one of them are asked.
     *
     * @param ownedShards logical shards, ascending, each in {@code 0..logicalShardCount-1}
     * @return edges, {@code >= 0}
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when one of those databases is down
     */
    long edgeCount(int[] ownedShards);

    /**
     * Streams every follow edge of the following group into {@code sink}.
     *
     * @param sink receives each edge
     * @return the number of edges streamed
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when a database is down
     */
    long scanEdges(EdgeSink sink);

    /**
     * Streams the follow edges of the followers in {@code ownedShards} into {@code sink}; databases without an owned
     * shard are not read, and the others return only owned followers' rows.
     *
     * @param ownedShards logical shards, ascending, each in {@code 0..logicalShardCount-1}
     * @param sink        receives each edge
     * @return the number of edges streamed
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when one of those databases is down
     */
    long scanEdges(int[] ownedShards, EdgeSink sink);

    /**
     * The number of block and mute edges in the following group, to size the filter of hidden pairs.
     *
     * @return edges, {@code >= 0}
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when a database is down
     */
    long relationEdgeCount();

    /**
     * Streams every block or mute edge of the following group into {@code sink}, source first.
     *
     * @param relation {@link Relation#BLOCK} or {@link Relation#MUTE}
     * @param sink     receives each (source, target)
     * @return the number of edges streamed
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when a database is down
     */
    long scanRelationEdges(Relation relation, EdgeSink sink);
}
