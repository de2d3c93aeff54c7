package dev.socialgraph.common.shard;

/**
 * The two groups of shard databases (DESIGN.md 2.1). Each group has its own shard map.
 */
public enum ShardGroup {
    /** Keyed by follower id: source of truth for follow checks and following lists. */
    FOLLOWING,
    /** Keyed by followee id: who follows a user; eventually consistent, fed by Kafka. */
    FOLLOWER
}
