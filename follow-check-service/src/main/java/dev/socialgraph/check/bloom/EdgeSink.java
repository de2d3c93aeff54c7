package dev.socialgraph.check.bloom;

/**
 * Receives edges, one {@code (follower, followee)} at a time: what a start-up scan of the shards ({@link ShardScans})
 * or a replay of {@code follow-events} ({@link SnapshotReplay}) puts into a filter, e.g. {@link EdgeBloom#recordFollow}.
 */
@FunctionalInterface
public interface EdgeSink {

    /**
     * One edge.
     *
     * @param follower positive user id, the edge's source (the blocker or muter for a block or mute)
     * @param followee positive user id, the edge's target
     */
    void accept(long follower, long followee);
}
