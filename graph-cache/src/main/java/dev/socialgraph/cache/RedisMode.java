package dev.socialgraph.cache;

/**
 * How a service reaches the Redis of the following cache: one server, or a Redis Cluster found through seed nodes.
 * Bound from configuration by name, case-insensitively ({@code standalone}, {@code cluster}).
 */
public enum RedisMode {
    /** One server (or a proxy in front of several): the single URI names it. */
    STANDALONE,
    /**
     * A Redis Cluster (the design's production shape): the URIs are seed nodes, from which the client learns the
     * slot map and follows it as masters fail over. Every key of one user shares a hash tag ({@code {id}}), so the
     * cache's scripts touch one slot.
     */
    CLUSTER
}
