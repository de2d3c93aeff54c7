/**
 * The shard databases: one pool per physical database and the routing of a user id to it
 * ({@link dev.socialgraph.store.shard.ShardDataSources}, the entry point), the Flyway shard schema
 * ({@link dev.socialgraph.store.shard.ShardMigrations}), creating missing databases, and the online shard moves: the
 * versioned {@link dev.socialgraph.store.shard.ShardDirectory}, its poller and the per-shard
 * {@link dev.socialgraph.store.shard.ShardFence} (docs/shard-moves.md).
 */
package dev.socialgraph.store.shard;
